"""`sneakycode` with no -p: the interactive session. Reads a task, runs it, asks before risky calls."""

from __future__ import annotations

import argparse
import sys
import threading

from prompt_toolkit import PromptSession
from rich.console import Console

from sneakycode import __version__
from sneakycode.cli.main import ExitCode
from sneakycode.cli.text import markup_safe
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError, SneakyError
from sneakycode.tools.base import ImagePart, ToolContext

STATUS_STYLE = {"finished": "green", "answered": "", "error": "red", "turn_limit": "yellow", "cancelled": "yellow"}


def run_interactive(args: argparse.Namespace) -> int:
    from prompt_toolkit.history import FileHistory

    from sneakycode.cli.startup import cancel_on_sigint, prepare_run, settings_from_args
    from sneakycode.cli.ui.approver import TerminalApprover
    from sneakycode.cli.ui.commands import SlashContext, run_slash
    from sneakycode.cli.ui.render import TerminalSink
    from sneakycode.config import state_dir

    console = Console(highlight=False)
    answers: PromptSession[str] = PromptSession()

    def approver_for(ctx: ToolContext) -> TerminalApprover:
        return TerminalApprover(console, lambda text: _ask(answers, text, ctx.cancel))

    sink = TerminalSink(console, show_reasoning=args.verbose)
    debug_log = (lambda line: console.print(f"[dim]{markup_safe(line)}[/]")) if args.verbose else None
    try:
        loaded = settings_from_args(args, notify=False)
        if loaded.ignored and _ask_trust(console, answers, loaded):
            loaded = settings_from_args(args, notify=False)
        run = prepare_run(args, loaded, sink, approver_for, debug_log)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    config, session, agent = run.config, run.session, run.agent
    ctx = session.ctx
    history_file = state_dir(loaded.settings) / "prompt-history"
    history_file.parent.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)))
    model_line = f"{config.model} via {config.provider} ({config.base_url})"
    slash = SlashContext(agent, loaded, console, model_line)
    console.print(f"[bold]SneakyCode {__version__}[/]  {markup_safe(model_line)}")
    console.print(f"[dim]context window {config.context_window} tokens, from "
                  f"{markup_safe(config.context_window_source)}[/]")
    console.print(f"workspace {markup_safe(str(ctx.workspace.root))}  session {ctx.session_id}"
                  + ("  (resumed)" if session.saved else ""))
    console.print("[dim]Type a task. /help lists commands; Ctrl-C stops a turn; Ctrl-D leaves.[/]")
    try:
        while True:
            try:
                line = prompt.prompt("> ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not line.strip():
                continue
            if line.startswith("/"):
                if not run_slash(slash, line):
                    break
                continue
            images = _attach(console, line, ctx)
            try:
                with cancel_on_sigint(agent.cancel.set):
                    result = agent.run_turn(line, images)
            except SneakyError as exc:
                console.print(f"[red]{markup_safe(str(exc))}[/]")
                continue
            except KeyboardInterrupt:
                console.print("[yellow]Interrupted.[/]")
                continue
            if result.status != "answered":
                style = STATUS_STYLE.get(result.status, "")
                shown = markup_safe(result.message)
                console.print(f"[{style}]{shown}[/]" if style else shown)
            console.print(
                f"[dim]{result.turns} turn(s), {result.tool_calls} tool call(s), "
                f"{result.prompt_tokens} in / {result.completion_tokens} out tokens"
                f"{' (estimated)' if result.usage_estimated else ''}[/]"
            )
    finally:
        session.transcript.close()
    console.print(f"[dim]Session {ctx.session_id} saved; `sneakycode --resume {ctx.session_id}` continues it, "
                  f"`sneakycode undo` reverts its changes.[/]")
    return ExitCode.OK


def _attach(console: Console, line: str, ctx: ToolContext) -> list[ImagePart]:
    """The images `@shot.png` or a pasted image path attach to this line, for a model that takes them."""
    from sneakycode.cli.ui.attachments import find_attachments

    found = find_attachments(line, ctx.workspace.root)
    for problem in found.problems:
        console.print(f"[yellow]not attached: {markup_safe(problem)}[/]")
    if found.images and not ctx.supports_images:
        console.print("[yellow]not attached: this model does not accept images (set supports_images = true if it "
                      "does)[/]")
        return []
    if found.names:
        console.print(f"[dim]attached {markup_safe(', '.join(found.names))}[/]")
    return found.images


def _ask_trust(console: Console, answers: PromptSession[str], loaded: LoadedSettings) -> bool:
    """The interactive trust prompt: exactly what the project file asks for; only `y` trusts it."""
    from sneakycode.config import CONFIG_FILE_LIMIT, read_regular_file, record_trust, trust_state_dir

    assert loaded.project_file is not None
    project = markup_safe(str(loaded.project_file))
    console.print(f"[bold yellow]{project}[/] came with this repository and asks for:")
    for line in loaded.ignored:
        console.print(f"  {markup_safe(line)}")
    console.print("[dim]Until you trust this workspace these are ignored; deny and ask rules apply either way.[/]")
    try:
        answer = answers.prompt("Trust this workspace and apply them? [y/N] ").strip().lower()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if answer not in ("y", "yes"):
        console.print("[dim]Not trusted; `sneakycode trust` applies them later.[/]")
        return False
    raw = read_regular_file(loaded.project_file, CONFIG_FILE_LIMIT)
    record_trust(loaded.project_file.parent.parent, raw, trust_state_dir())
    return True


def _ask(answers: PromptSession[str], text: str, cancel: threading.Event) -> str:
    """An approval answer; Ctrl-C or Ctrl-D at the question declines and stops the turn."""
    try:
        return answers.prompt(text)
    except (KeyboardInterrupt, EOFError):
        cancel.set()
        return "n"
