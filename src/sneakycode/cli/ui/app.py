"""`sneakycode` with no -p: the interactive session. Reads a task, runs it, asks before risky calls."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console

from sneakycode import __version__
from sneakycode.cli.main import ExitCode
from sneakycode.cli.text import markup_safe
from sneakycode.cli.trust_command import trust_requests
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError, SneakyError
from sneakycode.tools.base import ImagePart, ToolContext

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent
    from sneakycode.cli.startup import PreparedRun

STATUS_STYLE = {
    "finished": "green", "answered": "", "error": "red", "turn_limit": "yellow", "budget": "yellow",
    "cancelled": "yellow",
}  # fmt: skip


def run_interactive(args: argparse.Namespace) -> int:
    from prompt_toolkit.history import FileHistory

    from sneakycode.cli.invocations import with_resources
    from sneakycode.cli.startup import prepare_run, settings_from_args
    from sneakycode.cli.ui.approver import TerminalApprover
    from sneakycode.cli.ui.commands import COMMANDS, SlashContext, run_slash
    from sneakycode.cli.ui.completion import SlashCompleter
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
        asked = trust_requests(loaded)
        if asked and _ask_trust(console, answers, loaded, asked):
            loaded = settings_from_args(args, notify=False)
        run = prepare_run(args, loaded, sink, approver_for, debug_log)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    config, session, agent = run.config, run.session, run.agent
    ctx = session.ctx
    history_file = state_dir(loaded.settings) / "prompt-history"
    history_file.parent.mkdir(parents=True, exist_ok=True)
    entries = [(name, text) for name, (_, text) in COMMANDS.items()]
    entries += [entry for entry in run.extensions.slash_entries() if entry[0] not in COMMANDS]
    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)),
                                               completer=SlashCompleter(entries), complete_while_typing=False)
    model_line = f"{config.model} via {config.provider} ({config.base_url})"
    slash = SlashContext(agent, loaded, console, model_line, run.extensions,
                         invoke=lambda line: _invoke(run, console, line), subagents=run.subagents, mcp=run.mcp)
    console.print(f"[bold]SneakyCode {__version__}[/]  {markup_safe(model_line)}")
    console.print(f"[dim]context window {config.context_window} tokens, from "
                  f"{markup_safe(config.context_window_source)}[/]")
    console.print(f"workspace {markup_safe(str(ctx.workspace.root))}  session {ctx.session_id}"
                  + ("  (resumed)" if session.saved else ""))
    console.print("[dim]Type a task. /help lists commands; Ctrl-C stops a turn; Ctrl-D leaves.[/]")
    agent.start_session("resume" if session.saved else "startup")
    try:
        while True:
            try:
                line = prompt.prompt("> ", bottom_toolbar=lambda: jobs_line(ctx))
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
            request, extra = with_resources(run, line, lambda n: console.print(f"[yellow]{markup_safe(n)}[/]"))
            _run_request(agent, console, request, _attach(console, line, ctx) + extra)
    finally:
        agent.cancel.clear()
        killed = ctx.close()  # leaving (Ctrl-D, /exit, a crash) ends every job
        run.close("prompt_input_exit")
    if killed:
        console.print(f"[dim]Stopped {len(killed)} running job(s).[/]")
    console.print(f"[dim]Session {ctx.session_id} saved; `sneakycode --resume {ctx.session_id}` continues it, "
                  f"`sneakycode undo` reverts its changes.[/]")
    return ExitCode.OK


def jobs_line(ctx: ToolContext) -> str | None:
    """The status line under the prompt: running jobs, or nothing when there are none."""
    running = ctx.jobs.running()
    if not running:
        return None
    return " jobs: " + "  ".join(f"[{job.id}] {job.command[:40]}" for job in running) + "  (/jobs)"


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


def _invoke(run: PreparedRun, console: Console, line: str) -> None:
    """`/NAME ARGS` for a custom command or skill: expanded (its inline commands asked about as usual), then
    run as one request with its allowed-tools and model in effect."""
    from sneakycode.cli.invocations import expand, in_effect

    try:
        invocation = expand(run, line)
    except ConfigError as exc:
        console.print(f"[red]{markup_safe(str(exc))}[/]")
        return
    for notice in invocation.notices:
        console.print(f"[yellow]{markup_safe(notice)}[/]")
    with in_effect(run, invocation):
        _run_request(run.agent, console, invocation.prompt)


def _run_request(agent: Agent, console: Console, request: str, images: list[ImagePart] | None = None) -> None:
    """One request to the model (with the images it attaches), with Ctrl-C stopping it and a one-line summary
    after."""
    from sneakycode.cli.startup import cancel_on_sigint

    try:
        with cancel_on_sigint(agent.cancel.set):
            result = agent.run_turn(request, images)
    except SneakyError as exc:
        console.print(f"[red]{markup_safe(str(exc))}[/]")
        return
    except KeyboardInterrupt:
        console.print("[yellow]Interrupted.[/]")
        return
    if result.status != "answered":
        style = STATUS_STYLE.get(result.status, "")
        shown = markup_safe(result.message)
        console.print(f"[{style}]{shown}[/]" if style else shown)
    console.print(
        f"[dim]{result.turns} turn(s), {result.tool_calls} tool call(s), "
        f"{result.prompt_tokens} in / {result.completion_tokens} out tokens"
        f"{' (estimated)' if result.usage_estimated else ''}[/]"
    )


def _ask_trust(console: Console, answers: PromptSession[str], loaded: LoadedSettings, asked: list[str]) -> bool:
    """The interactive trust prompt: exactly what the repository's files ask for; only `y` trusts them."""
    from sneakycode.config import record_trust, repository_files, trust_state_dir

    assert loaded.base is not None
    files = " and ".join(str(loaded.base / path) for path, _ in repository_files(loaded.base))
    console.print(f"[bold yellow]{markup_safe(files)}[/] came with this repository and asks for:")
    for line in asked:
        console.print(f"  {markup_safe(line)}")
    console.print("[dim]Until you trust this workspace these are ignored; deny and ask rules apply either way.[/]")
    try:
        answer = answers.prompt("Trust this workspace and apply them? [y/N] ").strip().lower()
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if answer not in ("y", "yes"):
        console.print("[dim]Not trusted; `sneakycode trust` applies them later.[/]")
        return False
    record_trust(loaded.base, trust_state_dir())
    return True


def _ask(answers: PromptSession[str], text: str, cancel: threading.Event) -> str:
    """An approval answer; Ctrl-C or Ctrl-D at the question declines and stops the turn."""
    try:
        return answers.prompt(text)
    except (KeyboardInterrupt, EOFError):
        cancel.set()
        return "n"
