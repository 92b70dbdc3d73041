"""`sneakycode` with no -p: the interactive session. Reads a task, runs it, asks before risky calls."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console

from sneakycode.api.trust import trust_requests
from sneakycode.api.vocabulary import ConfigError, ImagePart, LoadedSettings, SneakyError, ToolContext
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.text import markup_safe, plural, printable
from sneakycode.version import __version__

if TYPE_CHECKING:
    from sneakycode.api.session import Session
    from sneakycode.api.vocabulary import Approver, EventSink
    from sneakycode.faces.terminal.keys import EscWatcher

STATUS_STYLE = {
    "finished": "green", "answered": "", "error": "red", "turn_limit": "yellow", "budget": "yellow",
    "cancelled": "yellow",
}  # fmt: skip


def run_interactive(args: argparse.Namespace) -> int:
    from prompt_toolkit.history import FileHistory

    from sneakycode.api.invocations import with_resources
    from sneakycode.faces.terminal.approver import TerminalApprover
    from sneakycode.faces.terminal.commands import COMMANDS, SlashContext, run_slash
    from sneakycode.faces.terminal.completion import SlashCompleter
    from sneakycode.faces.terminal.keys import EscWatcher, next_mode, prompt_bindings
    from sneakycode.faces.terminal.network_offer import NetworkOffer
    from sneakycode.faces.terminal.render import TerminalSink
    from sneakycode.faces.terminal.startup_check import StartupCheck
    from sneakycode.faces.terminal.status import status_text

    console = Console(highlight=False)
    # Created on first use: prompt_toolkit warns "Input is not a terminal" as soon as one exists on a pipe.
    made: list[PromptSession[str]] = []

    def answers() -> PromptSession[str]:
        if not made:
            made.append(PromptSession())
        return made[0]

    made_run: list[Session] = []  # the session, once made: Esc and a refused question stop its request

    def stop() -> None:
        if made_run:
            made_run[0].cancel()

    watcher = EscWatcher(stop)

    sink = TerminalSink(console, show_reasoning=args.verbose)

    def approver_for(ctx: ToolContext) -> TerminalApprover:
        # `ctx` is the asking agent's (main or subagent): the approver previews edits and words "always" rules in it.
        return TerminalApprover(console, lambda text: _ask_paused(watcher, text, stop), ctx=ctx,
                                read_line=lambda text: _read_paused(watcher, answers(), text), pause=sink.pause)

    debug_log = (lambda line: console.print(f"[dim]{markup_safe(line)}[/]")) if args.verbose else None
    try:
        run = _prepare(args, console, answers, sink, approver_for, debug_log)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    made_run.append(run)
    config = run.config
    network_offer = NetworkOffer(run)
    sink.attach(run.proposed_edit)
    history_file = run.prompt_history_path()
    history_file.parent.mkdir(parents=True, exist_ok=True)
    entries = [(name, text) for name, (_, text) in COMMANDS.items()]
    entries += [entry for entry in run.commands() if entry[0] not in COMMANDS]
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(history_file)), completer=SlashCompleter(entries, run.complete_path),
        complete_while_typing=False, multiline=True, prompt_continuation=". ",
        key_bindings=prompt_bindings(lambda: run.set_mode(next_mode(run.mode))),
    )
    model_line = f"{config.model} via {config.provider} ({config.base_url})"
    slash = SlashContext(run, console, model_line,
                         invoke=lambda line: _invoke(run, console, line, watcher, sink.finish),
                         send=lambda text: _run_request(run, console, text, watcher=watcher, settle=sink.finish),
                         last_result=lambda: sink.last_result)
    console.print(f"[bold]SneakyCode {__version__}[/]  {markup_safe(model_line)}")
    console.print(f"[dim]context window {config.context_window} tokens, from "
                  f"{markup_safe(config.context_window_source)}[/]")
    console.print(f"workspace {markup_safe(str(run.workspace))}  session {run.session_id}"
                  + ("  (resumed)" if run.resumed else ""))
    console.print("[dim]Type a task. /help lists commands; @file attaches a file, !cmd runs one; Esc stops a turn; "
                  "Shift+Tab cycles the mode; Ctrl-D leaves.[/]")
    run.start()
    startup = StartupCheck(console, prompt)
    startup.start(config)
    shared: list[str] = []  # what `!cmd` printed, for the next request
    armed = False  # Ctrl-C once on an empty line: the next one leaves
    try:
        if getattr(args, "task", None):  # `sneakycode "TASK"`: the task is the session's first message
            startup.flush()
            console.print(f"> {markup_safe(args.task)}")
            try:
                _run_request(run, console, args.task, watcher=watcher, settle=sink.finish)
            finally:
                sink.finish()
        while True:
            startup.flush()
            try:
                line = prompt.prompt("> ", bottom_toolbar=lambda: status_text(run.usage()))
            except KeyboardInterrupt:
                if prompt.default_buffer.text.strip() or not armed:
                    armed = not prompt.default_buffer.text.strip()
                    if armed:
                        console.print("[dim]Ctrl-C again leaves (or Ctrl-D).[/]")
                    continue
                break
            except EOFError:
                break
            armed = False
            if not line.strip():
                continue
            try:
                if line.startswith("/"):
                    if not run_slash(slash, line):
                        break
                    continue
                if line.startswith("!"):
                    shared.append(_user_command(run, console, line[1:].strip(), watcher))
                    continue
                request = _with_mentions(run, console, line)
                request, extra = with_resources(run, request)
                _run_request(run, console, "\n\n".join([*shared, request]), _attach(console, line, run) + extra,
                             watcher, sink.finish)
                network_offer.after_request(console, lambda text: _ask_key(text, lambda: None))
                shared.clear()
            finally:
                sink.finish()  # nothing stays live under the next prompt
    finally:
        killed = run.close("prompt_input_exit")  # leaving (Ctrl-D, /exit, a crash) ends every job
    if killed:
        console.print(f"[dim]Stopped {plural(len(killed), 'running job')}.[/]")
    undo = ", `sneakycode undo` reverts its changes" if run.has_undoable_changes() else ""
    console.print(f"[dim]Session {run.session_id} saved; `sneakycode --resume {run.session_id}` continues it"
                  f"{undo}.[/]")
    return ExitCode.OK


def _prepare(
    args: argparse.Namespace,
    console: Console,
    answers: Callable[[], PromptSession[str]],
    sink: EventSink,
    approver_for: Callable[[ToolContext], Approver | None],
    debug_log: Callable[[str], None] | None,
) -> Session:
    """The session (after the trust question); with no provider configured and a terminal attached, the
    first-run setup, then the session it configured. A ConfigError says why no session can start."""
    from sneakycode.api.models import SETUP_HELP, user_config_path
    from sneakycode.api.session import Session
    from sneakycode.api.settings import load_options
    from sneakycode.faces.shared.startup import options_from_args, protect_key
    from sneakycode.faces.terminal.setup_wizard import keyring_key, run_setup

    options = options_from_args(args, debug_log=debug_log)
    loaded = load_options(options)
    protect_key(loaded)
    asked = trust_requests(loaded)
    if asked:
        _ask_trust(console, answers(), loaded, asked)
    try:
        return Session(options, sink=sink, approver_for=approver_for)
    except ConfigError as exc:
        stored = keyring_key(loaded.settings.provider) if loaded.settings.provider and not args.api_key else None
        if stored is not None and "API key" in str(exc):
            args.api_key = stored
        elif str(exc) != SETUP_HELP or not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise
        else:
            choice = run_setup(console, lambda text, secret: answers().prompt(text, is_password=secret),
                               user_config_path())
            if choice is None:
                raise
            args.api_key = args.api_key or choice.api_key
    return Session(options_from_args(args, debug_log=debug_log), sink=sink, approver_for=approver_for)


def _with_mentions(run: Session, console: Console, line: str) -> str:
    """The request for `line`: its words, then the files and folder listings its `@PATH`s attach."""
    found = run.attach_mentions(line)
    for problem in found.problems:
        console.print(f"[yellow]not attached: {markup_safe(problem)}[/]")
    if found.names:
        console.print(f"[dim]attached {markup_safe(', '.join(found.names))}[/]")
    return found.request(line)


def _user_command(run: Session, console: Console, command: str, watcher: EscWatcher) -> str:
    """`!cmd`: the user's command in the workspace, its output shown, and what the next request will carry."""
    from sneakycode.api.mentions import command_context
    from sneakycode.faces.shared.startup import cancel_on_sigint

    with cancel_on_sigint(run.cancel), watcher.watching():
        result = run.run_user_command(command)
    console.print(printable(result.render()), markup=False, highlight=False)
    console.print("[dim](shared with the model in your next message)[/]")
    return command_context(command, result)


