"""Slash commands about the conversation and what it changed: /compact, /diff, /init, /resume, /export."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.syntax import Syntax

from sneakycode.api.vocabulary import CheckpointError, ConfigError, SavedSession, SneakyError
from sneakycode.faces.shared.text import markup_safe, printable

if TYPE_CHECKING:
    from sneakycode.faces.terminal.commands import SlashContext

INIT_REQUEST = (
    "Write or update AGENTS.md at the root of this repository: the guide a coding agent needs before it works "
    "here. Look at the repository first (its layout, build and test commands, code style, conventions, anything "
    "surprising). If AGENTS.md exists, read it and keep what is still true. Keep it short and concrete: commands "
    "in code blocks, no generic advice."
)
RECENT_SESSIONS = 10


def compact(sc: SlashContext, arg: str) -> bool:
    """`/compact [FOCUS]`: the conversation so far becomes one summary (what FOCUS names kept in detail)."""
    from sneakycode.faces.shared.startup import cancel_on_sigint

    sc.console.print("[dim]Summarising the conversation...[/]")
    try:  # the session's verb: the editor's /compact does the same
        with cancel_on_sigint(sc.run.cancel):
            done = sc.run.compact(arg)
    except (SneakyError, KeyboardInterrupt) as exc:
        sc.console.print(f"[red]Not compacted: {markup_safe(str(exc) or 'interrupted')}[/]")
        return True
    if done is None:
        sc.console.print("Nothing to compact yet.")
        return True
    sc.console.print(markup_safe(done.describe().capitalize()) + ".")
    return True


def diff(sc: SlashContext, _arg: str) -> bool:
    """`/diff`: everything this session changed, as one diff from its first checkpoint to its latest (commands'
    changes included); without checkpoints, the files its edits touched."""
    try:
        changed = sc.run.diff()
    except CheckpointError as exc:
        sc.console.print(f"[red]No diff: {markup_safe(str(exc))}[/]")
        return True
    if changed.patch is not None:
        if changed.patch.strip():
            sc.console.print(Syntax(printable(changed.patch), "diff", word_wrap=True))
        else:
            sc.console.print("No changes left by this session (changes were undone or rewound).")
        return True
    if not changed.paths:
        sc.console.print("No changes in this session yet.")
        return True
    sc.console.print("Changed by this session (checkpoints are off, so no diff; `sneakycode undo` reverts them):")
    for path in changed.paths:
        sc.console.print(f"  {markup_safe(path)}")
    return True


def init(sc: SlashContext, _arg: str) -> bool:
    """`/init`: the model writes or updates AGENTS.md (one ordinary request, approvals as usual)."""
    if sc.send is None:
        sc.console.print("[red]/init needs the interactive session.[/]")
        return True
    sc.send(INIT_REQUEST)
    return True


def resume(sc: SlashContext, arg: str) -> bool:
    """`/resume`: the recent sessions, numbered; `/resume N` (or an id) continues that conversation here."""
    sessions: list[SavedSession] = sc.run.saved_sessions(RECENT_SESSIONS)
    if not arg:
        if not sessions:
            sc.console.print("No other saved sessions in this workspace.")
            return True
        for number, info in enumerate(sessions, 1):
            task = " ".join(info.first_prompt.split())[:70] or "(no request)"
            started = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
            sc.console.print(f"  [bold]{number}[/]  {started}  {info.id}  {markup_safe(task)}")
        sc.console.print("[dim]/resume N continues session N's conversation here.[/]")
        return True
    chosen = next((info for n, info in enumerate(sessions, 1) if arg in (str(n), info.id)), None)
    if chosen is None:
        sc.console.print(f"[red]No session {markup_safe(arg)}: /resume lists them.[/]")
        return True
    try:  # the session's verb; files count as unread: what that session read may have changed since
        brought = sc.run.resume(chosen.id)
    except ConfigError as exc:
        sc.console.print(f"[red]{markup_safe(str(exc))}[/]")
        return True
    sc.console.print(f"Resumed the conversation of {chosen.id} ({brought} messages); files must "
                     "be read again before they are edited.")
    return True


def export(sc: SlashContext, arg: str) -> bool:
    """`/export [FILE]`: the conversation as Markdown (default: sneakycode-SESSION.md in the workspace)."""
    target = Path(arg).expanduser() if arg else Path(f"sneakycode-{sc.run.session_id}.md")
    target = target if target.is_absolute() else sc.run.workspace / target
    try:
        target.write_text(sc.run.export_markdown(), encoding="utf-8")
    except OSError as exc:
        sc.console.print(f"[red]Not exported: {markup_safe(str(exc))}[/]")
        return True
    sc.console.print(f"Exported the conversation to {markup_safe(str(target))}")
    return True
