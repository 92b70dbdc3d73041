"""The fallback's tree walk: the files ripgrep would visit, decided by ripgrep's own ignore rules.

Mirrors ripgrep 14 (its `ignore` crate) run with the flags ripgrep.py passes: hidden files are visited,
anything named `.git` never is, symbolic links are not followed, files over a size limit are skipped.
Ignore files come in four kinds, consulted in this order: `.rgignore`, `.ignore`, `.gitignore`,
`.git/info/exclude`. Within a kind the deepest folder that has a matching pattern decides (the last
matching line of its file wins, `!` re-includes). Each pattern is matched against the entry's own path
relative to the ignore file's folder; an ignored folder is not entered. The last two kinds apply only
inside a git repository (a folder holding `.git`) and stop at its root. Ignore files in the parent folders
of the search root count too, and a root named explicitly is searched even when ignored.

Ignore files come with the repository, so they are read only when they are regular files of at most
IGNORE_FILE_LIMIT bytes (a FIFO would hang the walk, `/dev/zero` exhaust memory); any other is skipped and
listed in `Chain.unread`, for the tool to say so. ripgrep has no such limit, so `skipped_ignore_files` walks
the folders a search would enter (never reading a file but ignore files) and tells the tools when ripgrep
must not run (engine.py).

pathspec is not used: it also matches a path through its parent folders, so the common idiom
`*` / `!*/` / `!*.py` gives a different answer than git and ripgrep.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.tools.search.globs import GlobError, expand_braces, glob_to_regex

IGNORE_KINDS = (".rgignore", ".ignore", ".gitignore")
_LEVEL_NAMES = frozenset((*IGNORE_KINDS, ".git"))
IGNORE_FILE_LIMIT = 1 << 20
_GITDIR_FILE_LIMIT = 4096


Signature = tuple[int, int, int, int, int]  # mode, device, inode, size, ctime: what a change of the entry changes


def signature(path: str, *, follow: bool) -> Signature | None:
    """What tells whether the entry at `path` changed (ctime, which no program can set back, not mtime);
    None when there is none."""
    try:
        info = os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    return (info.st_mode, info.st_dev, info.st_ino, info.st_size, info.st_ctime_ns)


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    whitelist: bool
    only_dir: bool


def parse_ignore_line(line: str) -> Rule | None:
    """One line of an ignore file as ripgrep reads it, or None for blanks, comments and invalid globs."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line:
        return None
    whitelist = absolute = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
        absolute = line.startswith("/")
    else:
        if line.startswith("!"):
            whitelist, line = True, line[1:]
        if line.startswith("/"):
            absolute, line = True, line[1:]
    only_dir = line.endswith("/")
    if only_dir:
        line = line[:-1].removesuffix("\\")
    glob = line
    if not absolute and "/" not in glob and glob != "**" and not glob.startswith("**/"):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"
    try:
        regex = "|".join(f"(?:{glob_to_regex(g)})" for g in expand_braces(glob))
    except GlobError:
        return None
    return Rule(re.compile(regex), whitelist, only_dir)


class RuleSet:
    """The rules of one ignore file, anchored at its folder."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        self.any = re.compile("|".join(f"(?:{rule.regex.pattern})" for rule in rules))

    def verdict(self, relative: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included, None: no pattern matches."""
        if not self.any.fullmatch(relative):
            return None
        for rule in reversed(self.rules):
            if (is_dir or not rule.only_dir) and rule.regex.fullmatch(relative):
                return not rule.whitelist
        return None


# While set (prewalk.py), every ignore-file path the walk looks at, with its signature taken before it is read.
probe_log: ContextVar[list[tuple[str, Signature | None]] | None] = ContextVar("probe_log", default=None)
# While set, every folder the walk lists, with its signature taken before it is listed.
folder_log: ContextVar[list[tuple[str, Signature | None]] | None] = ContextVar("folder_log", default=None)


