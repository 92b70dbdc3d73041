"""What a face shows about a tool call before and after it runs, as the tool itself describes it: the preview
(the command, the diff, the content), the path it is about, the edit saying yes would write, and the call's
arguments parsed as the loop parses them. Faces render these; they never look a tool up themselves."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from sneakycode.errors import ToolError
from sneakycode.tools.base import Preview, ProposedEdit, ToolContext
from sneakycode.tools.registry import get_tool, parse_arguments, validate

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts


def call_preview(tool_name: str, arguments: dict[str, Any]) -> Preview:
    """What the user should see before saying yes, as the tool itself describes it, else the call's JSON."""
    found = get_tool(tool_name)
    if found is None:
        return Preview(json.dumps(arguments, indent=2, ensure_ascii=False), "json")
    return found.preview_of(arguments)


def call_path(tool_name: str, arguments: dict[str, Any]) -> str | None:
    """The first path the call is about (None: it names no path, or the tool is unknown)."""
    found = get_tool(tool_name)
    paths = found.path_arguments(arguments) if found is not None else []
    return paths[0][0] if paths else None


def proposed_edit(tool_name: str, arguments: dict[str, Any], ctx: ToolContext) -> ProposedEdit | str | None:
    """The edit saying yes would write (computed by the tool's own `proposed` facet against the files as they
    are now, writing nothing); a str says why it would fail as it stands; None for a tool that is no edit."""
    found = get_tool(tool_name)
    if found is None or found.proposed is None:
        return None
    try:
        return found.proposed(validate(found, arguments), ctx)
    except ToolError as err:
        return err.error
    except OSError as exc:
        return str(exc)


def call_arguments(raw: str) -> dict[str, Any] | None:
    """A call's arguments as the loop parses them; None when they are malformed (the call fails on its own)."""
    try:
        return parse_arguments(raw)
    except ToolError:
        return None


class PreviewVerbs:
    """Mixed into `Session`: `proposed_edit` in the session's workspace."""

    _parts: Parts

    def proposed_edit(self, tool_name: str, arguments: dict[str, Any]) -> ProposedEdit | str | None:
        """`proposed_edit` (above) against the session's files: what a face shows for an edit call."""
        return proposed_edit(tool_name, arguments, self._parts.ctx)
