"""The change under review, from real git: which files it touches, each file's patch and its hunks.

git runs through process/ with the neutral configuration (process/neutral_git.py): a repository under review
is exactly the kind whose configuration must not choose programs for us (fsmonitor, hooks, pagers, external
diff and textconv drivers, clean and smudge filters). Two calls describe a change: `--numstat -z` for the exact
paths (NUL-separated, never quoted), rename pairs and binary files, and `-p` for the patches, in the same order.
Only the hunk headers are parsed (`@@ -a,b +c,d @@`): that is all a review needs to know which new-side lines
the diff shows, and it keeps a patch-parsing dependency out of the package.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.process.environment import find_program
from sneakycode.process.neutral_git import DIFF_FLAGS, neutral_git
from sneakycode.process.supervise import run_process

GIT_TIMEOUT = 60.0
MAX_PATCH_BYTES = 64 << 20  # a patch past this is refused, said so, never reviewed in part
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_SECTION = re.compile(r"^diff --git ", re.MULTILINE)


class DiffError(Exception):
    """The change cannot be collected: not a repository, an unknown ref, git missing or failing."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[str, ...]  # the body, each line with its ' ', '+', '-' or '\\' prefix

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"

    @property
    def new_range(self) -> tuple[int, int]:
        """The new-side lines this hunk shows (a pure deletion shows the line it follows, at least line 1)."""
        if self.new_count == 0:
            return max(1, self.new_start), max(1, self.new_start)
        return self.new_start, self.new_start + self.new_count - 1

    def text(self) -> str:
        return "\n".join([self.header, *self.lines])


@dataclass
class FileDiff:
    """One file of the change: `path` its new name (its old one when deleted), `old_path` a rename's source."""

    path: str
    old_path: str | None = None
    binary: bool = False
    deleted: bool = False
    head: str = ""  # the section's header lines (diff --git, index, ---, +++), before the first hunk
    hunks: list[Hunk] = field(default_factory=list)

    def text(self, hunks: list[Hunk] | None = None) -> str:
        return "\n".join([self.head, *(h.text() for h in (self.hunks if hunks is None else hunks))])


@dataclass(frozen=True)
class Change:
    """What is reviewed: `described` says which change in words (`the staged changes`, ...)."""

    described: str
    files: list[FileDiff]
    root: Path  # the repository's top folder: every path is relative to it


def collect_change(cwd: Path, *, base: str | None = None, staged: bool = False, commit: str | None = None,
                   paths: list[str] | None = None) -> Change:
    """The change asked for, run from `cwd` (where PATHs are relative to): the working tree against HEAD by
    default, the staged changes, one commit against its first parent, or HEAD against its merge base with
    `base` (what a pull request shows). Raises DiffError."""
    git = find_program("git", not_under=cwd.resolve())  # never a git the repository under review ships
    if git is None:
        raise DiffError("git is not installed")
    root = Path(_git(git, cwd, ["rev-parse", "--show-toplevel"]).strip())
    if base is not None:
        known = _git(git, cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}"],
                     problem=f"--base {base!r} is not a commit this repository knows").strip()
        merge_base = _git(git, cwd, ["merge-base", known, "HEAD"], problem=f"{base!r} and HEAD share no history")
        spec, described = [merge_base.strip(), "HEAD"], f"the commits on HEAD since it left {base}"
    elif commit is not None:
        full = _git(git, cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{commit}^{{commit}}"],
                    problem=f"--commit {commit!r} is not a commit this repository knows").strip()
        parents = _git(git, cwd, ["rev-list", "--parents", "-n", "1", full]).split()[1:]
        spec = [parents[0], full] if parents else [_empty_tree(git, cwd), full]
        described = f"commit {full[:12]}" + ("" if parents else " (the first commit)")
    elif staged:
        spec, described = ["--cached"], "the staged changes"
    else:
        _git(git, cwd, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
             problem="the repository has no commit yet: review the staged changes with --staged")
        spec, described = ["HEAD"], "the uncommitted changes (staged and not) against HEAD"
    # Fixed prefixes and root-relative paths, whatever the user's diff.noprefix / diff.relative say.
    common = ["diff", *DIFF_FLAGS, "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", *spec, "--", *(paths or [])]
    with tempfile.TemporaryDirectory(prefix="sneakycode-review-") as scratch:
        index = _index_copy(git, cwd, Path(scratch))
        listing = _git(git, cwd, [*common[:1], "--numstat", "-z", *common[1:]], index=index)
        patch = _git(git, cwd, [*common[:1], "-p", *common[1:]], index=index)
    return Change(described, _files(listing, patch), root)


