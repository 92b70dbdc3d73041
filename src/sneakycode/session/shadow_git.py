"""A shadow git repository in the session folder that snapshots the workspace without touching the user's git.

The shadow repository has its own GIT_DIR (`<session>/checkpoints.git`) and the workspace as its work
tree, so git itself walks the files, honours every `.gitignore` (plus the user's `.git/info/exclude`) and
never enters `.git`. Its index is kept between snapshots with the untracked cache on, so a snapshot after
the first costs stat calls, not reads. Git runs with an environment built from scratch (no GIT_* of the
user's, no system or global config, no hooks, no fsmonitor) and `info/attributes` switches off every
content filter and line-ending conversion a `.gitattributes` could ask for, so a snapshot holds the exact
bytes and no program of the repository's choosing runs. What git cannot hold is left out of the snapshot
with its reason instead of failing it: a nested repository (with or without commits, a submodule's checkout)
and a file that cannot be read; so is anything else git refuses, found by halving the refused batch.
Hand-written on purpose: the git plumbing it uses
(status, add, write-tree, commit-tree, diff-tree, cat-file) is small, and libraries such as GitPython or
dulwich would either run the same git or walk 20,000 files in Python, which is several times slower.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.config.files import read_regular
from sneakycode.errors import CheckpointError
from sneakycode.process.environment import find_program
from sneakycode.process.neutral_git import NEUTRAL_CONFIG, neutral_git_environment
from sneakycode.process.supervise import run_process

SHADOW_DIR = "checkpoints.git"
GIT_TIMEOUT = 120.0  # the first snapshot of a large workspace hashes every file
_LISTING_LIMIT = 256 << 20
_UPDATE_LIMIT = 2000  # more changed paths than this go through one `git add -A` instead of argument lists
_REFUSED_CALLS = 64  # git calls spent finding the paths git refuses before the rest of the batch is left out
NESTED_REPOSITORY = "a nested git repository"
_GITDIR_FILE_LIMIT = 4096  # a `.git` file or `commondir` holds one path
# Content filters, eol conversion and encodings are off for every path: a snapshot restores byte-identical,
# and a `filter=` in a hostile .gitattributes has nothing to run. info/attributes wins over .gitattributes.
# `!diff` (unspecified, not `-diff`): git tells text from binary by content, so /diff shows text as text, and no
# `diff=DRIVER` of the repository's applies (the shadow config defines no driver or textconv anyway).
_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding !eol !diff -merge\n"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "SneakyCode",
    "GIT_AUTHOR_EMAIL": "checkpoints@sneakycode.invalid",
    "GIT_COMMITTER_NAME": "SneakyCode",
    "GIT_COMMITTER_EMAIL": "checkpoints@sneakycode.invalid",
}
EMPTY_MODE = "000000"


@dataclass(frozen=True)
class Snapshot:
    """One snapshot: its commit and tree, the files left out because they were too large (`skipped`), and
    the other paths left out, each with the reason (`left_out`: a nested repository, an unreadable file)."""

    commit: str
    tree: str
    skipped: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)

    def left_out_reason(self, path: str) -> str | None:
        """Why `path`, or a folder above it, is left out of this snapshot; None when it is not."""
        return next((self.left_out[at] for at in _self_and_folders(path) if at in self.left_out), None)


@dataclass
class _Listing:
    """What `git status` found changed, sorted by what the snapshot does with it."""

    changed: list[str] = field(default_factory=list)  # to add (or remove, when deleted) in the index
    large: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)


class _GitRefused(CheckpointError):
    """git ran and exited non-zero (not: could not start, or timed out); `said` is its last line."""

    def __init__(self, message: str, said: str) -> None:
        super().__init__(message)
        self.said = said


@dataclass(frozen=True)
class Change:
    """One path that differs between two snapshots: its mode and blob on each side (mode 000000: absent)."""

    path: str
    old_mode: str
    old_blob: str
    new_mode: str
    new_blob: str


class ShadowRepo:
    """Runs git against the shadow repository of one session, with the workspace as work tree."""

    def __init__(self, git_dir: Path, workspace: Path, git: str) -> None:
        self.git_dir = git_dir
        self.workspace = workspace
        self.program = git
        self._env = {
            **neutral_git_environment(git_dir=git_dir, work_tree=workspace),
            "HOME": str(git_dir),  # no ~/.gitconfig, no ~/.config/git/ignore or attributes of the user
            "XDG_CONFIG_HOME": str(git_dir),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            **_IDENTITY,
        }
        exclude = _user_exclude_file(workspace)
        self._config = [
            *NEUTRAL_CONFIG,  # no hooks, fsmonitor, pager, gc
            "core.untrackedCache=true",
            "core.preloadIndex=true",
            "index.threads=true",
            "index.version=4",  # paths prefix-compressed: a smaller index to read and write each time
            "core.autocrlf=false",
            "core.safecrlf=false",
            "core.symlinks=true",
            "core.fileMode=true",
            "core.quotePath=false",
            "core.excludesFile=" + str(exclude or os.devnull),
            "advice.addEmbeddedRepo=false",
            "safe.directory=*",
            "commit.gpgSign=false",
        ]

    @classmethod
    def find(cls, session_dir: Path, workspace: Path) -> ShadowRepo:
        """The session's shadow repository (created on first use); CheckpointError when git is missing."""
        git = find_program("git", not_under=workspace)  # it runs unsandboxed, so never one the model wrote
        if git is None:
            raise CheckpointError("git is not installed (or not on PATH)")
        repo = cls(session_dir / SHADOW_DIR, workspace, git)
        if not (repo.git_dir / "HEAD").exists():
            repo.run("init", "-q")
        attributes = repo.git_dir / "info" / "attributes"
        # Rewritten when it differs: a session made by an older version had `-diff` (every file "binary").
        if not attributes.is_file() or attributes.read_text(encoding="utf-8", errors="replace") != _ATTRIBUTES:
            attributes.parent.mkdir(exist_ok=True)
            attributes.write_text(_ATTRIBUTES, encoding="utf-8")
        return repo

    def run(self, *args: str, limit: int = 1 << 20, warnings: list[str] | None = None) -> str:
        """Run one git command; its stdout (decoded, surrogates for bytes that are not UTF-8). The lines it
        wrote to stderr go into `warnings` when given (git exits 0 after some of them)."""
        argv = [self.program]
        for item in self._config:
            argv += ["-c", item]
        try:
            result = run_process(
                [*argv, *args], cwd=self.workspace, env=self._env, timeout=GIT_TIMEOUT, capture_limit=limit,
                own_session=False,
            )
        except OSError as exc:
            raise CheckpointError(f"git could not start: {exc.strerror or exc}") from None
        ending = result.ending
        if ending.timed_out:
            raise CheckpointError(f"git {args[0]} took longer than {GIT_TIMEOUT:.0f} s")
        if ending.exit_code != 0:
            lines = result.stderr.decode("utf-8", "replace").strip().splitlines()
            said = lines[-1] if lines else ending.signal_name or "no reason"
            # git's `error:` line says why ("'sub/y' is beyond a symbolic link"), its `fatal:` line only what.
            why = next((line for line in lines if line.startswith("error: ")), said)
            raise _GitRefused(f"git {args[0]} failed: {said}", why.removeprefix("error: ").removeprefix("fatal: "))
        if warnings is not None:
            warnings += result.stderr.decode("utf-8", "surrogateescape").splitlines()
        return result.stdout.decode("utf-8", "surrogateescape")

    def snapshot(self, message: str, max_file_size: int, parent: Snapshot | None) -> Snapshot:
        """Record the workspace as it is now; a new commit only when something changed since `parent`.
        What git cannot hold is left out with its reason; it never fails the snapshot of the rest."""
        listing = self._changed_paths(max_file_size)
        left_out = dict(listing.left_out)
        if len(listing.changed) > _UPDATE_LIMIT:  # the first snapshot: one walk by `add` beats many argument lists
            specs = self.git_dir / "pathspecs"
            excluded = [*listing.large, *left_out]
            _write_pathspecs(specs, [".", *(_literal(path, exclude=True) for path in excluded)])
            try:
                self.run("add", "-A", f"--pathspec-from-file={specs}", "--pathspec-file-nul")
            except _GitRefused:  # something git cannot hold appeared after the listing: find it batch by batch
                left_out.update(self._update_index(listing.changed))
        elif listing.changed:  # only the paths status found: no second walk of the workspace
            left_out.update(self._update_index(listing.changed))
        gone = [*listing.large, *left_out]
        if gone:
            # Out of the index too, in case an earlier snapshot held them (a smaller version, a readable one,
            # a nested repository's commit): the snapshot must not claim an old state of them.
            # `-f`: only the index changes, and git would refuse an entry staged apart from both HEAD and the
            # file (a path swapped mid-snapshot), which failed the whole rewind.
            self.run("rm", "-q", "-r", "-f", "--cached", "--ignore-unmatch", "--",
                     *(_literal(path) for path in gone))
        left_out = dict(sorted(left_out.items()))
        tree = self.run("write-tree").strip()
        if parent is not None and parent.tree == tree:
            return Snapshot(parent.commit, tree, listing.large, left_out)
        parents = ["-p", parent.commit] if parent is not None else []
        commit = self.run("commit-tree", tree, *parents, "-m", message).strip()
        self.run("update-ref", "HEAD", commit)
        return Snapshot(commit, tree, listing.large, left_out)

    def _update_index(self, paths: list[str]) -> dict[str, str]:
        """Put the paths in the index, in batches; the paths git refuses (one it cannot read, a folder that
        became a nested repository or a link since the listing) are found by halving a refused batch (git
        writes nothing of a batch it refuses) and returned with what git said. After _REFUSED_CALLS
        refusals the batches still unsorted are left out whole rather than spending more time."""
        refused: dict[str, str] = {}
        pending = [paths[start : start + _UPDATE_LIMIT] for start in range(0, len(paths), _UPDATE_LIMIT)]
        refusals = 0
        while pending:
            batch = pending.pop()
            if refusals >= _REFUSED_CALLS:
                refused.update(dict.fromkeys(batch, "git refused a batch of paths holding it"))
                continue
            try:
                self.run("update-index", "--add", "--remove", "--", *batch)
            except _GitRefused as exc:
                refusals += 1
                if len(batch) == 1:
                    refused[batch[0]] = f"git refused it: {exc.said}"
                else:
                    pending += [batch[: len(batch) // 2], batch[len(batch) // 2 :]]
        return refused

    def _changed_paths(self, max_file_size: int) -> _Listing:
        """Paths that differ from the index (new, changed, deleted), sorted into those to record, regular
        files over the size limit, and those git cannot hold (with the reason)."""
        said: list[str] = []
        listing = self.run(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all",
            limit=_LISTING_LIMIT, warnings=said,
        )
        found = _Listing(left_out=_unseen(said))
        for entry in listing.split("\0"):
            path = entry[3:].rstrip("/")
            if not path:
                continue
            if entry.endswith("/"):
                # With --untracked-files=all git lists a folder only when it holds a repository of its own:
                # one without a commit cannot be added at all, and one with commits would be a bare commit
                # id that rewind cannot restore, so neither is snapshotted.
                found.left_out[path] = NESTED_REPOSITORY
                continue
            problem = self._problem(path, max_file_size)
            if problem == _LARGE:
                found.large.append(path)
            elif problem is not None:
                found.left_out[path] = problem
            else:
                found.changed.append(path)
        return found

    def _problem(self, path: str, max_file_size: int) -> str | None:
        """_LARGE for a regular file over the limit, the reason for a path git could not read, or None."""
        where = self.workspace / path
        try:
            info = os.lstat(where)
        except (FileNotFoundError, NotADirectoryError):
            return None  # deleted: update-index --remove takes it out
        except OSError as exc:  # a folder on the way cannot be searched
            return f"unreadable ({exc.strerror or exc})"
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > max_file_size:
            return _LARGE
        # access(), not open(): nothing is opened (a file swapped for a device since the lstat stays unopened),
        # and it answers as git's own open would for this user, ACLs included. Root reads everything.
        if not os.access(where, os.R_OK, follow_symlinks=False):
            return "unreadable (permission denied)"
        return None

    def changes(self, old: str, new: str) -> list[Change]:
        """Every file that differs between two snapshots (commits or trees)."""
        raw = self.run("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new, limit=_LISTING_LIMIT)
        parts = raw.split("\0")
        found = []
        for header, path in zip(parts[0::2], parts[1::2], strict=False):
            fields = header.lstrip(":").split()
            if len(fields) < 5:
                continue
            found.append(Change(path, fields[0], fields[2], fields[1], fields[3]))
        return found

    def blob(self, blob_id: str) -> bytes:
        argv = [self.program, "cat-file", "blob", blob_id]
        try:
            result = run_process(argv, cwd=self.workspace, env=self._env, timeout=GIT_TIMEOUT,
                                 capture_limit=1 << 62, own_session=False)
        except OSError as exc:
            raise CheckpointError(f"git could not start: {exc.strerror or exc}") from None
        if result.ending.exit_code != 0:
            raise CheckpointError(f"git cat-file could not read {blob_id}: {result.stderr.decode('utf-8', 'replace')}")
        return result.stdout


_LARGE = "large"


def _self_and_folders(path: str) -> list[str]:
    """`a/b/c` -> `a/b/c`, `a/b`, `a`."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(len(parts), 0, -1)]


def _literal(path: str, *, exclude: bool = False) -> str:
    """A pathspec that matches exactly this path from the top, whatever characters it holds."""
    return f":({'exclude,' if exclude else ''}top,literal){path}"


def _write_pathspecs(file: Path, specs: list[str]) -> None:
    file.write_bytes(b"\0".join(spec.encode("utf-8", "surrogateescape") for spec in specs))


def _user_exclude_file(workspace: Path) -> Path | None:
    """The user's `.git/info/exclude` (also through a `gitdir:` file), read by the shadow repository."""
    dot_git = workspace / ".git"
    git_dir: Path | None = dot_git if dot_git.is_dir() else None
    if git_dir is None:
        first = _first_line(dot_git)
        if first.startswith("gitdir:"):
            git_dir = (workspace / first[7:].strip()).resolve()
    if git_dir is None:
        return None
    common = _first_line(git_dir / "commondir")  # a linked worktree keeps info/ in the main repository's git folder
    if common:
        git_dir = (git_dir / common.strip()).resolve()
    exclude = git_dir / "info" / "exclude"
    return exclude if exclude.is_file() else None


def _first_line(file: Path) -> str:
    """The first line of a small regular file the repository supplies (bounded, never blocking); "" if none."""
    try:
        return read_regular(file, _GITDIR_FILE_LIMIT).decode("utf-8").splitlines()[0]
    except (OSError, UnicodeDecodeError, IndexError):
        return ""


# What `git status` says, and exits 0 after, about what it could not look at (LC_ALL=C: always in English):
# a folder it could not list, a tracked file it could not stat.
_UNLISTED = re.compile(r"warning: could not open directory '(.+)/': (.+)")
_UNSTATED = re.compile(
    r"(?!(?:error|warning|fatal|hint): )(.+): (Permission denied|Input/output error|Stale file handle)"
)


def _unseen(said: list[str]) -> dict[str, str]:
    """The paths `git status` could not look at, from its stderr: their state is unknown, so they are left
    out of the snapshot (a snapshot that kept their old state would let rewind say they are as they were)."""
    unseen: dict[str, str] = {}
    for line in said:
        if (match := _UNLISTED.fullmatch(line)) is not None:
            unseen[match.group(1)] = f"unreadable (a folder git could not list: {match.group(2).lower()})"
        elif (match := _UNSTATED.fullmatch(line)) is not None:
            unseen[match.group(1)] = f"unreadable ({match.group(2).lower()})"
    return unseen
