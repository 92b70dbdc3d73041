"""The stall watch on its own (agent/watch.py): what counts as activity, and when it speaks."""

from __future__ import annotations

import time
from typing import Any

from sneakycode.agent.watch import RunWatch
from sneakycode.tools.activity import output_listener


def watch(stall_seconds: float) -> tuple[RunWatch, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    return RunWatch(lambda e: events.append({**e, "at": time.monotonic()}), stall_seconds, first_byte_limit=9,
                    stall_limit=9), events


def test_a_subagents_tokens_keep_the_call_that_runs_it_from_stalling() -> None:
    """Never silently stuck, without false alarms: a `task` call prints nothing itself, but its subagent's
    model streams (the subagent runs in the call's thread), so the parent's watch hears that as output."""
    parent, told = watch(0.6)
    child, child_told = watch(0.6)
    # The subagent's request starts inside the call, in the call's thread.
    with parent.tool_call("call-1", "task"), child.model_request() as activity:
        for _ in range(12):
            activity()
            time.sleep(0.1)
    assert [e for e in told if e["type"] == "stall"] == [] and child_told == []


def test_silence_is_told_again_each_time_as_long_again_passes_and_output_resets_it() -> None:
    """Never silently stuck: one notice per stall_seconds of silence, a new count after output arrives."""
    parent, told = watch(0.4)
    with parent.tool_call("call-1", "run_command"):
        listener = output_listener()
        assert listener is not None
        time.sleep(1.2)
        before = [e for e in told if e["type"] == "stall"]
        listener(b"partial\rprogress 50%\n")
        heard = time.monotonic()
        time.sleep(0.7)
    after = [e for e in told if e["type"] == "stall"][len(before):]
    assert len(before) >= 2 and before[-1]["seconds"] >= 1 and after
    assert after[0]["at"] - heard >= 0.4  # counted anew from the output, not from the start of the call
    assert all(e["source"] == "tool" and e["id"] == "call-1" for e in before + after)
    assert output_listener() is None  # the listener belongs to the call only
