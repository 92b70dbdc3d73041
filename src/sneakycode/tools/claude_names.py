"""Claude Code's names for our tools and their arguments, so files written for Claude Code work here unchanged:
hook matchers (`Bash`, `Edit|MultiEdit|Write`), `allowed-tools` of commands and skills, and hook scripts that
read `tool_input.old_string`.

A tool's Claude names come from its facets where one implies them (a command tool is Bash, a tool that
records reads is Read, a URL tool is WebFetch, an edit tool is Edit and MultiEdit, one that writes a whole
file is Write) and from its `claude_names` facet where none does (Grep, Glob, Task). MCP tools need nothing:
they are named `mcp__SERVER__TOOL` as in Claude Code.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sneakycode.tools.base import Tool

# Our argument -> Claude Code's name for it, by Claude tool name. Only renames: values mean the same.
_RENAMED: dict[str, tuple[tuple[str, str], ...]] = {
    "Edit": (("old_str", "old_string"), ("new_str", "new_string")),
    "Grep": (("file_pattern", "glob"), ("case_insensitive", "-i"), ("context_lines", "-C"),
             ("max_results", "head_limit")),
    "LS": (("directory_path", "path"),),
    "WebSearch": (("domains", "allowed_domains"),),
}
# Read's window: Claude Code says where to start and how many lines, we say the first and last line.
_START, _END, _OFFSET, _LIMIT = "start_line", "end_line", "offset", "limit"
_MISSING = object()


def claude_names(found: Tool) -> tuple[str, ...]:
    """Every name Claude Code gives the kind of tool `found` is (empty when it has no counterpart)."""
    derived: list[str] = []
    if found.command is not None:
        derived.append("Bash")
    if found.url is not None:
        derived.append("WebFetch")
    if found.records_read:
        derived.append("Read")
    if found.edits_files and found.edit_format is not None:
        derived += ["Edit", "MultiEdit"]
    elif found.edits_files and any(name not in found.directories for name in found.paths):
        derived.append("Write")  # writes a whole file; a tool that only makes folders has no counterpart
    return tuple(dict.fromkeys([*derived, *found.claude_names]))


def tools_named(name: str, tools: Iterable[Tool]) -> list[Tool]:
    """The tools among `tools` that Claude Code would call `name`."""
    return [found for found in tools if name in claude_names(found)]


def tools_ruled_by(name: str, tools: Iterable[Tool]) -> list[Tool]:
    """The tools a Claude Code permission rule naming `name` applies to: as its documentation says, `Edit`
    rules cover every tool that edits files and `Read` rules every tool that reads them (Grep, Glob, LS)."""
    if name == "Edit":
        return [found for found in tools if found.edits_files]
    if name == "Read":
        return [found for found in tools if found.read_only and bool(found.paths)]
    return tools_named(name, tools)


def claude_input(found: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with Claude Code's names added beside ours where they differ (never replacing ours)."""
    shown = dict(arguments)
    names = claude_names(found)
    for name in names:
        for ours, theirs in _RENAMED.get(name, ()):
            if ours in arguments and theirs not in shown:
                shown[theirs] = arguments[ours]
    if "Read" in names and isinstance(arguments.get(_START), int):
        start = arguments[_START]
        shown.setdefault(_OFFSET, start)
        if isinstance(arguments.get(_END), int):
            shown.setdefault(_LIMIT, max(arguments[_END] - start + 1, 0))
    return shown


def native_input(found: Tool, sent: dict[str, Any], updated: dict[str, Any]) -> dict[str, Any]:
    """A hook's rewritten input (`updatedInput`, often `sent` returned with changes) in our argument names: a
    Claude name the hook changed sets our argument, unless the hook changed ours too; unchanged aliases go."""
    native = dict(updated)
    names = claude_names(found)
    for name in names:
        for ours, theirs in _RENAMED.get(name, ()):
            if theirs not in native or theirs in found.args_model.model_fields:
                continue
            value = native.pop(theirs)
            if value != sent.get(theirs, _MISSING) and native.get(ours, _MISSING) == sent.get(ours, _MISSING):
                native[ours] = value
    if "Read" in names:
        offset, limit = native.pop(_OFFSET, _MISSING), native.pop(_LIMIT, _MISSING)
        moved = offset != sent.get(_OFFSET, _MISSING) or limit != sent.get(_LIMIT, _MISSING)
        if moved and isinstance(offset, int):
            native[_START] = offset
        if moved and isinstance(limit, int):
            start = native.get(_START, 1)
            native[_END] = (start if isinstance(start, int) else 1) + limit - 1
    return native
