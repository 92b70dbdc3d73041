"""TerminalSink: shows the agent's events as they happen. Streamed text as Markdown (markdown_stream.py), a
spinner while waiting (spinner.py), reasoning dimmed and folded as it arrives (reasoning_stream.py), each tool
call as one line with its outcome (`* run_command pytest -q  exit 1, 3.2 s`) and its result folded to a few
lines (folding.py; `/expand` shows the last one whole), an edit that ran without a question as its coloured
diff, tasks as a checklist."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Console, RenderableType

from sneakycode.api.previews import call_arguments
from sneakycode.api.vocabulary import Event, ProposedEdit, ToolCallEvent, ToolResultEvent
from sneakycode.faces.shared.text import markup_safe, plural
from sneakycode.faces.terminal.folding import fold
from sneakycode.faces.terminal.markdown_stream import MarkdownStream
from sneakycode.faces.terminal.previews import EditPreview, preview_of_edit, render_rows
from sneakycode.faces.terminal.reasoning_stream import ReasoningStream
from sneakycode.faces.terminal.spinner import LiveArea

RESULT_PREVIEW_LINES = 6
STILL_RUNNING_AFTER = 2.0  # seconds before a call without a spinner is said to be running
REASONING_LINES = 3
DIFF_LINES = 30
TASK_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}
EXIT_CODE = re.compile(r"\bexit(?:ed with)? code (-?\d+)")


def summarize_call(event: ToolCallEvent) -> str:
    """One line naming the call's most telling argument (the command, the path or the pattern)."""
    value = event["headline"].replace("\n", " ")
    if value:
        return f"{event['name']} {value[:100]}{'...' if len(value) > 100 else ''}"
    if event["arguments"].strip() in ("", "{}"):
        return event["name"]
    return f"{event['name']} {event['arguments'][:80]}"


def outcome(event: ToolResultEvent, seconds: float | None) -> str:
    """`exit 1, 3.2 s`, `ok, 0.1 s` or the error code: what happened, in a few words."""
    found = EXIT_CODE.search(event["content"])
    what = f"exit {found.group(1)}" if found else "ok" if event["success"] else (event["code"] or "failed")
    return f"{what}, {seconds:.1f} s" if seconds is not None else what


@dataclass
class _Pending:
    line: str
    started: float
    diff: EditPreview | None = None
    asked: bool = False
    refused: bool = False


