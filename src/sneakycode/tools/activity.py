"""Who hears a running tool call's output as it arrives: the agent's watch (progress heartbeats, stall
notices) listens in the thread that runs the call, and a tool that streams output (run_command) reports to it.

A context variable, like the call's time budget in `tools.context`: the tool function's signature stays
`(args, ctx)`, and calls running side by side in worker threads each reach their own listener.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

OutputListener = Callable[[bytes], None]

_listener: ContextVar[OutputListener | None] = ContextVar("tool_output_listener", default=None)


def output_listener() -> OutputListener | None:
    """The running call's listener, read in the call's own thread (hand it to threads the tool starts)."""
    return _listener.get()


@contextmanager
def listening(listener: OutputListener) -> Iterator[None]:
    """Route the output of the call run inside the block (in this thread) to `listener`."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)
