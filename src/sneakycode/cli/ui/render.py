"""TerminalSink: shows the agent's events as they happen (streamed text, tool calls, results, tasks)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

RESULT_PREVIEW_LINES = 6
# Their successful results repeat what the session shows anyway (the task list, the final message).
QUIET_ON_SUCCESS = frozenset({"finish", "update_tasks"})
TASK_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


def summarize_call(name: str, arguments: str | dict[str, Any]) -> str:
    """One line naming the call's most telling argument (the path, the command or the pattern)."""
    try:
        args = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError:
        return f"{name}({str(arguments)[:80]})"
    if not isinstance(args, dict):
        return f"{name}(...)"
    for key in ("command", "file_path", "directory_path", "pattern", "message"):
        if isinstance(args.get(key), str):
            value = args[key].replace("\n", " ")
            return f"{name}({value[:100]}{'...' if len(value) > 100 else ''})"
    return f"{name}()"


class TerminalSink:
    def __init__(self, console: Console, *, show_reasoning: bool = False) -> None:
        self.console = console
        self.show_reasoning = show_reasoning
        self._streaming = False

    def _end_stream(self) -> None:
        if self._streaming:
            self.console.print()
            self._streaming = False

    def emit(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "text_delta":
            self.console.print(event["text"], end="", markup=False, highlight=False)
            self._streaming = True
            return
        self._end_stream()
        if kind == "reasoning" and self.show_reasoning and event["text"]:
            self.console.print(f"[dim italic]{escape(event['text'])}[/]")
        elif kind == "tool_call":
            self.console.print(f"[bold cyan]*[/] [cyan]{escape(summarize_call(event['name'], event['arguments']))}[/]")
        elif kind == "tool_result" and not (event["success"] and event["name"] in QUIET_ON_SUCCESS):
            self._result(event)
        elif kind == "permission" and event.get("outcome") in ("denied", "rejected"):
            self.console.print(f"  [yellow]{escape(event['name'])} {event['outcome']}: {escape(event['reason'])}[/]")
        elif kind == "tasks":
            for task in event["tasks"]:
                mark = TASK_MARKS.get(task.get("status", ""), "[?]")
                self.console.print(f"  [magenta]{mark}[/] {escape(str(task.get('content', '')))}")
        elif kind == "notice":
            self.console.print(f"[yellow]{escape(str(event['message']))}[/]")

    def _result(self, event: dict[str, Any]) -> None:
        text = str(event.get("content", ""))
        lines = text.splitlines() or [""]
        style = "dim" if event["success"] else "red"
        shown = lines[:RESULT_PREVIEW_LINES]
        for index, line in enumerate(shown):
            prefix = "  -> " if index == 0 else "     "
            self.console.print(f"[{style}]{prefix}{escape(line[:200])}[/]")
        if len(lines) > len(shown):
            self.console.print(f"[dim]     ... {len(lines) - len(shown)} more lines[/]")
