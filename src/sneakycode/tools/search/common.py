"""What a search asks of a backend and what a backend hands back; ripgrep and the fallback speak this.

A grep runs in two steps. `count` finds every matching file with its number of matching lines (paths
relative to the workspace root), and in the same pass how many files it searched; tools.py filters them by
`file_pattern`, sorts them and picks the few that will be shown; `lines` then fetches the matching lines of
just those files. Counting is cheap for ripgrep, the expensive JSON is produced for the shown files only,
and every count is exact. Filtering, sorting, limits and wording happen once, in tools.py and render.py, so
both backends give the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.search.globs import Narrowing

_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
UTF16_BOMS = tuple(_UTF16_BOMS)
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Line:
    number: int
    text: str  # without its line break
    is_match: bool
    match_start: int  # character offset of the first match (0 for context lines)


@dataclass(frozen=True)
class FileHits:
    path: str  # relative to the workspace root, with `/`
    matched_lines: int  # 1 when the request asked for the first match only


@dataclass(frozen=True)
class GrepRequest:
    pattern: str
    roots: tuple[str, ...]  # relative to the workspace root; "." is the root
    narrowing: Narrowing
    fixed_strings: bool = False
    case_insensitive: bool = False
    context_lines: int = 0
    first_match_only: bool = False  # count: stop at the first match of each file
    line_limit: int = 100  # lines: most matches fetched per file
    include_ignored: bool = False
    max_filesize: int = 1_048_576  # larger files in the folders searched are skipped; a file named as path is not


@dataclass(frozen=True)
class GrepReport:
    files: list[FileHits]
    complete: bool  # False when the backend's output overflowed and later files are missing
    # Files opened and searched, binary ones included (so the ignored, the oversized and the unreadable are
    # not); None when the backend cannot tell (ripgrep's output overflowed before its statistics).
    searched: int | None = None


@dataclass(frozen=True)
class FindRequest:
    roots: tuple[str, ...]
    narrowing: Narrowing
    include_ignored: bool = False
    max_filesize: int | None = None  # set when counting the files a grep would search


def invalid_pattern(pattern: str, message: str, position: int | None = None) -> ToolError:
    """invalid_pattern with the engine's message, and a caret under the position when there is one."""
    where = f" (at position {position})" if position is not None else ""
    detail = f"  {pattern}\n  {' ' * position}^" if position is not None and "\n" not in pattern else ""
    return ToolError(
        ErrorCode.INVALID_PATTERN,
        f"the pattern {pattern!r} is not a valid regex: {message}{where}",
        detail=detail,
    )


def decode(data: bytes) -> str | None:
    """The text ripgrep would search, or None for a binary file."""
    for mark, encoding in _UTF16_BOMS.items():
        if data.startswith(mark):
            text = data[len(mark) :].decode(encoding, errors="replace")
            return None if "\x00" in text else text
    if b"\x00" in data:
        return None
    return data.removeprefix(UTF8_BOM).decode("utf-8", errors="replace")


def split_lines(text: str) -> list[str]:
    """Lines as ripgrep numbers them: a final line break ends the last line, it does not start another."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines
