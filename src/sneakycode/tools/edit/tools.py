"""str_replace and patch_apply: an edit changes exactly what the model meant, or nothing at all.

Both need the file read in this session (a patch creating a new file excepted) and compute the edit against
what was read; a change made on disk since is merged in when it touches other lines (merge.py). The new
text is computed whole in memory and written once, atomically, in the file's own encoding, BOM, line
endings and mode, so a rejected edit leaves the file byte-identical. Every outcome says what happened:
which strategy matched, where, and the edited lines; or why not, with the closest text the file has.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Preview, ProposedEdit, Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.read import split_lines
from sneakycode.workspace.files import SinceRead, Workspace

if TYPE_CHECKING:
    from sneakycode.tools.diagnostics.after_edit import Diagnosis
    from sneakycode.tools.edit.matching import Candidate, Strategy
    from sneakycode.tools.edit.patch import Patch, Patched

# The matching, merging and patching machinery and the after-edit diagnostics (some 20 ms of imports) are
# imported by the functions that use them, on the first edit: a session offers these tools on every request
# but the first request needs only their schemas (issue 42; tests/faces/cli/test_cold_start.py).


def _replacement_preview(arguments: dict[str, Any]) -> Preview:
    """old_str against new_str as a diff (the approval shows what will change, not the whole call)."""
    diff = difflib.unified_diff(
        str(arguments.get("old_str", "")).splitlines(),
        str(arguments.get("new_str", "")).splitlines(),
        "before",
        "after",
        lineterm="",
    )
    return Preview("\n".join(list(diff)[2:]), "diff")


class StrReplaceArgs(ToolArgs):
    file_path: str
    old_str: str = Field(description="file text, without line numbers")
    new_str: str = Field(description="literal")
    replace_all: bool = False


def _proposed_replacement(args: StrReplaceArgs, ctx: ToolContext) -> ProposedEdit:
    """The edit computed by the tool's own matching against the file as it is now; nothing is written."""
    real = _existing_file(ctx.workspace, args.file_path)
    shown = ctx.workspace.display(real)
    before = ctx.workspace.read_text(args.file_path).text
    edit = compute_str_replace(before, args.old_str, args.new_str, replace_all=args.replace_all, label=shown)
    return ProposedEdit(shown, before, edit.text)


@dataclass(frozen=True)
class _Replacement:
    """A str_replace call checked and computed, nothing written yet."""

    real: Path
    since: SinceRead
    shown: str
    edit: StrReplaced


def _planned_replacement(args: StrReplaceArgs, ctx: ToolContext) -> _Replacement:
    """Every check of a str_replace call and its edit, before the write: the ToolError a run would fail with.
    The gate runs it too before asking anyone (`dry_check`), so a call bound to fail is never put to the user."""
    ws = ctx.workspace
    _check_strings(args.old_str, args.new_str)
    real = _existing_file(ws, args.file_path)
    since = ws.read_since(args.file_path, real)
    shown = ws.display(real)
    edit = compute_str_replace(since.seen.text, args.old_str, args.new_str, replace_all=args.replace_all, label=shown)
    return _Replacement(real, since, shown, edit)


@tool(
    name="str_replace",
    tier=Tier.CONFIRM,
    edits_files=True,
    paths=("file_path",),
    preview=_replacement_preview,
    proposed=_proposed_replacement,
    dry_check=_planned_replacement,
    example={"file_path": "app/main.py", "old_str": "def old_name():", "new_str": "def new_name():"},
    edit_format="replace",
    guidance="Prefer str_replace for edits: old_str must match the file exactly (without the line numbers "
    "read_file shows) and be unique.",
)
def str_replace(args: StrReplaceArgs, ctx: ToolContext) -> ToolResult:
    """Replace old_str (once, unless replace_all: add context) with new_str in a file you have read.
    Whitespace, indentation, quotes and blank lines match leniently. Returns the edited lines."""
    from sneakycode.tools.edit.view import span_lines

    planned = _planned_replacement(args, ctx)
    real, since, shown, edit = planned.real, planned.since, planned.shown, planned.edit
    count = len(edit.chosen)
    message = f"Edited {shown}: {count} replacement{'' if count == 1 else 's'}, old_str matched {edit.strategy.phrase}"
    reindent = edit.chosen[0].reindent
    if reindent is not None:
        message += f"; new_str re-indented to the file ({reindent.describe()})"
    written = _write_edit(ctx, args.file_path, real, since, edit.text, span_lines(edit.text, edit.spans))
    return ToolResult.ok(
        written.content, written.diagnosis.add_to(message + written.note + "."), replacements=count,
        strategy=edit.strategy.name, **written.data, **written.diagnosis.data(),
    )


