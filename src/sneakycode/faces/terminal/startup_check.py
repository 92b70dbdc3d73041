"""The endpoint check at start, run on a thread while the user types the first prompt: a server that is down
or a refused key is said the moment it is known, above the prompt, with the fix (doctor/reachable.py).

prompt_toolkit owns the screen while the prompt is shown, so the finding is printed through its
`run_in_terminal` on the prompt's own loop; when no prompt is showing (a turn runs, the loop is gone) it waits
in `pending` and `flush` prints it before the next prompt. It is printed once either way.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from rich.console import Console

from sneakycode.api.vocabulary import ModelConfig
from sneakycode.faces.shared.text import markup_safe


class StartupCheck:
    """`start` begins the check; `flush` prints a finding that came while no prompt was showing."""

    def __init__(self, console: Console, prompt: PromptSession[str],
                 check: Callable[[ModelConfig], str | None] | None = None) -> None:
        self.console = console
        self.prompt = prompt
        self.check = check
        self.pending: str | None = None
        self._lock = threading.Lock()

    def start(self, config: ModelConfig) -> threading.Thread:
        thread = threading.Thread(target=self._run, args=(config,), name="endpoint-check", daemon=True)
        thread.start()
        return thread

    def flush(self) -> None:
        message = self._take()
        if message is not None:
            self._print(message)

    def _run(self, config: ModelConfig) -> None:
        check = self.check
        if check is None:
            from sneakycode.doctor.reachable import endpoint_problem

            check = endpoint_problem
        try:
            found = check(config)
        except Exception:  # a check that breaks must not take the session with it; the first request tells
            found = None
        if found is None:
            return
        with self._lock:
            self.pending = found
        app = self.prompt.app
        loop = app.loop
        if not app.is_running or loop is None:
            return  # `flush` prints it before the next prompt
        with contextlib.suppress(RuntimeError):  # the prompt's loop closed meanwhile: `flush` prints it
            loop.call_soon_threadsafe(self._show_above_prompt)

    def _show_above_prompt(self) -> None:
        if self.prompt.app.is_running:
            message = self._take()
            if message is not None:
                run_in_terminal(lambda: self._print(message))

    def _take(self) -> str | None:
        with self._lock:
            message, self.pending = self.pending, None
        return message

    def _print(self, message: str) -> None:
        self.console.print(f"[bold red]The model server cannot be used:[/] {markup_safe(message)}")