def _read_bounded(path: str, limit: int, unread: list[tuple[str, str]]) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes; None when there is none, and when there is
    something else, which is added to `unread` with the reason."""
    probes = probe_log.get()
    if probes is not None:
        probes.append((path, signature(path, follow=True)))
    try:
        return read_regular(path, limit)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFile as exc:
        unread.append((path, f"{exc.kind}, not a regular file"))
    except OverLimit:
        unread.append((path, f"larger than {limit} bytes"))
    except OSError as exc:
        unread.append((path, f"cannot be read: {exc.strerror}"))
    return None


def _read_rules(path: str, unread: list[tuple[str, str]]) -> RuleSet | None:
    """The rules of one ignore file; one that exists but is not read is added to `unread` with the reason."""
    data = _read_bounded(path, IGNORE_FILE_LIMIT, unread)
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace")
    rules = [rule for line in text.removeprefix("\ufeff").split("\n") if (rule := parse_ignore_line(line))]
    return RuleSet(rules) if rules else None


def _git_exclude_path(folder: str, unread: list[tuple[str, str]]) -> str | None:
    """Where the folder's `info/exclude` is. A `.git` file (a worktree's) and the `commondir` it leads to are
    read by ripgrep too, whole: one that is not a small regular file is in `unread`, like an ignore file."""
    dot_git = os.path.join(folder, ".git")
    if os.path.isdir(dot_git):
        return os.path.join(dot_git, "info", "exclude")
    data = _read_bounded(dot_git, _GITDIR_FILE_LIMIT, unread)
    first = data.decode("utf-8", errors="replace").split("\n", 1)[0].strip() if data is not None else ""
    if not first.startswith("gitdir:"):
        return None
    git_dir = os.path.join(folder, first[len("gitdir:") :].strip())
    common = _read_bounded(os.path.join(git_dir, "commondir"), _GITDIR_FILE_LIMIT, unread)
    if common is not None:
        git_dir = os.path.join(git_dir, common.decode("utf-8", errors="replace").strip())
    return os.path.join(git_dir, "info", "exclude")


@dataclass(frozen=True)
class Level:
    """The ignore files of one folder: (.rgignore, .ignore, .gitignore, info/exclude), whether it holds .git,
    and the ignore files it has that were not read (path, reason)."""

    folder: str
    sets: tuple[RuleSet | None, RuleSet | None, RuleSet | None, RuleSet | None]
    has_git: bool
    unread: tuple[tuple[str, str], ...] = ()

    @classmethod
    def load(cls, folder: str) -> Level:
        unread: list[tuple[str, str]] = []
        custom, ignore, git = (_read_rules(os.path.join(folder, name), unread) for name in IGNORE_KINDS)
        exclude_path = _git_exclude_path(folder, unread)
        exclude = _read_rules(exclude_path, unread) if exclude_path else None
        has_git = os.path.exists(os.path.join(folder, ".git"))
        return cls(folder, (custom, ignore, git, exclude), has_git, tuple(unread))

    @property
    def matters(self) -> bool:
        return self.has_git or any(self.sets) or bool(self.unread)


@dataclass(frozen=True)
class Chain:
    """The levels that apply inside one folder, outermost first."""

    levels: tuple[Level, ...] = ()
    any_git: bool = False

    def descend(self, folder: str) -> Chain:
        level = Level.load(folder)
        if not level.matters:
            return self
        return Chain((*self.levels, level), self.any_git or level.has_git)

    @property
    def unread(self) -> tuple[tuple[str, str], ...]:
        """The ignore files on the way that were skipped (not regular files, too large, unreadable)."""
        return tuple(entry for level in self.levels for entry in level.unread)

    def ignored(self, path: str, is_dir: bool) -> bool:
        verdicts: list[bool | None] = [None, None, None, None]
        saw_git = False
        for level in reversed(self.levels):
            relative = path[len(level.folder) + 1 :] if level.folder != "/" else path[1:]
            for kind, rules in enumerate(level.sets):
                if rules is None or verdicts[kind] is not None:
                    continue
                if kind >= 2 and (not self.any_git or saw_git):
                    continue
                verdicts[kind] = rules.verdict(relative, is_dir)
            saw_git = saw_git or level.has_git
        return next((v for v in verdicts if v is not None), False)

    @classmethod
    def above(cls, folder: str) -> Chain:
        """The chain for the children of `folder`: its parents' ignore files and its own."""
        chain = cls()
        parents: list[str] = []
        current = folder
        while True:
            parent = os.path.dirname(current)
            if parent == current:
                break
            parents.append(parent)
            current = parent
        for parent in reversed(parents):
            chain = chain.descend(parent)
        return chain.descend(folder)