@dataclass(frozen=True)
class _Written:
    content: str
    note: str
    data: dict[str, Any]
    diagnosis: Diagnosis


def _write_edit(
    ctx: ToolContext, user_path: str, real: Path, since: SinceRead, edited: str, ranges: list[tuple[int, int]]
) -> _Written:
    """Write the edit (computed against what the model saw), merged with any outside change since the read
    (merge.py), show the edited lines of what was written, and diagnose what the edit broke (only errors
    the file on disk did not already have)."""
    from sneakycode.tools.diagnostics.after_edit import diagnose_edit
    from sneakycode.tools.edit.merge import merge_outside_change
    from sneakycode.tools.edit.view import edited_regions

    ws = ctx.workspace
    shown = ws.display(real)
    if not since.changed:
        ws.write_text(user_path, edited, like=since.current)
        diagnosis = diagnose_edit(ctx, real, since.current.text, edited)
        return _Written(edited_regions(edited, ranges), "", {}, diagnosis)
    merged = merge_outside_change(since.seen.text, since.current.text, edited, shown)
    if merged.text == since.current.text:
        raise ToolError(
            ErrorCode.NO_CHANGE,
            f"{shown} changed on disk since it was last read, and the outside change already made this edit",
            detail=merged.outside,
        )
    ws.write_text(user_path, merged.text, like=since.current)
    content = f"{edited_regions(merged.text, merged.edited)}\n\nChanged on disk since your last read (kept):\n"
    note = "; merged with an outside change made since the last read (diff below; line numbers are the merged file's)"
    diagnosis = diagnose_edit(ctx, real, since.current.text, merged.text)
    return _Written(content + merged.outside, note, {"merged": True}, diagnosis)


@dataclass(frozen=True)
class StrReplaced:
    text: str
    strategy: Strategy
    chosen: list[Candidate]
    spans: list[tuple[int, int]]


def compute_str_replace(
    text: str, old: str, new: str, *, replace_all: bool, label: str, strategies: Sequence[Strategy] | None = None
) -> StrReplaced:
    """The edited text, or the ToolError explaining why there is none (pure: the benchmark uses it too).
    `strategies`: the matching strategies to try in order (None: all of them)."""
    from sneakycode.tools.edit.matching import locate
    from sneakycode.tools.edit.replace import non_overlapping, replace_candidates
    from sneakycode.tools.edit.strategies import STRATEGIES

    _check_strings(old, new)
    found = locate(text, old, replace_all=replace_all, strategies=STRATEGIES if strategies is None else strategies)
    if found is None:
        raise _no_match(text, old, label)
    strategy, candidates = found
    how = "" if strategy.name == "exact" else f" ({strategy.phrase})"
    if len(candidates) > 1 and not replace_all:
        raise _multiple(text, candidates, label, how)
    chosen = non_overlapping(candidates) if replace_all else candidates
    replaced = replace_candidates(text, chosen, old, strategy.new_text(old, new), verbatim=strategy.verbatim)
    if replaced.text == text:
        raise ToolError(
            ErrorCode.NO_CHANGE,
            f"old_str was found in {label}{how}, but putting new_str there leaves the file as it is",
            hint="The file already says what new_str says; read it again if you expected a difference.",
        )
    return StrReplaced(replaced.text, strategy, chosen, replaced.spans)


def _check_strings(old: str, new: str) -> None:
    if not old:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            "old_str is empty; it must be text copied from the file",
            hint="To add text, put a neighbouring line in old_str and that line plus the addition in new_str. "
            "To create a file, use write_file.",
        )
    if old == new:
        raise ToolError(ErrorCode.NO_CHANGE, "old_str and new_str are identical, so the edit would change nothing")


