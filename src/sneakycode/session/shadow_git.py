"""A shadow git repository in the session folder that snapshots the workspace without touching the user's git.

The shadow repository has its own GIT_DIR (`<session>/checkpoints.git`) and the workspace as its work
tree, so git itself walks the files, honours every `.gitignore` (plus the user's `.git/info/exclude`) and
never enters `.git`. Its index is kept between snapshots with the untracked cache on, so a snapshot after
the first costs stat calls, not reads. Git runs with an environment built from scratch (no GIT_* of the
user's, no system or global config, no hooks, no fsmonitor) and `info/attributes` switches off every
content filter and line-ending conversion a `.gitattributes` could ask for, so a snapshot holds the exact
bytes and no program of the repository's choosing runs. Hand-written on purpose: the git plumbing it uses
(status, add, write-tree, commit-tree, diff-tree, cat-file) is small, and libraries such as GitPython or
dulwich would either run the same git or walk 20,000 files in Python, which is several times slower.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.config.files import read_head
from sneakycode.errors import CheckpointError
from sneakycode.process.environment import find_program
from sneakycode.process.supervise import run_process

SHADOW_DIR = "checkpoints.git"
GIT_TIMEOUT = 120.0  # the first snapshot of a large workspace hashes every file
_LISTING_LIMIT = 256 << 20
_GITFILE_BYTES = 4096  # a `gitdir: PATH` or `commondir` line fits with room to spare
_UPDATE_LIMIT = 2000  # more changed paths than this go through one `git add -A` instead of argument lists
# Content filters, eol conversion and encodings are off for every path: a snapshot restores byte-identical,
# and a `filter=` in a hostile .gitattributes has nothing to run. info/attributes wins over .gitattributes.
_ATTRIBUTES = "* -text -filter -ident -working-tree-encoding !eol -diff -merge\n"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "SneakyCode",
    "GIT_AUTHOR_EMAIL": "checkpoints@sneakycode.invalid",
    "GIT_COMMITTER_NAME": "SneakyCode",
    "GIT_COMMITTER_EMAIL": "checkpoints@sneakycode.invalid",
}
EMPTY_MODE = "000000"


@dataclass(frozen=True)
class Snapshot:
    """One snapshot: its commit and tree, and the paths left out because they were too large."""

    commit: str
    tree: str
    skipped: list[str] = field(default_factory=list)


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
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C",
            "HOME": str(git_dir),  # no ~/.gitconfig, no ~/.config/git/ignore or attributes of the user
            "XDG_CONFIG_HOME": str(git_dir),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(workspace),
            **_IDENTITY,
        }
        exclude = _user_exclude_file(workspace)
        self._config = [
            "core.hooksPath=" + os.devnull,
            "core.fsmonitor=false",
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
            "gc.auto=0",
            "maintenance.auto=false",
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
            (repo.git_dir / "info").mkdir(exist_ok=True)
            (repo.git_dir / "info" / "attributes").write_text(_ATTRIBUTES, encoding="utf-8")
        return repo

    def run(self, *args: str, limit: int = 1 << 20) -> str:
        """Run one git command; its stdout (decoded, surrogates for bytes that are not UTF-8)."""
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
            said = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise CheckpointError(f"git {args[0]} failed: {said[-1] if said else ending.signal_name or 'no reason'}")
        return result.stdout.decode("utf-8", "surrogateescape")

    def snapshot(self, message: str, max_file_size: int, parent: Snapshot | None) -> Snapshot:
        """Record the workspace as it is now; a new commit only when something changed since `parent`."""
        changed, skipped = self._changed_paths(max_file_size)
        if skipped:
            # Out of the index too, in case an earlier snapshot held a smaller version.
            self.run("rm", "-q", "--cached", "--ignore-unmatch", "--", *(_literal(path) for path in skipped))
        if len(changed) > _UPDATE_LIMIT:  # the first snapshot: one walk by `add` beats many argument lists
            specs = self.git_dir / "pathspecs"
            _write_pathspecs(specs, [".", *(_literal(path, exclude=True) for path in skipped)])
            self.run("add", "-A", f"--pathspec-from-file={specs}", "--pathspec-file-nul")
        elif changed:  # only the paths status found: no second walk of the workspace
            self.run("update-index", "--add", "--remove", "--", *changed)
        tree = self.run("write-tree").strip()
        if parent is not None and parent.tree == tree:
            return Snapshot(parent.commit, tree, skipped)
        parents = ["-p", parent.commit] if parent is not None else []
        commit = self.run("commit-tree", tree, *parents, "-m", message).strip()
        self.run("update-ref", "HEAD", commit)
        return Snapshot(commit, tree, skipped)

    def _changed_paths(self, max_file_size: int) -> tuple[list[str], list[str]]:
        """Paths that differ from the index (new, changed, deleted), and those among them that are regular
        files over the size limit (left out of the snapshot)."""
        listing = self.run(
            "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all",
            limit=_LISTING_LIMIT,
        )
        changed, large = [], []
        for entry in listing.split("\0"):
            path = entry[3:].rstrip("/")  # a nested repository is listed as a folder
            if not path:
                continue
            if entry[1] != "D":
                try:
                    info = os.lstat(self.workspace / path)
                except OSError:
                    info = None
                if info is not None and stat.S_ISREG(info.st_mode) and info.st_size > max_file_size:
                    large.append(path)
                    continue
            changed.append(path)
        return changed, large

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


def _literal(path: str, *, exclude: bool = False) -> str:
    """A pathspec that matches exactly this path from the top, whatever characters it holds."""
    return f":({'exclude,' if exclude else ''}top,literal){path}"


def _write_pathspecs(file: Path, specs: list[str]) -> None:
    file.write_bytes(b"\0".join(spec.encode("utf-8", "surrogateescape") for spec in specs))


def _user_exclude_file(workspace: Path) -> Path | None:
    """The user's `.git/info/exclude` (also through a `gitdir:` file), read by the shadow repository."""
    dot_git = workspace / ".git"
    git_dir: Path | None = dot_git if dot_git.is_dir() else None
    if dot_git.is_file():
        first = _first_line(dot_git)
        if first.startswith("gitdir:"):
            git_dir = (workspace / first[7:].strip()).resolve()
    if git_dir is None:
        return None
    common = git_dir / "commondir"  # a linked worktree keeps info/ in the main repository's git folder
    if common.is_file() and (shared := _first_line(common).strip()):
        git_dir = (git_dir / shared).resolve()
    exclude = git_dir / "info" / "exclude"
    return exclude if exclude.is_file() else None


def _first_line(path: Path) -> str:
    """The first line of a small file the repository supplies (`.git`, `commondir`), read through the
    regular-file reader: one swapped for a FIFO after the is_file() check is not waited on. "" when unreadable."""
    try:
        return read_head(path, _GITFILE_BYTES).decode("utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return ""
