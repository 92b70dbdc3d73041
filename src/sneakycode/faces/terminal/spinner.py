"""The one live region at the bottom of the output: the Markdown block still being streamed and a spinner
with the elapsed time and token count while the model or a tool is working. Everything finished is printed
above it into the scrollback; the region itself is transient and disappears when stopped.

Animation is off (`animated` False) when stdout is not a terminal or NO_COLOR is set: nothing is drawn and
finished output is printed as before, so logs and pseudo-terminal tests see plain lines.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.spinner import Spinner
from rich.text import Text

REFRESH_PER_SECOND = 8


def animation_allowed(console: Console) -> bool:
    """Colour and animation need a real terminal and no NO_COLOR (https://no-color.org)."""
    if "NO_COLOR" in os.environ or console.no_color:
        return False
    return console.is_terminal and not console.is_dumb_terminal


def status_text(label: str, seconds: float, tokens: int) -> str:
    """`thinking  3.2 s  1,234 tokens` (the token count left out while it is 0)."""
    counted = f"  {tokens:,} tokens" if tokens else ""
    return f"{label}  {seconds:.1f} s{counted}"


class _Status:
    """A spinner whose text is computed at every refresh, so the elapsed time moves without new events."""

    def __init__(self, label: str, started: float, tokens: Callable[[], int]) -> None:
        self.label = label
        self.started = started
        self.tokens = tokens
        self.spinner = Spinner("dots", style="cyan")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.spinner.text = Text(status_text(self.label, time.monotonic() - self.started, self.tokens()), style="dim")
        yield self.spinner


class LiveArea:
    def __init__(self, console: Console, tokens: Callable[[], int], *, animated: bool | None = None) -> None:
        self.console = console
        self.animated = animation_allowed(console) if animated is None else animated
        self.tokens = tokens
        self._live: Live | None = None
        self._stream: RenderableType | None = None
        self._status: _Status | None = None

    def set_stream(self, renderable: RenderableType | None) -> None:
        """The open Markdown block (None: no block open)."""
        self._stream = renderable
        self._refresh()

    def set_status(self, label: str | None, since: float | None = None) -> None:
        """Start the spinner with this label; None stops it. Its clock starts at `since` (time.monotonic()) when
        given, so a label that changes for one piece of work (a command's last output line) keeps one clock;
        otherwise it restarts when the label changes."""
        if label is None:
            self._status = None
        elif since is not None:
            self._status = _Status(label, since, self.tokens)
        elif self._status is None or self._status.label != label:
            self._status = _Status(label, time.monotonic(), self.tokens)
        self._refresh()

    def stop(self) -> None:
        """Clear the region (before a question, a prompt or the end of a request)."""
        self._stream = None
        self._status = None
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _refresh(self) -> None:
        if not self.animated:
            return
        parts = [part for part in (self._stream, self._status) if part is not None]
        if not parts:
            if self._live is not None:
                self._live.stop()
                self._live = None
            return
        if self._live is None:
            self._live = Live(console=self.console, refresh_per_second=REFRESH_PER_SECOND, transient=True,
                              vertical_overflow="crop")
            self._live.start()
        self._live.update(Group(*parts), refresh=True)