def _existing_file(ws: Workspace, user_path: str) -> Path:
    real = ws.resolve(user_path, must_exist=True)
    if real.is_dir():
        raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory, not a file")
    return real


def _no_match(text: str, old: str, shown: str) -> ToolError:
    from sneakycode.tools.edit.line_numbers import read_file_prefix
    from sneakycode.tools.edit.view import near_miss

    wanted = split_lines(old.replace("\r\n", "\n"))
    detail = near_miss(split_lines(text), wanted, shown, "old_str")
    hint = None
    if wanted and all(read_file_prefix(line) for line in wanted if line.strip()):
        hint = (
            "old_str starts its lines with read_file's line numbers and a tab, but they are not the numbers of "
            "those lines now; leave the prefixes out, or read the file again and copy them from there."
        )
    return ToolError(
        ErrorCode.NO_MATCH,
        f"old_str was not found in {shown}, not even with whitespace and punctuation tolerated",
        detail=detail,
        hint=hint,
    )


def _multiple(text: str, candidates: list[Candidate], shown: str, how: str) -> ToolError:
    from sneakycode.tools.edit.matching import MATCH_LIST_LIMIT
    from sneakycode.tools.edit.view import line_of

    listed = candidates[:MATCH_LIST_LIMIT]
    count = f"more than {MATCH_LIST_LIMIT}" if len(candidates) > MATCH_LIST_LIMIT else str(len(candidates))
    numbers = [line_of(text, c.start) for c in listed]
    return ToolError(
        ErrorCode.MULTIPLE_MATCHES,
        f"old_str occurs {count} times in {shown}{how}, at lines {', '.join(map(str, numbers))}",
        hint="Add surrounding lines to old_str so it matches one place only, or set replace_all to true to "
        "change every occurrence.",
        data={"lines": numbers},
    )


class PatchApplyArgs(ToolArgs):
    file_path: str
    patch: str


def _proposed_patch(args: PatchApplyArgs, ctx: ToolContext) -> ProposedEdit:
    """The patch applied (hunks placed as the tool places them) to the file as it is now; nothing is written."""
    from sneakycode.tools.edit.patch import apply_hunks, created_text, parse_patch

    ws = ctx.workspace
    parsed = parse_patch(args.patch)
    real = ws.resolve(args.file_path)
    shown = ws.display(real)
    if parsed.creates:
        return ProposedEdit(shown, None, created_text(parsed))
    before = ws.read_text(args.file_path).text
    return ProposedEdit(shown, before, apply_hunks(before, parsed.hunks, label=shown).text)


@dataclass(frozen=True)
class _PlannedPatch:
    """A patch_apply call checked and computed, nothing written yet: `since` and `patched` are None when the
    patch creates the file."""

    real: Path
    shown: str
    parsed: Patch
    since: SinceRead | None
    patched: Patched | None


def _planned_patch(args: PatchApplyArgs, ctx: ToolContext) -> _PlannedPatch:
    """Every check of a patch_apply call and its hunks placed, before the write: the ToolError a run would fail
    with (the gate's `dry_check` too)."""
    from sneakycode.tools.edit.patch import apply_hunks, parse_patch

    ws = ctx.workspace
    parsed = parse_patch(args.patch)
    real = ws.resolve(args.file_path)
    _check_header_paths(parsed, ws, real, args.file_path)
    shown = ws.display(real)
    if parsed.creates:
        _check_creatable(real, shown)
        return _PlannedPatch(real, shown, parsed, None, None)
    real = _existing_file(ws, args.file_path)
    if not any(hunk.changes for hunk in parsed.hunks):
        raise ToolError(ErrorCode.NO_CHANGE, "the patch has no '-' or '+' lines, so it changes nothing")
    since = ws.read_since(args.file_path, real)
    patched = apply_hunks(since.seen.text, parsed.hunks, label=shown)
    if patched.text == since.seen.text:
        raise ToolError(ErrorCode.NO_CHANGE, f"applying the patch leaves {shown} as it is")
    return _PlannedPatch(real, shown, parsed, since, patched)


