"""Every run's wiring: settings for a workspace and the flags, the model, the session, the Agent, Ctrl-C.

Commands that only run tools (`tool`, `permissions`, `undo`, `sessions`, `mcp`) use the light part at the
top; `prepare_run` imports the agent and the model client only when a model run is being prepared, so those
commands start without loading them.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.cli.main import ExitCode
from sneakycode.config import LoadedSettings, load_settings
from sneakycode.errors import ConfigError
from sneakycode.process.hardening import protect_variables

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent
    from sneakycode.agent.model.providers import ModelConfig
    from sneakycode.agent.protocol import EventSink
    from sneakycode.permissions.gate import Approver
    from sneakycode.session.transcript import SavedSession, Transcript
    from sneakycode.tools.context import ToolContext


def workspace_settings(
    workspace_arg: str | None,
    flags: Mapping[str, Any] | None = None,
    *,
    trust_project: bool = False,
    notify: bool = True,
) -> LoadedSettings:
    """Every command's settings for `--workspace` (default: the current folder); a ConfigError when that
    folder does not exist or a layer is wrong, so no command starts on a workspace that is not there. What
    an untrusted project file asked for and did not get is said once on stderr (unless `notify` is off)."""
    workspace = Path(workspace_arg) if workspace_arg else None
    if workspace is not None and not workspace.is_dir():
        raise ConfigError(f"--workspace {workspace_arg!r} is not a directory")
    loaded = load_settings(workspace, flags, trust_project=trust_project)
    if loaded.settings.api_key_env:  # a key under a name the start-up patterns did not recognise
        protect_variables([loaded.settings.api_key_env])
    if notify and loaded.ignored:
        print(f"sneakycode: {untrusted_notice(loaded)}", file=sys.stderr)
    return loaded


def untrusted_notice(loaded: LoadedSettings) -> str:
    asked = "; ".join(loaded.ignored)
    return (
        f"{loaded.project_file} comes with the repository and this workspace is not trusted, so what it asks "
        f"for that would loosen permissions or redirect SneakyCode was ignored: {asked}. Read the file; to apply "
        "it, run `sneakycode trust` in this workspace (or pass --trust-project for one run)."
    )


def config_error_exit(command: str, exc: ConfigError) -> int:
    """How every command reports a configuration or usage problem: one line on stderr, exit 2."""
    print(f"sneakycode {command}: {exc}", file=sys.stderr)
    return ExitCode.USAGE


def settings_from_args(args: argparse.Namespace, *, notify: bool = True) -> LoadedSettings:
    """The configuration layers with the command-line flags on top (they win over every file)."""
    flags = {
        key: value
        for key, value in {
            "provider": args.provider,
            "model": args.model,
            "base_url": args.base_url,
            "permissions.mode": args.mode,
            "max_turns": args.max_turns,
        }.items()
        if value is not None
    }
    return workspace_settings(args.workspace, flags, trust_project=args.trust_project, notify=notify)


@contextmanager
def cancel_on_sigint(cancel: Callable[[], None]) -> Iterator[None]:
    """The first SIGINT cancels the run cleanly (the turn closes, the transcript stays valid); a second one
    raises KeyboardInterrupt at once."""
    pressed: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if pressed:
            raise KeyboardInterrupt
        pressed.append(True)
        cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class AgentSession:
    """A tool context over a new or resumed session, its transcript, and what a resumed one held."""

    ctx: ToolContext
    transcript: Transcript
    saved: SavedSession | None


def open_agent_session(
    loaded: LoadedSettings, *, continue_latest: bool = False, resume_id: str | None = None
) -> AgentSession:
    """Open the session to work in; a resumed one brings back its messages and task list (not its reads)."""
    from sneakycode.session.transcript import TRANSCRIPT, Transcript, find_session, load_transcript
    from sneakycode.tools.context import open_tool_context

    info = find_session(loaded, continue_latest=continue_latest, resume_id=resume_id)
    saved = load_transcript(info.dir / TRANSCRIPT) if info is not None else None
    ctx = open_tool_context(loaded, kind="agent", session=info)
    if saved is not None:
        ctx.tasks = list(saved.tasks)
    return AgentSession(ctx, Transcript(ctx.session_dir), saved)


@dataclass
class PreparedRun:
    config: ModelConfig
    session: AgentSession
    agent: Agent


def prepare_run(
    args: argparse.Namespace,
    loaded: LoadedSettings,
    sink: EventSink,
    approver_for: Callable[[ToolContext], Approver | None],
    debug_log: Callable[[str], None] | None = None,
) -> PreparedRun:
    """The model, the session and the Agent for a headless or interactive run; a ConfigError says why a run
    cannot start. `approver_for` gets the session's tool context, so an approver can reach its cancel signal."""
    from sneakycode.agent.loop import Agent
    from sneakycode.agent.model.client import build_chat_model
    from sneakycode.agent.model.families import edit_format_for
    from sneakycode.agent.model.providers import resolve_model_config
    from sneakycode.tools.registry import offered_tools

    config = with_server_window(resolve_model_config(loaded, args.api_key))
    chosen = loaded.settings.tools
    tools = offered_tools(chosen.enabled, edit_format_for(config.model, chosen.edit_format))
    if debug_log is not None:
        debug_log(f"model: context window {config.context_window} tokens, from {config.context_window_source}")
        debug_log(f"tools offered: {', '.join(t.name for t in tools)}")
    session = open_agent_session(loaded, continue_latest=args.continue_session, resume_id=args.resume)
    session.ctx.supports_images = config.supports_images
    agent = Agent(
        build_chat_model(config, debug_log=debug_log, tool_calls=loaded.settings.tool_calls),
        session.ctx,
        sink,
        approver=approver_for(session.ctx),
        mode=args.mode,
        context_window=config.context_window,
        transcript=session.transcript,
        history=session.saved.messages if session.saved else None,
        tools=tools,
    )
    return PreparedRun(config, session, agent)


def with_server_window(config: ModelConfig) -> ModelConfig:
    """The config with the window the server reports, unless the window was configured (that still wins) or
    the provider is a hosted one (their windows are the presets')."""
    from dataclasses import replace

    from sneakycode.agent.model.window import discover_context_window

    if config.context_window_source.startswith("configured") or not (config.local or config.provider == "custom"):
        return config
    found = discover_context_window(config.base_url, config.model, config.api_key, provider=config.provider)
    if found is None:
        return config
    return replace(config, context_window=found.tokens, context_window_source=found.source)
