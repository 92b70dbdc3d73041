"""TerminalApprover: shows what a call will do and asks the user; `a` approves the same kind of call for
the rest of the session (the same tool, or for run_command the same command line)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.syntax import Syntax

from sneakycode.cli.text import markup_safe, printable
from sneakycode.tools.base import Preview
from sneakycode.tools.registry import get_tool

PREVIEW_LINES = 40


def session_key(tool_name: str, arguments: dict[str, Any]) -> str:
    """What `a` (always) approves for the rest of the session: the same tool, or for a tool that runs a
    command line, the same command line."""
    found = get_tool(tool_name)
    if found is not None and found.command is not None:
        return f"{tool_name}({arguments.get(found.command, '')})"
    return tool_name


def preview(tool_name: str, arguments: dict[str, Any]) -> Preview:
    """What the user should see before saying yes, as the tool itself describes it (the command, the
    diff, the content), else the call's JSON."""
    found = get_tool(tool_name)
    if found is None:
        return Preview(json.dumps(arguments, indent=2, ensure_ascii=False), "json")
    return found.preview_of(arguments)


class TerminalApprover:
    def __init__(self, console: Console, ask: Callable[[str], str]) -> None:
        self.console = console
        self.ask = ask
        self.always: set[str] = set()

    def approve(self, tool_name: str, arguments: dict[str, Any], reason: str) -> bool:
        key = session_key(tool_name, arguments)
        if key in self.always:
            return True
        found = get_tool(tool_name)
        paths = found.path_arguments(arguments) if found is not None else []
        what = f"{tool_name} {paths[0][0]}" if paths else tool_name
        self.console.print(f"\n[bold yellow]Allow {markup_safe(what)}?[/]  [dim]{markup_safe(reason)}[/]")
        shown = preview(tool_name, arguments)
        lines = printable(shown.text).splitlines()
        body = "\n".join(lines[:PREVIEW_LINES])
        if len(lines) > PREVIEW_LINES:
            body += f"\n... {len(lines) - PREVIEW_LINES} more lines"
        self.console.print(Syntax(body, shown.syntax, word_wrap=True))
        while True:
            answer = self.ask("[y]es / [n]o / [a]lways for this session > ").strip().lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no", ""):
                return False
            if answer in ("a", "always"):
                self.always.add(key)
                return True
