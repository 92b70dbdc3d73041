"""TerminalApprover: shows what a call will do and asks for one key.

y runs it; n refuses; t refuses and asks for a line the model gets with the refusal ("use pytest -q
instead"); a ("always") shows the allow rule it stands for (api/always.py) and asks where it lives: this
session, the project's config or the user's config. Ctrl-C, Ctrl-D or Esc refuse and stop the turn (the
caller's `ask` turns them into "n" and sets the cancel flag).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.syntax import Syntax

from sneakycode.api.always import PROJECT_CONFIG, Saved, allow_for_session, always_rules, save_always, user_config_path
from sneakycode.api.previews import call_path, call_preview
from sneakycode.api.vocabulary import ConfigError, Declined, PendingCall, Remembered, ToolContext
from sneakycode.faces.shared.text import markup_safe, printable
from sneakycode.faces.terminal.previews import edit_preview, render_rows

PREVIEW_LINES = 40
QUESTION = "[y]es  [n]o  [a]lways...  [t] no, and tell it what to do instead > "
SAID = {"y": "yes", "n": "no", "t": "no", "a": "always"}
WHERE = {"s": "this session", "p": "the project", "u": "your user config", "c": "back", "n": "back"}


class TerminalApprover:
    """`ask` shows a question and returns one key; `read_line` reads the text sent with a `t` refusal;
    `pause` stops any live display (spinner, streaming) before the question is printed."""

    def __init__(
        self,
        console: Console,
        ask: Callable[[str], str],
        *,
        ctx: ToolContext | None = None,
        read_line: Callable[[str], str] | None = None,
        pause: Callable[[], None] | None = None,
        user_config: Path | None = None,
    ) -> None:
        self.console = console
        self.ask = ask
        self.ctx = ctx
        self.read_line = read_line
        self.pause = pause
        self.user_config = user_config

    def approve(self, call: PendingCall, reason: str) -> bool | Declined | Remembered:
        """Asked only about calls the session has no remembered answer for (api/approvals.py); "always" is
        answered as Remembered, so the session keeps it."""
        tool_name, arguments = call.name, call.arguments
        if self.pause is not None:
            self.pause()
        self._show(tool_name, arguments, reason)
        while True:
            answer = self.ask(QUESTION).strip().lower()[:1]
            # Every key ends the question's line (its echo, or nothing for a key that is no answer), so what
            # follows (the "always" menu, the question again) starts on a line of its own.
            self.console.print(SAID.get(answer, ""), style="dim")
            if answer == "y":
                return True
            if answer == "n":
                return False
            if answer == "t":
                return self._instead()
            if answer == "a" and self._always(tool_name, arguments):
                return Remembered(True)

    def _show(self, tool_name: str, arguments: dict[str, Any], reason: str) -> None:
        path = call_path(tool_name, arguments)
        what = f"{tool_name} {path}" if path is not None else tool_name
        self.console.print(f"\n[bold yellow]Allow {markup_safe(what)}?[/]  [dim]{markup_safe(reason)}[/]")
        edit = edit_preview(tool_name, arguments, self.ctx) if self.ctx is not None else None
        if edit is not None and edit.problem is None:
            self.console.print(markup_safe(edit.title), style="bold")
            self.console.print(render_rows(edit.rows), end="")
            return
        if edit is not None and edit.problem is not None:
            self.console.print(f"[yellow]As it stands this edit would fail: {markup_safe(edit.problem)}[/]")
        shown = call_preview(tool_name, arguments)
        lines = printable(shown.text).splitlines()
        body = "\n".join(lines[:PREVIEW_LINES])
        if len(lines) > PREVIEW_LINES:
            body += f"\n... {len(lines) - PREVIEW_LINES} more lines"
        self.console.print(Syntax(body, shown.syntax, word_wrap=True))

    def _instead(self) -> Declined:
        if self.read_line is None:
            return Declined("")
        try:
            said = self.read_line("Tell the model what to do instead: ")
        except (KeyboardInterrupt, EOFError):
            said = ""
        return Declined(said.strip())

    def _always(self, tool_name: str, arguments: dict[str, Any]) -> bool:
        """Show the rule "always" stands for and where it can live; False when the user backs out."""
        if self.ctx is None:
            return True
        rules = always_rules(self.ctx, tool_name, arguments)
        user_path = self.user_config or user_config_path()
        listed = ", ".join(rules)
        self.console.print(f"Always allow [bold]{markup_safe(listed)}[/]:")
        self.console.print(f"  \\[s] for this session  \\[p] saved to the project ({PROJECT_CONFIG})  "
                           f"\\[u] saved to your user config ({markup_safe(str(user_path))})  \\[c] back")
        while True:
            where = self.ask("> ").strip().lower()[:1]
            self.console.print(WHERE.get(where, ""), style="dim")
            if where in ("c", "n"):  # "n" is also what a Ctrl-C at this question reads as
                return False
            if where in ("s", "p", "u"):
                break
        allow_for_session(self.ctx, rules)
        if where == "s":
            self.console.print(f"[dim]allowed for this session: {markup_safe(listed)}[/]")
            return True
        try:
            saved: Saved = save_always(self.ctx, rules, "project" if where == "p" else "user", user_path)
        except (ConfigError, OSError, ValueError) as exc:  # unreadable, unwritable, or not UTF-8 TOML
            self.console.print(f"[yellow]not saved ({markup_safe(str(exc))}); allowed for this session only[/]")
            return True
        self.console.print(f"[dim]saved {markup_safe(listed)} to {markup_safe(str(saved.path))}[/]")
        if saved.note:
            self.console.print(f"[yellow]{markup_safe(saved.note)}[/]")
        return True
