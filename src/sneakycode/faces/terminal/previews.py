"""What an approval shows: an edit as the real unified diff of the file (line numbers, 3 lines of context),
a new file as its first lines, a command as the exact command line. The edit is computed by the tool's own
`proposed` facet against the file as it is now, so the preview is what saying yes will write."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from rich.text import Text

from sneakycode.api.previews import proposed_edit
from sneakycode.api.vocabulary import ProposedEdit, ToolContext
from sneakycode.faces.shared.text import printable

CONTEXT_LINES = 3
NEW_FILE_HEAD = 20
MAX_DIFF_LINES = 60

Kind = Literal["same", "removed", "added", "gap"]
STYLES: dict[Kind, str] = {"same": "", "removed": "red", "added": "green", "gap": "dim"}
MARKS: dict[Kind, str] = {"same": " ", "removed": "-", "added": "+", "gap": " "}


@dataclass(frozen=True)
class DiffLine:
    """One row of a numbered diff: the line's number in the old and in the new file (None where it has none)."""

    kind: Kind
    old: int | None
    new: int | None
    text: str


def numbered_diff(before: str, after: str, context: int = CONTEXT_LINES) -> list[DiffLine]:
    """The changed lines of `after` against `before`, with `context` unchanged lines around each change and a
    `gap` row where unchanged lines are left out."""
    old, new = before.splitlines(), after.splitlines()
    rows: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    end = len(old)
    for number, group in enumerate(matcher.get_grouped_opcodes(context)):
        if number or group[0][1] > 0:
            rows.append(DiffLine("gap", None, None, "..."))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                rows += [DiffLine("same", i + 1, j1 + i - i1 + 1, old[i]) for i in range(i1, i2)]
                continue
            rows += [DiffLine("removed", i + 1, None, old[i]) for i in range(i1, i2)]
            rows += [DiffLine("added", None, j + 1, new[j]) for j in range(j1, j2)]
        end = group[-1][2]
    if rows and end < len(old):
        rows.append(DiffLine("gap", None, None, "..."))
    return rows


def new_file_rows(text: str, head: int = NEW_FILE_HEAD) -> list[DiffLine]:
    """A new file's first `head` lines, numbered, and a gap row saying how many more there are."""
    lines = text.splitlines()
    rows = [DiffLine("added", None, index + 1, line) for index, line in enumerate(lines[:head])]
    if len(lines) > head:
        rows.append(DiffLine("gap", None, None, f"... {len(lines) - head} more lines"))
    return rows


def render_rows(rows: list[DiffLine], limit: int = MAX_DIFF_LINES) -> Text:
    """The rows as coloured text (colour dropped where the console has none): `  12   13 + line`."""
    width = max((len(str(n)) for row in rows for n in (row.old, row.new) if n is not None), default=1)
    out = Text()
    for row in rows[:limit]:
        old = str(row.old) if row.old is not None else ""
        new = str(row.new) if row.new is not None else ""
        body = row.text if row.kind == "gap" else f"{MARKS[row.kind]} {printable(row.text)}"
        out.append(f"{old:>{width}} {new:>{width}} ", style="dim")
        out.append(body + "\n", style=STYLES[row.kind])
    if len(rows) > limit:
        out.append(f"... {len(rows) - limit} more diff lines\n", style="dim")
    return out


def edit_rows(edit: ProposedEdit) -> list[DiffLine]:
    if edit.before is None:
        return new_file_rows(edit.after)
    return numbered_diff(edit.before, edit.after)


@dataclass(frozen=True)
class EditPreview:
    """An edit's diff rows, or why the edit would fail as it stands (`problem`, the tool's own message)."""

    rows: list[DiffLine]
    title: str
    problem: str | None = None


def edit_preview(tool_name: str, arguments: dict[str, Any], ctx: ToolContext) -> EditPreview | None:
    """The diff saying yes would write, for a tool that declares `proposed`; None for any other tool."""
    return preview_of_edit(tool_name, proposed_edit(tool_name, arguments, ctx))


def preview_of_edit(tool_name: str, edit: ProposedEdit | str | None) -> EditPreview | None:
    """The rows and title of an edit the session proposed (a str: why it would fail as it stands)."""
    if edit is None:
        return None
    if isinstance(edit, str):
        return EditPreview([], tool_name, edit)
    rows = edit_rows(edit)
    if edit.before is None:
        return EditPreview(rows, f"new file {edit.path} ({len(edit.after.splitlines())} lines)")
    added = sum(row.kind == "added" for row in rows)
    removed = sum(row.kind == "removed" for row in rows)
    return EditPreview(rows, f"{edit.path}  +{added} -{removed}")
