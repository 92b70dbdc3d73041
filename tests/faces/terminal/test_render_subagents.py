"""The terminal shows a subagent's calls and results marked with its id, and not its streamed prose."""

from __future__ import annotations

import io
import re

from rich.console import Console

from sneakycode.faces.terminal.render import TerminalSink


def test_subagent_events_are_marked_with_its_id_and_its_prose_is_not_streamed() -> None:
    out = io.StringIO()
    sink = TerminalSink(Console(file=out, width=200, color_system=None))
    sink.emit({"type": "subagent", "agent": "explore-1", "phase": "start", "prompt": "find it"})
    sink.emit({"type": "text_delta", "text": "thinking out loud", "agent": "explore-1"})
    sink.emit({"type": "tool_call", "id": "1", "name": "grep_files", "arguments": "{}", "headline": "RETRY",
               "agent": "explore-1"})
    sink.emit({"type": "tool_result", "id": "1", "name": "grep_files", "success": True, "code": None,
               "content": "net.py:3: RETRY = 7", "quiet": False, "agent": "explore-1"})
    sink.emit({"type": "subagent", "agent": "explore-1", "phase": "end", "prompt": "find it", "status": "answered",
               "turns": 2})
    shown = [re.sub(r"ok, [0-9.]+ s$", "ok, N s", line) for line in out.getvalue().splitlines()]
    assert shown == [
        "> subagent explore-1 started",
        "  explore-1 * grep_files RETRY  ok, N s",
        "  explore-1     net.py:3: RETRY = 7",
        "> subagent explore-1 ended: answered after 2 turns",
    ]