@dataclass(frozen=True)
class WalkOptions:
    include_ignored: bool = False
    max_depth: int | None = None
    include_names: re.Pattern[str] | None = None
    exclude_names: re.Pattern[str] | None = None
    max_filesize: int | None = None
    skip_folders: frozenset[str] = frozenset()  # folder names never entered (the repository map's vendored trees)
    skip_marked: frozenset[str] = frozenset()  # a folder holding a file of one of these names is not entered either


def walk_files(cwd: str, roots: list[str], options: WalkOptions) -> Iterator[tuple[str, str]]:
    """(path relative to cwd, absolute path) of every file ripgrep would search under `roots` (relative
    to cwd; a root that is a file is yielded as it is)."""
    for root in roots:
        top = os.path.normpath(os.path.join(cwd, root))
        if not os.path.isdir(top):
            if os.path.isfile(top):
                yield root, top
            continue
        for folder in walk_folders(cwd, root, options):
            for entry in folder.files:
                if entry.is_file(follow_symlinks=False) and _wanted_file(entry, folder.chain, options):
                    yield folder.prefix + entry.name, entry.path


@dataclass(frozen=True)
class Folder:
    """A folder the walk entered: its path relative to cwd (with a final `/`, "" for cwd), the ignore rules
    that apply inside it, and its entries that are neither folders nor `.git`."""

    prefix: str
    chain: Chain
    files: list[os.DirEntry[str]]  # links among them: ripgrep follows none


def walk_folders(cwd: str, root: str, options: WalkOptions, *, files: bool = True) -> Iterator[Folder]:
    """Every folder ripgrep would enter under the folder `root` (relative to cwd), depth first: ignored
    folders, `.git` and links are not entered, nor folders deeper than max_depth. `files` off leaves
    Folder.files empty (a walk that only looks at folders)."""
    top = os.path.normpath(os.path.join(cwd, root))
    shown = "" if root in ("", ".") else root.rstrip("/") + "/"
    chain = Chain() if options.include_ignored else Chain.above(top)
    # A folder's own ignore files are loaded once its entries are known, and only when it has one (or a
    # `.git`): most folders have none, and probing each for five names would double the walk's system calls.
    stack: list[tuple[str, str, Chain, int]] = [(top, shown, chain, 1)]
    first = True
    signed = folder_log.get()
    while stack:
        folder, prefix, chain, depth = stack.pop()
        if signed is not None:
            signed.append((folder, signature(folder, follow=False)))
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        found: list[os.DirEntry[str]] = []
        folders: list[os.DirEntry[str]] = []
        level = False
        if options.skip_marked and not first and any(entry.name in options.skip_marked for entry in entries):
            continue  # a virtualenv (its pyvenv.cfg), whatever it is called
        for entry in entries:
            name = entry.name
            if name in _LEVEL_NAMES:
                level = True
                if name == ".git":
                    continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if name not in options.skip_folders:
                    folders.append(entry)
            elif files:
                found.append(entry)
        if level and not first and not options.include_ignored:
            chain = chain.descend(folder)
        first = False
        deeper = options.max_depth is None or depth < options.max_depth
        for entry in folders if deeper else ():
            if not (chain.levels and chain.ignored(entry.path, True)):
                stack.append((entry.path, prefix + entry.name + "/", chain, depth + 1))
        yield Folder(prefix, chain, found)


def skipped_ignore_files(cwd: str, roots: list[str], max_depth: int | None) -> dict[str, str]:
    """The ignore files a search of `roots` would meet that are not read (absolute path: why not), for the
    folders named in `roots` and every folder the walk enters, their parents included."""
    skipped: dict[str, str] = {}
    options = WalkOptions(max_depth=max_depth)
    for root in roots:
        if not os.path.isdir(os.path.join(cwd, root)):
            continue  # ripgrep reads no ignore file for a file it is given by name
        for folder in walk_folders(cwd, root, options, files=False):
            for path, reason in folder.chain.unread:
                skipped.setdefault(path, reason)
    return skipped


def _wanted_file(entry: os.DirEntry[str], chain: Chain, options: WalkOptions) -> bool:
    if chain.levels and chain.ignored(entry.path, False):
        return False
    if options.include_names is not None and not options.include_names.fullmatch(entry.name):
        return False
    if options.exclude_names is not None and options.exclude_names.fullmatch(entry.name):
        return False
    if options.max_filesize is not None:
        try:
            return entry.stat(follow_symlinks=False).st_size <= options.max_filesize
        except OSError:
            return False
    return True
