"""How a change is put to the model: in one request when its diff fits a share of the window, else in parts,
file by file (a file too large for one part split by hunks, and a hunk too large split into sub-hunks with
their own headers), so every line is reviewed and none is cut. Each part is one request of the same session,
so the model keeps what it learnt, and the session's compaction makes room as the conversation grows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sneakycode.review.diff import Change, FileDiff, Hunk, split_hunk

# Of the context window, what one part's diff may take: the rest holds the system prompt, the tools, the files
# the model reads and its answer.
DIFF_SHARE = 1 / 3
CHARS_PER_TOKEN = 3  # the agent's own high estimate (agent/estimate.py)


@dataclass
class Part:
    """Files (each with the hunks of it this part holds) reviewed in one request."""

    files: list[tuple[FileDiff, list[Hunk]]] = field(default_factory=list)
    size: int = 0

    def text(self) -> str:
        return "\n".join(found.text(hunks) for found, hunks in self.files)

    def names(self) -> list[str]:
        return list(dict.fromkeys(found.path for found, _ in self.files))


def part_budget(context_window: int) -> int:
    """How many characters of diff one request carries, for this window."""
    return max(2_000, int(context_window * DIFF_SHARE) * CHARS_PER_TOKEN)


def plan_parts(change: Change, budget: int) -> list[Part]:
    """The change in parts of at most `budget` characters of diff (a single line longer than that is one part
    of its own), files in the diff's order."""
    parts = [Part()]
    for found in change.files:
        whole = len(found.text()) + 1
        if whole <= budget:
            _add(parts, budget, found, found.hunks, whole)
            continue
        pieces = [piece for hunk in found.hunks
                  for piece in split_hunk(hunk, budget - len(found.head) - 100)]  # room for the headers
        group: list[Hunk] = []
        size = len(found.head) + 1
        for piece in pieces:
            grown = len(piece.text()) + 1
            if group and size + grown > budget:
                _add(parts, budget, found, group, size)
                group, size = [], len(found.head) + 1
            group.append(piece)
            size += grown
        _add(parts, budget, found, group, size)
    return [part for part in parts if part.files]


def _add(parts: list[Part], budget: int, found: FileDiff, hunks: list[Hunk], size: int) -> None:
    if parts[-1].files and parts[-1].size + size > budget:
        parts.append(Part())
    parts[-1].files.append((found, hunks))
    parts[-1].size += size


def review_request(change: Change, part: Part, number: int, total: int) -> str:
    """The request for one part: what to review, how, and the diff."""
    scope = ""
    if total > 1:
        scope = (f" The diff is large, so it comes in {total} parts; this is part {number} of {total}, with "
                 f"{', '.join(part.names())}. Report findings for this part's lines only; the parts before are in "
                 "this conversation.")
    return (
        f"Review {change.described}.{scope}\n\n"
        "Work as a careful senior reviewer. Read whatever context you need with your tools (the workspace is the "
        "repository; its files are as they are now, which may differ from the diff's new side). You cannot "
        "change anything.\n\n"
        "Report only real problems the change brings: bugs, security holes, broken behaviour or callers, missing "
        "error handling, wrong tests. No style nits, no praise. Each finding points at a line the diff shows "
        "(new-side line numbers, inside a hunk): a line the change touched, or the shown line that the change "
        "breaks. Severity: error (it breaks something), warning (a likely problem), note (a minor point). Give a "
        "`suggestion` only when the fix is obvious: the replacement text for lines `line`..`end_line`. With "
        "nothing to report, `findings` is [].\n\n"
        "End with finish, its message the JSON your output format asks for: a summary of the change and your "
        "verdict, and the findings.\n\n"
        f"<diff>\n{part.text()}\n</diff>"
    )
