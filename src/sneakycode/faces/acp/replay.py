"""A loaded session's history as the updates that showed it live (`session/load`): the user's requests as
the editor sent them (a dragged-in file stays a resource link), the reasoning before each reply, the
replies, and each tool call with its kind, title, locations and, for an edit, the diff and line it showed
(kept as a note when it was shown, since the file has changed since), then how it ended.

The notes are the face's own records in the session's history (api/timeline.py): `prompt` (the blocks of a
request, before the request itself) and `diff` (an edit's diff, by call id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp import schema
from acp.helpers import tool_diff_content, update_user_message_text

from sneakycode.api.vocabulary import Tool
from sneakycode.faces.acp import updates

if TYPE_CHECKING:
    from sneakycode.api.session import Session

# What a request's note keeps of its blocks: text and links (an image's or an embedded file's bytes stay out
# of the record; an embedded file comes back as a link to it).
KEPT_BLOCKS = ("text", "resource_link")


def prompt_note(blocks: list[Any]) -> list[dict[str, Any]]:
    """The blocks of a request as its note keeps them."""
    kept: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, schema.EmbeddedResourceContentBlock):
            uri = str(block.resource.uri)
            kept.append({"type": "resource_link", "uri": uri, "name": uri.rsplit("/", 1)[-1] or uri})
        elif getattr(block, "type", None) in KEPT_BLOCKS:
            kept.append(block.model_dump(mode="json", by_alias=True, exclude_none=True))
    return kept


def diff_note(call_id: str, diff: schema.FileEditToolCallContent) -> dict[str, Any]:
    return {"call_id": call_id, "path": diff.path, "old": diff.old_text, "new": diff.new_text}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content
                         if isinstance(part, dict) and part.get("type") == "text")
    return ""


def _user_blocks(blocks: list[dict[str, Any]]) -> list[schema.UserMessageChunk]:
    shown = []
    for block in blocks:
        if block.get("type") == "text":
            content: Any = schema.TextContentBlock.model_validate(block)
        else:
            content = schema.ResourceContentBlock.model_validate(block)
        shown.append(schema.UserMessageChunk(session_update="user_message_chunk", content=content))
    return shown


class Replay:
    """Turns history entries into updates, in order."""

    def __init__(self, tool_for: Callable[[str], Tool | None], session: Session) -> None:
        self.tool_for = tool_for
        self.session = session
        self.shown: list[Any] = []
        self.diffs: dict[str, schema.FileEditToolCallContent] = {}
        self.finishing: set[str] = set()
        self.blocks: list[dict[str, Any]] | None = None  # the next request's, from its note

    def of(self, entries: list[dict[str, Any]]) -> list[Any]:
        for entry in entries:  # an edit's diff is noted after the reply that made the call: gathered first
            if entry["type"] == "note" and entry.get("kind") == "diff":
                self.diffs[str(entry.get("call_id"))] = tool_diff_content(
                    str(entry.get("path")), str(entry.get("new")), entry.get("old"))
        for entry in entries:
            if entry["type"] == "reasoning" and entry["text"]:
                self.shown.append(updates.thought_text(entry["text"]))
            elif entry["type"] == "note" and entry.get("kind") == "prompt":
                self.blocks = list(entry.get("blocks") or [])
            elif entry["type"] == "message":
                self._message(entry["message"])
        return self.shown

    def _message(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user" and not message.get("tool_images"):
            if self.blocks:
                self.shown += _user_blocks(self.blocks)
            elif text := _text(message.get("content")):
                self.shown.append(update_user_message_text(text))
            self.blocks = None
        elif role == "assistant":
            if text := _text(message.get("content")):
                self.shown.append(updates.message_text(text))
            for call in message.get("tool_calls") or []:
                self._call(call)
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            text = _text(message.get("content"))
            if call_id in self.finishing:
                self.shown.append(updates.message_text(text))
                return
            success = not text.startswith("Error [")
            self.shown.append(updates.tool_call_done(call_id, success, text, self.diffs.get(call_id)))

    def _call(self, call: dict[str, Any]) -> None:
        function = call.get("function", {})
        name = str(function.get("name", ""))
        call_id = str(call.get("id", ""))
        arguments = updates.parse_arguments(str(function.get("arguments", "")))
        found = self.tool_for(name)
        if found is not None and found.ends_run:  # finish: its message was the reply
            self.finishing.add(call_id)
            return
        diff = self.diffs.get(call_id)
        self.shown.append(schema.ToolCallStart(
            session_update="tool_call", tool_call_id=call_id, title=updates.title_of(found, name, arguments),
            kind=updates.tool_kind(found), status="pending", raw_input=arguments,
            locations=updates.locations_of(found, arguments, self.session, diff) or None,
            content=[diff] if diff is not None else None, field_meta=updates.tool_meta(name),
        ))
