"""SneakyCode's events and saved messages as ACP session updates.

A tool call's `kind` comes from the tool's own facets (tools/base.py), never from a list of tool names: a
command is `execute`, a URL `fetch`, an edit (it declares `proposed`, or `edits_files`) `edit`, a read-only
call that records a read `read`, other read-only calls on paths `search`, a call on paths that neither reads
nor edits (deleting) `delete`, the task list `think`.
"""

from __future__ import annotations

import difflib
import json
from typing import TYPE_CHECKING, Any

from acp import schema
from acp.helpers import (
    plan_entry,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
)

from sneakycode.api.editor import absolute_path, proposed_edit
from sneakycode.api.vocabulary import Tool

if TYPE_CHECKING:
    from sneakycode.api.session import Session

# How much of a tool's result the editor is shown (the model sees all of it, up to max_output_bytes).
SHOWN_RESULT_CHARS = 4_000
VERBS = {"read": "Read", "edit": "Edit", "delete": "Delete", "search": "Search", "execute": "Run",
         "fetch": "Fetch", "think": "Plan"}
PRIORITY: schema.PlanEntryPriority = "medium"


def tool_kind(found: Tool | None) -> schema.ToolKind:
    """The protocol's kind for a tool, from its facets."""
    if found is None:
        return "other"
    if found.command is not None or found.decided_as is not None:
        return "execute"
    if found.url is not None:
        return "fetch"
    if found.proposed is not None or found.edits_files:
        return "edit"
    if found.read_only and found.records_read:
        return "read"
    if found.read_only and found.paths:
        return "search"
    if found.paths:
        return "delete"
    if found.quiet_on_success and not found.ends_run:
        return "think"
    return "other"


def parse_arguments(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def title_of(found: Tool | None, name: str, arguments: dict[str, Any]) -> str:
    """`Read calc.py`, `Run pytest -q`, `Edit app/main.py`; the tool's name when nothing says more."""
    if found is None:
        return name
    headline = found.headline_of(arguments)
    verb = VERBS.get(tool_kind(found))
    if verb and headline:
        return f"{verb} {headline}"
    return f"{name} {headline}".strip()


def first_changed_line(before: str, after: str) -> int:
    """The 1-based line of `after` where the edit starts, so the editor can follow it."""
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for tag, _i1, _i2, j1, _j2 in matcher.get_opcodes():
        if tag != "equal":
            return j1 + 1
    return 1


def diff_of(found: Tool | None, arguments: dict[str, Any],
            session: Session) -> schema.FileEditToolCallContent | None:
    """The edit as a diff block (old and new text), computed by the tool's own `proposed` facet against the file
    as it is now: what saying yes will write. None for other tools or an edit that would fail."""
    edit = proposed_edit(session, found, arguments) if found is not None else None
    if edit is None:
        return None
    return tool_diff_content(absolute_path(session, edit.path), edit.after, edit.before)


def locations_of(found: Tool | None, arguments: dict[str, Any], session: Session,
                 diff: schema.FileEditToolCallContent | None) -> list[schema.ToolCallLocation]:
    if found is None:
        return []
    if diff is not None:
        return [schema.ToolCallLocation(path=diff.path, line=first_changed_line(diff.old_text or "", diff.new_text))]
    start = arguments.get("start_line")
    line = start if isinstance(start, int) and not isinstance(start, bool) else None
    return [schema.ToolCallLocation(path=absolute_path(session, path), line=line)
            for path, _folder in found.path_arguments(arguments)]


def tool_call_start(call_id: str, found: Tool | None, name: str, raw: str,
                    session: Session) -> tuple[schema.ToolCallStart, schema.FileEditToolCallContent | None]:
    arguments = parse_arguments(raw)
    diff = diff_of(found, arguments, session)
    start = schema.ToolCallStart(
        session_update="tool_call", tool_call_id=call_id, title=title_of(found, name, arguments),
        kind=tool_kind(found), status="pending", raw_input=arguments,
        locations=locations_of(found, arguments, session, diff) or None,
        content=[diff] if diff is not None else None, field_meta=tool_meta(name),
    )
    return start, diff


def tool_meta(name: str) -> dict[str, Any]:
    """The tool's own name, which editors show beside the title (`_meta.toolName`)."""
    return {"toolName": name}


def shown_result(text: str) -> str:
    if len(text) <= SHOWN_RESULT_CHARS:
        return text
    return text[:SHOWN_RESULT_CHARS] + f"\n... ({len(text) - SHOWN_RESULT_CHARS} more characters)"


def tool_call_done(call_id: str, success: bool, content: str,
                   diff: schema.FileEditToolCallContent | None) -> schema.ToolCallProgress:
    """The call's end: completed or failed, with what the model was told (and the diff of an edit that ran)."""
    blocks: list[Any] = []
    if success and diff is not None:
        blocks.append(diff)
    if content:
        blocks.append(tool_content(text_block(shown_result(content))))
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id,
                                   status="completed" if success else "failed", content=blocks or None,
                                   raw_output={"success": success})


def status_update(call_id: str, status: schema.ToolCallStatus) -> schema.ToolCallProgress:
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id, status=status)


def progress_update(call_id: str, line: str) -> schema.ToolCallProgress:
    """A running call's heartbeat (run_command's latest output line), shown in place until it ends."""
    return schema.ToolCallProgress(session_update="tool_call_update", tool_call_id=call_id, status="in_progress",
                                   content=[tool_content(text_block(shown_result(line)))])


def plan_of(tasks: list[dict[str, str]]) -> schema.AgentPlanUpdate:
    """The task list as the editor's plan (every entry medium priority: our tasks have none)."""
    entries = []
    for task in tasks:
        status = task.get("status", "pending")
        known: schema.PlanEntryStatus = status if status in ("pending", "in_progress", "completed") else "pending"  # type: ignore[assignment]
        entries.append(plan_entry(task.get("content", ""), priority=PRIORITY, status=known))
    return update_plan(entries)


def message_text(text: str) -> schema.AgentMessageChunk:
    return update_agent_message_text(text)


def thought_text(text: str) -> schema.AgentThoughtChunk:
    return update_agent_thought_text(text)