def _attach(console: Console, line: str, run: Session) -> list[ImagePart]:
    """The images `@shot.png` or a pasted image path attach to this line, for a model that takes them."""
    from sneakycode.faces.terminal.attachments import find_attachments

    found = find_attachments(line, run.workspace)
    for problem in found.problems:
        console.print(f"[yellow]not attached: {markup_safe(problem)}[/]")
    if found.images and not run.supports_images:
        console.print("[yellow]not attached: this model does not accept images (set supports_images = true if it "
                      "does)[/]")
        return []
    if found.names:
        console.print(f"[dim]attached {markup_safe(', '.join(found.names))}[/]")
    return found.images


def _invoke(run: Session, console: Console, line: str, watcher: EscWatcher | None = None,
            settle: Callable[[], None] | None = None) -> None:
    """`/NAME ARGS` for a custom command or skill: the session expands it (its inline commands asked about as
    usual) and runs it as one request with its allowed-tools and model in effect."""
    _run_request(run, console, line, watcher=watcher, settle=settle)


def _run_request(run: Session, console: Console, request: str, images: list[ImagePart] | None = None,
                 watcher: EscWatcher | None = None, settle: Callable[[], None] | None = None) -> None:
    """One request to the model (with the images it attaches), with Esc or Ctrl-C stopping it and a one-line
    summary after. `settle` prints what the display still holds (a reply cut by Ctrl-C) before the summary."""
    from sneakycode.faces.shared.startup import cancel_on_sigint
    from sneakycode.faces.terminal.markdown_stream import markdown

    try:
        with cancel_on_sigint(run.cancel), watcher.watching() if watcher else nullcontext():
            result = run.run(request, images)
    except SneakyError as exc:
        if settle is not None:
            settle()
        console.print(f"[red]{markup_safe(str(exc))}[/]")
        return
    except KeyboardInterrupt:
        if settle is not None:
            settle()
        console.print("[yellow]Interrupted.[/]")
        return
    if settle is not None:
        settle()  # the partial answer of a cancelled turn above "Cancelled", not below it
    if result.status == "finished":
        console.print(markdown(result.message))  # the finish message is the model's prose, as streamed text is
    elif result.status != "answered":
        style = STATUS_STYLE.get(result.status, "")
        shown = markup_safe(result.message)
        console.print(f"[{style}]{shown}[/]" if style else shown)
    usage = result.usage
    console.print(
        f"[dim]{plural(result.turns, 'turn')}, {plural(result.tool_calls, 'tool call')}, "
        f"{usage['prompt_tokens']:,} in / {usage['completion_tokens']:,} out tokens"
        f"{' (estimated)' if usage['estimated'] else ''}[/]"
    )


def _ask_trust(console: Console, answers: PromptSession[str], loaded: LoadedSettings, asked: list[str]) -> bool:
    """The interactive trust prompt: exactly what the repository's files ask for; only `y` trusts them."""
    from sneakycode.api.trust import repository_file_paths, trust_workspace

    files = " and ".join(str(path) for path in repository_file_paths(loaded))
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
    trust_workspace(loaded)
    return True


def _ask_paused(watcher: EscWatcher, text: str, cancel: Callable[[], None]) -> str:
    """An approval key mid-turn: the Esc watcher lets go of the terminal while it is asked."""
    with watcher.paused():
        return _ask_key(text, cancel)


def _read_paused(watcher: EscWatcher, answers: PromptSession[str], text: str) -> str:
    """A line typed at an approval ("what to do instead"), with the Esc watcher paused."""
    with watcher.paused():
        return answers.prompt(text)


def _ask_key(text: str, cancel: Callable[[], None]) -> str:
    """An approval key; Ctrl-C, Esc or Ctrl-D at the question declines and stops the turn."""
    from sneakycode.faces.terminal.single_key import read_key

    try:
        return read_key(text)
    except (KeyboardInterrupt, EOFError):
        cancel()
        return "n"

