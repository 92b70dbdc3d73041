"""Glob semantics shared by both search backends: ripgrep's (globset) glob syntax, and `file_pattern`.

A glob is translated once into a Python regex over `/`-separated relative paths: `*` and `?` never cross
`/`, `**` spans folders only as a whole path component, `[...]` is a character class, `{a,b}` lists
alternatives and `\\` escapes. The same translation serves ignore files (the fallback backend) and
`file_pattern` / find_files patterns (both backends), so the two backends cannot drift apart.

`FileFilter` is the exact filter; the narrowing it derives (start folders, depth, file-name globs) only lets
each backend skip files early and is always a superset of what the filter keeps.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

_META = frozenset("*?[{\\")


class GlobError(ValueError):
    """A glob that ripgrep would reject too (misplaced `**`, unclosed `[` or `{`)."""


def expand_braces(glob: str) -> list[str]:
    """`src/*.{ts,tsx}` -> [`src/*.ts`, `src/*.tsx`]; nested lists expand fully, escaped braces stay."""
    depth = 0
    start = -1
    commas: list[int] = []
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            i += 2
            continue
        if char == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                cuts = [start, *commas, i]
                options = [glob[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                head, tail = glob[:start], glob[i + 1 :]
                tails = expand_braces(tail)
                choices = [choice for option in options for choice in expand_braces(option)]
                return [head + choice + rest for choice in choices for rest in tails]
        elif char == "," and depth == 1:
            commas.append(i)
        i += 1
    if depth:
        raise GlobError(f"unclosed '{{' in glob {glob!r}")
    return [glob]


def _class_to_regex(glob: str, start: int) -> tuple[str, int]:
    """Translate the `[...]` class starting at `start`; returns the regex and the index after `]`."""
    i = start + 1
    negate = i < len(glob) and glob[i] in "!^"
    if negate:
        i += 1
    members: list[str] = []
    first = True
    while i < len(glob) and (glob[i] != "]" or first):
        first = False
        char = glob[i]
        if char == "\\" and i + 1 < len(glob):
            i += 1
            char = glob[i]
        if i + 2 < len(glob) and glob[i + 1] == "-" and glob[i + 2] != "]":
            low, high = char, glob[i + 2]
            if low > high:
                raise GlobError(f"invalid range {low}-{high} in glob {glob!r}")
            members.append(f"{re.escape(low)}-{re.escape(high)}")
            i += 3
            continue
        members.append(re.escape(char))
        i += 1
    if i >= len(glob):
        raise GlobError(f"unclosed '[' in glob {glob!r}")
    body = "".join(members)
    return (f"[^/{body}]" if negate else f"[{body}]"), i + 1


def glob_to_regex(glob: str) -> str:
    """Regex (for fullmatch) of one brace-free glob over a relative path."""
    if glob == "**":
        return ".*"
    parts = glob.split("/")
    out: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:.*/)?")
            continue
        if "**" in part.replace("\\*", ""):
            raise GlobError(f"'**' must be a whole path component in glob {glob!r}")
        out.append(_segment_to_regex(part, glob))
        if not last:
            out.append("/")
    return "".join(out)


def _segment_to_regex(part: str, glob: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(part):
        char = part[i]
        if char == "\\":
            if i + 1 >= len(part):
                raise GlobError(f"dangling '\\' in glob {glob!r}")
            out.append(re.escape(part[i + 1]))
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            regex, i = _class_to_regex(part, i)
            out.append(regex)
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def has_meta(text: str) -> bool:
    return any(char in _META for char in text)


def _combined(regexes: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{r})" for r in regexes)) if regexes else None


def names_regex(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for a list of file-name globs (None when the list is empty)."""
    return _combined([glob_to_regex(name) for name in names])


@dataclass(frozen=True)
class PatternPart:
    """One positive glob after normalisation: anchored at the search root unless `any_depth`."""

    glob: str
    any_depth: bool

    @property
    def regex(self) -> str:
        return glob_to_regex(("**/" if self.any_depth else "") + self.glob)

    @property
    def prefix(self) -> str:
        """Leading folders without wildcards (the place this glob can only match below)."""
        if self.any_depth:
            return ""
        folders = self.glob.split("/")[:-1]
        literal: list[str] = []
        for folder in folders:
            if has_meta(folder):
                break
            literal.append(folder)
        return "/".join(literal)

    @property
    def depth(self) -> int | None:
        """How many levels below `prefix` a match lies, or None when `**` makes it unbounded."""
        if self.any_depth:
            return None
        rest = self.glob.split("/")[len(self.prefix.split("/")) if self.prefix else 0 :]
        return None if "**" in rest else len(rest)

    @property
    def name_glob(self) -> str | None:
        """The file-name glob every match must satisfy, when it is simple enough for a ripgrep type."""
        name = self.glob.rsplit("/", 1)[-1]
        if name == "**" or any(char in name for char in "[\\{,:"):
            return None
        return name