@tool(
    name="patch_apply",
    tier=Tier.CONFIRM,
    edits_files=True,
    paths=("file_path",),
    preview=lambda arguments: Preview(str(arguments.get("patch", "")), "diff"),
    proposed=_proposed_patch,
    dry_check=_planned_patch,
    example={
        "file_path": "app/main.py",
        "patch": "@@ -1,3 +1,3 @@\n import sys\n-print('old')\n+print('new')\n sys.exit(0)\n",
    },
    edit_format="patch",
    guidance="patch_apply takes a unified diff whose context and '-' lines are the file's current lines.",
)
def patch_apply(args: PatchApplyArgs, ctx: ToolContext) -> ToolResult:
    """Apply a unified diff (`@@ -12,4 +12,5 @@` hunks of ' ', '-', '+' lines) to one file you have read.
    Hunks are found by context if line numbers are off; all apply or none. `--- /dev/null` creates."""
    planned = _planned_patch(args, ctx)
    real, shown, since, patched = planned.real, planned.shown, planned.since, planned.patched
    if since is None or patched is None:
        return _create(ctx, args.file_path, real, planned.parsed, shown)
    written = _write_edit(ctx, args.file_path, real, since, patched.text, patched.ranges)
    return ToolResult.ok(
        written.content,
        written.diagnosis.add_to(_patched_message(patched, shown, written.note)),
        hunks=len(patched.placements),
        found=[p.how for p in sorted(patched.placements, key=lambda p: p.hunk.number)],
        **written.data,
        **written.diagnosis.data(),
    )


def _check_header_paths(parsed: Patch, ws: Workspace, real: Path, user_path: str) -> None:
    """Every path the header names must be file_path (with or without a/ b/); one leaving the workspace is
    refused like any other path."""
    from sneakycode.tools.edit.patch import DEV_NULL

    for raw in (parsed.old_path, parsed.new_path):
        if raw is None or raw == DEV_NULL:
            continue
        readings = [raw, raw[2:]] if raw.startswith(("a/", "b/")) else [raw]
        problems: list[ToolError] = []
        resolved: list[Path] = []
        for reading in readings:
            try:
                resolved.append(ws.resolve(reading))
            except ToolError as err:
                problems.append(err)
        if real in resolved:
            continue
        if problems:
            raise problems[0]
        raise ToolError(
            ErrorCode.INVALID_PATCH,
            f"the patch header names {raw!r}, but file_path is {user_path!r}",
            hint="Make the ---/+++ paths name file_path (a/ and b/ prefixes are fine), or leave the header out.",
        )


def _check_creatable(real: Path, shown: str) -> None:
    if os.path.lexists(real):
        raise ToolError(
            ErrorCode.PATCH_FAILED,
            f"the patch creates {shown} (it starts from /dev/null), but {shown} already exists",
            hint="Read the file and send a patch against its current content (--- a/path), or use write_file.",
        )


def _create(ctx: ToolContext, user_path: str, real: Path, parsed: Patch, shown: str) -> ToolResult:
    from sneakycode.tools.diagnostics.after_edit import diagnose_edit
    from sneakycode.tools.edit.patch import created_text
    from sneakycode.tools.edit.view import edited_regions

    ws = ctx.workspace
    _check_creatable(real, shown)  # again: the file may have appeared since the check before approval
    text = created_text(parsed)
    ws.write_text(user_path, text)
    count = len(split_lines(text))
    found = diagnose_edit(ctx, real, None, text)
    message = found.add_to(f"Created {shown} ({count} lines).")
    return ToolResult.ok(edited_regions(text, [(1, count)]), message, created=True, **found.data())


def _patched_message(patched: Patched, shown: str, note: str) -> str:
    count = len(patched.placements)
    notes = []
    for p in sorted(patched.placements, key=lambda p: p.hunk.number):
        if p.index != p.stated and p.hunk.old:
            notes.append(f"hunk {p.hunk.number} found at line {p.index + 1}, not {p.stated + 1}")
        if p.tolerant:
            notes.append(f"hunk {p.hunk.number} matched ignoring whitespace")
    extra = f" ({'; '.join(notes)})" if notes else ""
    return f"Patched {shown}: {count} hunk{'' if count == 1 else 's'} applied{extra}{note}."
