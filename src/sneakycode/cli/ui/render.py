"""TerminalSink: shows the agent's events as they happen (streamed text, tool calls, results, tasks)."""

from __future__ import annotations

from rich.console import Console

from sneakycode.agent.events import Event, ToolCallEvent, ToolResultEvent
from sneakycode.cli.text import markup_safe, printable

RESULT_PREVIEW_LINES = 6
TASK_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


def summarize_call(event: ToolCallEvent) -> str:
    """One line naming the call's most telling argument (the command, the path or the pattern)."""
    value = event["headline"].replace("\n", " ")
    if value:
        return f"{event['name']}({value[:100]}{'...' if len(value) > 100 else ''})"
    if event["arguments"].strip() in ("", "{}"):
        return f"{event['name']}()"
    return f"{event['name']}({event['arguments'][:80]})"


class TerminalSink:
    def __init__(self, console: Console, *, show_reasoning: bool = False) -> None:
        self.console = console
        self.show_reasoning = show_reasoning
        self._streaming = False

    def _end_stream(self) -> None:
        if self._streaming:
            self.console.print()
            self._streaming = False

    def emit(self, event: Event) -> None:
        if event["type"] == "subagent":
            self._end_stream()
            ended = f": {event.get('status')} after {event.get('turns')} turn(s)" if event["phase"] == "end" else ""
            verb = "started" if event["phase"] == "start" else "ended"
            self.console.print(f"[bold blue]>[/] [blue]subagent {markup_safe(event['agent'])} {verb}{ended}[/]")
            return
        if "agent" in event and event["type"] in ("text_delta", "assistant", "usage", "turn", "reasoning", "tasks"):
            return  # a subagent's prose and bookkeeping: only its answer (the task result) is shown
        who = f"  [dim]{markup_safe(event['agent'])}[/] " if "agent" in event else ""
        if event["type"] == "text_delta":
            self.console.print(printable(event["text"]), end="", markup=False, highlight=False)
            self._streaming = True
            return
        self._end_stream()
        if event["type"] == "reasoning" and self.show_reasoning and event["text"]:
            self.console.print(f"[dim italic]{markup_safe(event['text'])}[/]")
        elif event["type"] == "tool_call":
            self.console.print(f"{who}[bold cyan]*[/] [cyan]{markup_safe(summarize_call(event))}[/]")
        elif event["type"] == "tool_result" and not (event["success"] and event["quiet"]):
            self._result(event, who)
        elif event["type"] == "permission" and event["outcome"] in ("denied", "rejected"):
            name, reason = markup_safe(event["name"]), markup_safe(event["reason"])
            self.console.print(f"{who or '  '}[yellow]{name} {event['outcome']}: {reason}[/]")
        elif event["type"] == "tasks":
            for task in event["tasks"]:
                mark = TASK_MARKS.get(task.get("status", ""), "[?]")
                self.console.print(f"  [magenta]{mark}[/] {markup_safe(str(task.get('content', '')))}")
        elif event["type"] == "notice":
            self.console.print(f"{who}[yellow]{markup_safe(event['message'])}[/]")

    def _result(self, event: ToolResultEvent, who: str = "") -> None:
        text = event["content"]
        lines = text.splitlines() or [""]
        style = "dim" if event["success"] else "red"
        shown = lines[:RESULT_PREVIEW_LINES]
        for index, line in enumerate(shown):
            prefix = f"{who}  -> " if index == 0 else "     "
            self.console.print(f"[{style}]{prefix}{markup_safe(line[:200])}[/]")
        if len(lines) > len(shown):
            self.console.print(f"[dim]     ... {len(lines) - len(shown)} more lines[/]")