def parse_part(raw: str) -> PatternPart:
    """`*.py` matches at any depth; a glob with a `/` is anchored at the search root; `dir/` means `dir/**`."""
    glob = raw
    while glob.startswith("./"):
        glob = glob[2:]
    anchored = glob.startswith("/")
    glob = glob.lstrip("/")
    if glob.endswith("/"):
        glob = glob.rstrip("/") + "/**"
    if not glob:
        raise GlobError(f"the glob {raw!r} is empty")
    if ".." in glob.split("/"):
        raise GlobError(f"the glob {raw!r} contains '..'; globs match below the search folder only")
    if glob.startswith("**/") and "/" not in glob[3:]:
        return PatternPart(glob[3:], any_depth=True)
    return PatternPart(glob, any_depth=not anchored and "/" not in glob)


@dataclass(frozen=True)
class FileFilter:
    """A `file_pattern` / find_files pattern: space-separated globs, `!glob` excludes.

    A file is kept when it matches some positive glob (or there is none) and no negative glob, tested on its
    path relative to the search root.
    """

    positives: tuple[PatternPart, ...] = ()
    negatives: tuple[PatternPart, ...] = ()
    _include: re.Pattern[str] | None = field(default=None, compare=False, repr=False)
    _exclude: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> FileFilter:
        positives: list[PatternPart] = []
        negatives: list[PatternPart] = []
        for token in text.split():
            negative = token.startswith("!")
            for expanded in expand_braces(token[1:] if negative else token):
                (negatives if negative else positives).append(parse_part(expanded))
        if not positives and not negatives:
            raise GlobError("the glob is empty")
        return cls(
            tuple(positives),
            tuple(negatives),
            _combined([p.regex for p in positives]),
            _combined([p.regex for p in negatives]),
        )

    def matches(self, relative: str) -> bool:
        if self._include is not None and not self._include.fullmatch(relative):
            return False
        return not (self._exclude is not None and self._exclude.fullmatch(relative))

    def narrowing(self, status: Callable[[str], RootStatus]) -> Narrowing:
        """Where matches can lie, given `status(prefix)` of each literal folder prefix below the search root."""
        names_exact = all(_by_name_only(part) for part in self.negatives)
        if not self.positives:
            return Narrowing(("",), None, None, self.exclude_names, exact=names_exact)
        kept: list[tuple[str, int | None, PatternPart]] = []
        for part in self.positives:
            prefix, depth = part.prefix, part.depth
            if prefix:
                state = "missing" if ".git" in prefix.split("/") else status(prefix)
                if state == "missing":
                    continue
                if state == "unsafe":
                    prefix, depth = "", None
            kept.append((prefix, depth, part))
        if not kept:
            return Narrowing((), None, None, self.exclude_names, exact=True)
        prefixes = {prefix for prefix, _, _ in kept}
        roots = sorted(
            p for p in prefixes if not any(q == "" or p.startswith(q + "/") for q in prefixes if q != p)
        )
        depths = [depth for _, depth, _ in kept]
        exact = set(roots) == prefixes and None not in depths
        names = [part.name_glob for _, _, part in kept]
        # Exact when the kept globs are all bare names, or one glob is a folder, its direct files or all
        # files below it (by name): then the folder, depth and names limits say all the filter says.
        single = len(kept) == 1 and kept[0][0] == kept[0][2].prefix and _folder_shaped(kept[0][2])
        return Narrowing(
            tuple(roots),
            max(d for d in depths if d is not None) if exact else None,
            None if None in names else tuple(sorted({n for n in names if n is not None})),
            self.exclude_names,
            exact=names_exact and (all(_by_name_only(part) for _, _, part in kept) or single),
        )

    @property
    def exclude_names(self) -> tuple[str, ...]:
        """File-name globs that exclude a file wherever it is (negatives without a folder part)."""
        return tuple(sorted({p.glob for p in self.negatives if p.any_depth and p.name_glob is not None}))


def _by_name_only(part: PatternPart) -> bool:
    """A glob on the file name at any depth, which a ripgrep type (file name glob) expresses exactly."""
    return part.any_depth and part.name_glob is not None


def _folder_shaped(part: PatternPart) -> bool:
    """`dir/name`, `dir/**/name` or `dir/**` (dir literal, possibly empty): a root, a depth and a name glob."""
    rest = part.glob.split("/")[len(part.prefix.split("/")) if part.prefix else 0 :]
    return rest == ["**"] or (part.name_glob is not None and rest[:-1] in ([], ["**"]))


RootStatus = Literal["dir", "missing", "unsafe"]


@dataclass(frozen=True)
class Narrowing:
    """What a backend may skip: search only `roots` (relative to the search root; "" is the root itself),
    at most `max_depth` levels down, only files whose name matches one of `include_names` (None: any) and
    none of `exclude_names`. Always a superset of what FileFilter.matches keeps; `exact` when it is the same
    set, so the number of files a backend searched is the number the filter keeps."""

    roots: tuple[str, ...]
    max_depth: int | None
    include_names: tuple[str, ...] | None
    exclude_names: tuple[str, ...]
    exact: bool = False


EVERYTHING = Narrowing(("",), None, None, (), exact=True)
