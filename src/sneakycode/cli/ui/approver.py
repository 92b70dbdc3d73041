"""TerminalApprover: shows what a call will do and asks the user; `a` approves the same kind of call for
the rest of the session (the same tool, or for run_command the same command line)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

PREVIEW_LINES = 40
LEXERS = {"str_replace": "diff", "patch_apply": "diff", "run_command": "bash"}


def session_key(tool_name: str, arguments: dict[str, Any]) -> str:
    if tool_name == "run_command":
        return f"run_command({arguments.get('command', '')})"
    return tool_name


def preview(tool_name: str, arguments: dict[str, Any]) -> str:
    """What the user should see before saying yes: the command, the diff, or the content."""
    if tool_name == "run_command":
        return f"$ {arguments.get('command', '')}"
    if tool_name == "str_replace":
        diff = difflib.unified_diff(
            str(arguments.get("old_str", "")).splitlines(),
            str(arguments.get("new_str", "")).splitlines(),
            "before",
            "after",
            lineterm="",
        )
        return "\n".join(list(diff)[2:])
    if tool_name == "patch_apply":
        return str(arguments.get("patch", ""))
    if tool_name == "write_file":
        return str(arguments.get("content", ""))
    return json.dumps(arguments, indent=2, ensure_ascii=False)


class TerminalApprover:
    def __init__(self, console: Console, ask: Callable[[str], str]) -> None:
        self.console = console
        self.ask = ask
        self.always: set[str] = set()

    def approve(self, tool_name: str, arguments: dict[str, Any], reason: str) -> bool:
        key = session_key(tool_name, arguments)
        if key in self.always:
            return True
        target = arguments.get("file_path") or arguments.get("directory_path")
        what = f"{tool_name} {target}" if target else tool_name
        self.console.print(f"\n[bold yellow]Allow {escape(what)}?[/]  [dim]{escape(reason)}[/]")
        lines = preview(tool_name, arguments).splitlines()
        body = "\n".join(lines[:PREVIEW_LINES])
        if len(lines) > PREVIEW_LINES:
            body += f"\n... {len(lines) - PREVIEW_LINES} more lines"
        self.console.print(Syntax(body, LEXERS.get(tool_name, "text"), word_wrap=True))
        while True:
            answer = self.ask("[y]es / [n]o / [a]lways for this session > ").strip().lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no", ""):
                return False
            if answer in ("a", "always"):
                self.always.add(key)
                return True