def _index_copy(git: str, cwd: Path, scratch: Path) -> Path | None:
    """A copy of the repository's index for the diff to use: `git diff` refreshes the stat data of the index it
    reads and writes it back (GIT_OPTIONAL_LOCKS does not stop it), and a review must leave the repository as
    it found it."""
    index = Path(_git(git, cwd, ["rev-parse", "--path-format=absolute", "--git-path", "index"]).strip())
    if not index.is_file():
        return None
    copy = scratch / "index"
    shutil.copy2(index, copy)  # with its mtime: git's racy-entry check compares file times with it
    return copy


def _files(listing: str, patch: str) -> list[FileDiff]:
    files = _listed(listing)
    sections = [s for s in _SECTION.split(patch) if s.strip()] if patch.strip() else []
    if len(sections) != len(files):  # (never: both come from one git with the same arguments)
        raise DiffError(f"git listed {len(files)} changed files but printed {len(sections)} patches")
    for found, section in zip(files, sections, strict=True):
        _read_section(found, "diff --git " + section)
    return files


def _listed(listing: str) -> list[FileDiff]:
    """`--numstat -z` records: `ADDED\\tDELETED\\tPATH\\0`, or `ADDED\\tDELETED\\t\\0OLD\\0NEW\\0` for a rename."""
    fields = listing.split("\0")
    files: list[FileDiff] = []
    index = 0
    while index < len(fields) and fields[index]:
        added, _, rest = fields[index].split("\t", 2)
        binary = added == "-"
        if rest:
            files.append(FileDiff(rest, binary=binary))
            index += 1
        else:
            files.append(FileDiff(fields[index + 2], old_path=fields[index + 1], binary=binary))
            index += 3
    return files


def _read_section(found: FileDiff, section: str) -> None:
    lines = section.rstrip("\n").split("\n")
    head: list[str] = []
    body: list[str] = []
    header: re.Match[str] | None = None
    for line in lines:
        match = _HUNK.match(line)
        if match is not None:
            if header is not None:
                found.hunks.append(_hunk(header, body))
            header, body = match, []
        elif header is None:
            head.append(line)
            found.deleted |= line.startswith("deleted file mode")
        else:
            body.append(line)
    if header is not None:
        found.hunks.append(_hunk(header, body))
    found.head = "\n".join(head)


def _hunk(header: re.Match[str], body: list[str]) -> Hunk:
    old_start, old_count, new_start, new_count = header.groups()
    return Hunk(int(old_start), int(old_count if old_count is not None else 1), int(new_start),
                int(new_count if new_count is not None else 1), tuple(body))


def split_hunk(hunk: Hunk, max_chars: int) -> list[Hunk]:
    """A hunk too long for one request, as consecutive sub-hunks of at most `max_chars` characters of lines
    each (at least one line), each with its own correct header: every line is still reviewed, and line
    numbers stay true."""
    pieces: list[list[str]] = [[]]
    size = 0
    for line in hunk.lines:
        if pieces[-1] and size + len(line) + 1 > max_chars:
            pieces.append([])
            size = 0
        pieces[-1].append(line)
        size += len(line) + 1
    parts: list[Hunk] = []
    old, new = hunk.old_start, hunk.new_start
    for piece in pieces:
        old_count = sum(1 for line in piece if line[:1] in (" ", "-", ""))
        new_count = sum(1 for line in piece if line[:1] in (" ", "+", ""))
        parts.append(Hunk(old, old_count, new, new_count, tuple(piece)))
        old, new = old + old_count, new + new_count
    return parts


def _empty_tree(git: str, cwd: Path) -> str:
    return _git(git, cwd, ["hash-object", "-t", "tree", "--stdin"], stdin=b"").strip()


def _git(git: str, cwd: Path, args: list[str], *, problem: str | None = None, stdin: bytes | None = None,
         index: Path | None = None) -> str:
    try:
        argv, env = neutral_git(git, args, cwd=cwd)
        env["GIT_OPTIONAL_LOCKS"] = "0"
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        result = run_process(argv, cwd=cwd, env=env,
                             timeout=GIT_TIMEOUT, capture_limit=MAX_PATCH_BYTES + 1, stdin=stdin)
    except OSError as exc:
        raise DiffError(f"git could not start in {cwd}: {exc.strerror or exc}") from None
    if result.ending.timed_out:
        raise DiffError(f"git {args[0]} took longer than {GIT_TIMEOUT:.0f} s")
    if result.stdout_total > MAX_PATCH_BYTES:
        raise DiffError(f"the diff is over {MAX_PATCH_BYTES >> 20} MiB; name fewer PATHs")
    if result.ending.exit_code != 0:
        said = result.stderr.decode("utf-8", "replace").strip().splitlines()
        if problem is not None:
            raise DiffError(problem)
        if said and "not a git repository" in said[-1]:
            raise DiffError(f"{cwd} is not in a git repository")
        raise DiffError(f"git {args[0]} failed: {said[-1] if said else f'exit code {result.ending.exit_code}'}")
    return result.stdout.decode("utf-8", "replace")