class TerminalSink:
    def __init__(self, console: Console, *, show_reasoning: bool = False, animated: bool | None = None) -> None:
        self.console = console
        self.show_reasoning = show_reasoning
        self.propose: Callable[[str, dict[str, Any]], ProposedEdit | str | None] | None = None
        self.tokens = 0
        self.last_result: str | None = None
        self.live = LiveArea(console, lambda: self.tokens + self._streamed // 4, animated=animated)
        self.stream = MarkdownStream(self._print, self.live.set_stream)
        self.thought = ReasoningStream(self.console.print, REASONING_LINES if not show_reasoning else 10_000)
        self._streamed = 0
        self._pending: dict[str, _Pending] = {}
        self._tasks: list[dict[str, str]] | None = None
        self._timers: dict[str, threading.Timer] = {}

    def attach(self, propose: Callable[[str, dict[str, Any]], ProposedEdit | str | None]) -> None:
        """The session's `proposed_edit`: edit calls are shown as diffs of its files."""
        self.propose = propose

    def pause(self) -> None:
        """Finish the open block and clear the live region: someone is about to be asked something."""
        self.thought.finish()
        self.stream.finish()
        self.live.stop()
        for timer in self._timers.values():  # nothing may print into the question
            timer.cancel()

    def finish(self) -> None:
        """The request ended (answered, stopped or failed): nothing stays live."""
        self.pause()
        self._pending.clear()

    def _print(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    def emit(self, event: Event) -> None:
        if event["type"] == "subagent":
            self.stream.finish()
            ended = f": {event.get('status')} after {plural(int(event.get('turns') or 0), 'turn')}" if (
                event["phase"] == "end") else ""
            verb = "started" if event["phase"] == "start" else "ended"
            self.console.print(f"[bold blue]>[/] [blue]subagent {markup_safe(event['agent'])} {verb}{ended}[/]")
            return
        if "agent" in event and event["type"] in ("text_delta", "assistant", "usage", "turn", "reasoning",
                                                    "reasoning_delta", "tasks"):
            return  # a subagent's prose and bookkeeping: only its answer (the task result) is shown
        who = f"  [dim]{markup_safe(event['agent'])}[/] " if "agent" in event else ""
        if event["type"] == "reasoning_delta":  # shown as it arrives, before the answer it precedes
            self.stream.finish()
            self.thought.feed(event["text"])
            return
        if event["type"] == "text_delta":
            self.thought.finish()
            self.live.set_status(None)
            self._streamed += len(event["text"])
            self.stream.feed(event["text"])
            return
        if event["type"] == "turn":
            self.live.set_status("thinking")
            return
        if event["type"] == "usage":
            self.tokens += event["prompt_tokens"] + event["completion_tokens"]
            self._streamed = 0
            return
        if event["type"] == "progress":  # the spinner's line says what the command printed last
            pending = self._pending.get(event["id"])
            line = pending.line[:60] if pending is not None else event["name"]
            last = f" | {event['last_line'][:60]}" if event["last_line"] else ""
            # One clock, the spinner's, from the call's start: the event's own `elapsed` in the label made two.
            since = pending.started if pending is not None else time.monotonic() - event["elapsed"]
            self.live.set_status(f"running {line}{last}", since=since)
            return
        self.thought.finish()
        self.stream.finish()
        if event["type"] == "assistant":
            self.live.set_status(None)
        elif event["type"] == "reasoning" and event["text"].strip() and not event.get("streamed"):
            self._reasoning(event["text"])
        elif event["type"] == "tool_call":
            self._pending[event["id"]] = _Pending(summarize_call(event), time.monotonic(), self._diff(event))
            self.live.set_status(f"running {summarize_call(event)[:60]}")
            self._watch(event["id"], f"{who}[dim]  running {markup_safe(summarize_call(event))}[/]")
        elif event["type"] == "tool_result":
            self._result(event, who)
        elif event["type"] == "permission":
            self._permission(event["id"], event["outcome"])
            if event["outcome"] == "denied":  # a rejection's reason was in the question the user just answered
                name, reason = markup_safe(event["name"]), markup_safe(event["reason"])
                self.console.print(f"{who or '  '}[yellow]{name} {event['outcome']}: {reason}[/]")
        elif event["type"] == "tasks":
            self._checklist(event["tasks"])
        elif event["type"] == "notice":
            self.console.print(f"{who}[yellow]{markup_safe(event['message'])}[/]")
        elif event["type"] == "stall":
            self.console.print(f"{who}[yellow]waiting: {markup_safe(event['message'])}[/]")

    def _watch(self, call_id: str, line: str) -> None:
        """Without a spinner nothing says what runs: a call still going after a moment gets a line, so a long
        command does not look like a hang (an approval question cancels the timer; approval restarts it)."""
        if self.live.animated:
            return
        timer = threading.Timer(STILL_RUNNING_AFTER, self._still_running, (call_id, line))
        timer.daemon = True
        self._timers[call_id] = timer
        timer.start()

    def _still_running(self, call_id: str, line: str) -> None:
        if call_id in self._pending and self._timers.get(call_id) is not None:
            self.console.print(line)

    def _reasoning(self, text: str) -> None:
        """Reasoning dimmed, folded to a few lines (all of it with --verbose)."""
        folded = fold(text, REASONING_LINES if not self.show_reasoning else 10_000)
        for line in folded.lines:
            self.console.print(f"[dim italic]  {markup_safe(line)}[/]")
        if not folded.complete:
            self.console.print(f"[dim]  {folded.note().replace('/expand shows all', 'reasoning folded')}[/]")

    def _permission(self, call_id: str, result: str) -> None:
        pending = self._pending.get(call_id)
        if pending is not None and result in ("denied", "rejected"):
            pending.refused = True  # it never ran: no time to show (what passed was the person's thinking)
        if pending is not None and result == "approved":
            pending.asked = True
            pending.started = time.monotonic()  # the time a person took to answer is not the tool's
            self._watch(call_id, f"[dim]  running {markup_safe(pending.line)}[/]")

    def _diff(self, event: ToolCallEvent) -> EditPreview | None:
        if self.propose is None or "agent" in event:
            return None
        arguments = call_arguments(event["arguments"])
        if arguments is None:  # a malformed call fails on its own; it simply has no diff to show
            return None
        return preview_of_edit(event["name"], self.propose(event["name"], arguments))

    def _result(self, event: ToolResultEvent, who: str = "") -> None:
        self.live.set_status(None)
        pending = self._pending.pop(event["id"], None)
        timer = self._timers.pop(event["id"], None)
        if timer is not None:
            timer.cancel()
        seconds = time.monotonic() - pending.started if pending is not None and not pending.refused else None
        if event["success"] and event["quiet"]:
            return
        line = pending.line if pending is not None else event["name"]
        style = "green" if event["success"] else "red"
        self.console.print(f"{who}[bold cyan]*[/] [cyan]{markup_safe(line)}[/]  [{style}]{outcome(event, seconds)}[/]")
        self.last_result = event["content"]
        diff = pending.diff if pending is not None else None
        if event["success"] and diff is not None and diff.problem is None and not pending_asked(pending):
            self.console.print(render_rows(diff.rows, DIFF_LINES), end="")
            return
        folded = fold(event["content"], RESULT_PREVIEW_LINES)
        text_style = "dim" if event["success"] else "red"
        for index, shown in enumerate(folded.lines):
            if index == 0 and not shown.strip() and len(folded.lines) > 1:
                continue
            self.console.print(f"{who}    [{text_style}]{markup_safe(shown)}[/]", highlight=False)
        if not folded.complete:
            self.console.print(f"{who}    [dim]{folded.note()}[/]")

    def _checklist(self, tasks: list[dict[str, str]]) -> None:
        """The task list, only when it changed since it was last shown."""
        if tasks == self._tasks:
            return
        self._tasks = [dict(task) for task in tasks]
        for task in tasks:
            mark = TASK_MARKS.get(task.get("status", ""), "[?]")
            style = "dim" if task.get("status") == "completed" else ""
            text = markup_safe(str(task.get("content", "")))
            self.console.print(f"  [magenta]{markup_safe(mark)}[/] " + (f"[{style}]{text}[/]" if style else text))


def pending_asked(pending: _Pending | None) -> bool:
    """Whether the person already saw this call's diff in the approval question."""
    return pending is not None and pending.asked
