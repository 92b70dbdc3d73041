"""How search results read to the model: sorted by path, bounded, and honest about what was left out.

Content lines are `path:line:text` (context lines `path-line-text`, `--` between groups, as grep prints
them), so a path can be passed straight to read_file. Paths stay as the file system gave them until they are
written here, through workspace.paths.escaped, as every tool shows a name: bytes that are not UTF-8 read
`\\xff` instead of crashing whatever encodes the result. Lines over MAX_LINE_CHARS are cut around the match.
When max_results or max_output_bytes cuts the list, the last line counts the matches and files left out and
says how to narrow the search.
"""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.tools.search.common import FileHits, Line
from sneakycode.workspace.paths import escaped

MAX_LINE_CHARS = 500
_KEEP_BEFORE_MATCH = 100
NARROW = "a more specific pattern, a smaller path, or a file_pattern"


def path_key(path: str) -> str:
    """Sort order of paths: folder by folder, as `rg --sort path` lists them. The separator made the lowest
    character orders like comparing the lists of parts (`a/x` before `a-b/x`), in one C-level call."""
    return path.replace("/", "\0")


def clip(text: str, match_start: int = 0) -> str:
    """The line, or a MAX_LINE_CHARS window of it around the match with a marker saying what was cut."""
    if len(text) <= MAX_LINE_CHARS:
        return text
    begin = max(0, min(match_start - _KEEP_BEFORE_MATCH, len(text) - MAX_LINE_CHARS))
    piece = text[begin : begin + MAX_LINE_CHARS]
    lead = "..." if begin else ""
    return f"{lead}{piece}... [line cut: {len(text) - len(piece)} of {len(text)} characters not shown]"


@dataclass
class Budget:
    """Bytes left for the content, so the whole result stays under max_output_bytes."""

    left: int
    exhausted: bool = False

    def take(self, line: str) -> bool:
        cost = len(line.encode("utf-8", errors="replace")) + 1
        if cost > self.left:
            self.exhausted = True
            return False
        self.left -= cost
        return True


@dataclass(frozen=True)
class Shown:
    lines: list[str]
    matches: int
    files: int


def content_lines(
    hits: list[FileHits], by_path: dict[str, list[Line]], max_results: int, context: int, budget: Budget
) -> Shown:
    """`path:line:text` lines of the first max_results matches, in the order of `hits`."""
    out: list[str] = []
    matches = files = 0
    for hit in hits:
        shown_path = escaped(hit.path)
        if matches >= max_results or budget.exhausted or hit.path not in by_path:
            break
        previous: int | None = None
        file_had_match = False
        for line in by_path[hit.path]:
            if line.is_match and matches >= max_results:
                break
            if context and out and (previous is None or line.number > previous + 1):
                if not budget.take("--"):
                    break
                out.append("--")
            sep = ":" if line.is_match else "-"
            entry = f"{shown_path}{sep}{line.number}{sep}{clip(line.text, line.match_start)}"
            if not budget.take(entry):
                break
            out.append(entry)
            previous = line.number
            if line.is_match:
                matches += 1
                file_had_match = True
                if matches >= max_results:
                    break
        files += file_had_match
    return Shown(out, matches, files)


def listed_lines(entries: list[str], max_results: int, budget: Budget) -> list[str]:
    """The first max_results entries (paths, or `path:count`) that fit the budget, names escaped."""
    out: list[str] = []
    for entry in map(escaped, entries[:max_results]):
        if not budget.take(entry):
            break
        out.append(entry)
    return out


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def left_out_notice(
    *, shown: int, total: int, unit: str, shown_files: int, files: int, lower_bound: bool, budget: Budget
) -> str:
    """The last line of a cut result: what was shown, what was left out, how to narrow. `lower_bound` marks
    counts that miss files ripgrep found after its output limit."""
    plus = "+" if lower_bound else ""
    why = " (output size limit reached)" if budget.exhausted else ""
    if unit == "files":
        text = f"[Showing {shown:,} of {total:,}{plus} files{why}; {total - shown:,}{plus} more left out."
    else:
        text = f"[Showing {shown:,} of {total:,}{plus} {unit}{why} from {shown_files:,} of {files:,}{plus} files; "
        text += f"{total - shown:,}{plus} more left out"
        text += f", {files - shown_files:,}{plus} files not shown." if files > shown_files else "."
    return text + f" Narrow the search with {NARROW}.]"
