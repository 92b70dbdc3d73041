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
    from sneakycode.agent.budgets import Budgets
    from sneakycode.agent.loop import Agent
    from sneakycode.agent.model.providers import ModelConfig
    from sneakycode.agent.protocol import ChatModel, EventSink
    from sneakycode.agent.subagents import Subagents
    from sneakycode.extensions.invocation import Extensions
    from sneakycode.extensions.mcp.manager import McpServers
    from sneakycode.permissions.gate import Approver
    from sneakycode.session.checkpoints import Checkpoints
    from sneakycode.session.transcript import SavedSession, Transcript
    from sneakycode.tools.context import ToolContext

BUDGETS = ("max_tokens", "max_cost", "timeout")  # flags and `budgets.*` keys of the same names


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
            **{f"budgets.{name}": getattr(args, name, None) for name in BUDGETS},
        }.items()
        if value is not None
    }
    return workspace_settings(args.workspace, flags, trust_project=args.trust_project, notify=notify)


def run_budgets(args: argparse.Namespace, loaded: LoadedSettings) -> Budgets:
    """The run's budgets: a headless run's from the settings (the flags are their top layer); an interactive
    session's from the flags alone, since a person is there to stop it and a configured timeout would end a
    session that is merely waiting for them."""
    from sneakycode.agent.budgets import Budgets

    headless = getattr(args, "prompt", None) is not None or getattr(args, "input_format", "text") == "stream-json"
    configured = loaded.settings.budgets
    return Budgets(*(getattr(configured if headless else args, name, None) for name in BUDGETS))


@contextmanager
def cancel_on_sigint(cancel: Callable[[], None], *, sigterm: bool = False) -> Iterator[None]:
    """The first SIGINT (with `sigterm`, SIGTERM too: how `sneakycode batch` stops a headless run) cancels the
    run cleanly (the turn closes, the transcript stays valid); a second one raises KeyboardInterrupt at once."""
    pressed: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if pressed:
            raise KeyboardInterrupt
        pressed.append(True)
        cancel()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, *([signal.SIGTERM] if sigterm else []))}
    try:
        yield
    finally:
        for sig, earlier in previous.items():
            signal.signal(sig, earlier)


@dataclass
class AgentSession:
    """A tool context over a new or resumed session, its transcript, what a resumed one held, and its
    checkpoints (None when turned off)."""

    ctx: ToolContext
    transcript: Transcript
    saved: SavedSession | None
    checkpoints: Checkpoints | None = None


def open_agent_session(
    loaded: LoadedSettings, *, continue_latest: bool = False, resume_id: str | None = None
) -> AgentSession:
    """Open the session to work in; a resumed one brings back its messages and task list (not its reads)."""
    from sneakycode.session.checkpoints import open_checkpoints
    from sneakycode.session.transcript import TRANSCRIPT, Transcript, find_session, load_transcript
    from sneakycode.tools.context import open_tool_context

    info = find_session(loaded, continue_latest=continue_latest, resume_id=resume_id)
    saved = load_transcript(info.dir / TRANSCRIPT) if info is not None else None
    ctx = open_tool_context(loaded, kind="agent", session=info)
    if saved is not None:
        ctx.tasks = list(saved.tasks)
    settings = loaded.settings
    checkpoints = open_checkpoints(
        ctx.session_dir, loaded.workspace, enabled=settings.checkpoints.enabled,
        max_file_size=settings.max_file_size_bytes,
    )
    return AgentSession(ctx, Transcript(ctx.session_dir), saved, checkpoints)


@dataclass
class PreparedRun:
    """`mcp`: the session's MCP servers, running until `close()` (which every caller does in a finally)."""

    config: ModelConfig
    session: AgentSession
    agent: Agent
    extensions: Extensions
    subagents: Subagents
    mcp: McpServers

    def close(self, reason: str = "other") -> None:
        """End the session: the SessionEnd hooks, then every MCP server stopped (no process outlives it), then
        the transcript closed."""
        try:
            self.agent.hooks.session_end(reason)
        finally:
            try:
                self.mcp.close()
            finally:
                self.session.transcript.close()


def prepare_run(
    args: argparse.Namespace,
    loaded: LoadedSettings,
    sink: EventSink,
    approver_for: Callable[[ToolContext], Approver | None],
    debug_log: Callable[[str], None] | None = None,
) -> PreparedRun:
    """The model, the session and the Agent for a headless or interactive run; a ConfigError says why a run
    cannot start. `approver_for` gets the session's tool context, so an approver can reach its cancel signal.
    The session's MCP servers are started (together, each within its startup_timeout) and their tools offered;
    what failed or was held back for want of trust is emitted as notices."""
    from dataclasses import replace

    from sneakycode.agent.budgets import Spending
    from sneakycode.agent.loop import Agent
    from sneakycode.agent.model.client import build_chat_model
    from sneakycode.agent.model.families import edit_format_for
    from sneakycode.agent.model.pricing import price_for
    from sneakycode.agent.model.providers import resolve_model_config
    from sneakycode.agent.subagent_definitions import load_definitions
    from sneakycode.agent.subagents import TASK_TOOL, Subagents
    from sneakycode.extensions.hooks import HookRunner
    from sneakycode.extensions.hooks_config import load_hooks
    from sneakycode.extensions.invocation import load_extensions
    from sneakycode.extensions.mcp.manager import McpServers
    from sneakycode.extensions.skills import skill_tool, skills_prompt
    from sneakycode.tools.registry import offered_tools

    config = with_server_window(resolve_model_config(loaded, args.api_key))
    price = price_for(loaded.settings, config.provider, config.model)
    budgets = run_budgets(args, loaded)
    if budgets.max_cost is not None and price is None:
        raise ConfigError(
            f"--max-cost (budgets.max_cost) needs the price of {config.model}, which is not in the built-in table: add "
            f'[pricing."{config.model}"] with input = and output = (USD per million tokens) to the config'
        )
    chosen = loaded.settings.tools
    # The task tool is the session's own (not a registry tool): offered unless tools.enabled leaves it out.
    enabled = None if chosen.enabled is None else [name for name in chosen.enabled if name != TASK_TOOL]
    tools = offered_tools(enabled, edit_format_for(config.model, chosen.edit_format))
    hooks = load_hooks(loaded, trust_project=args.trust_project)
    for notice in hooks.notices:
        sink.emit({"type": "notice", "message": notice})
    session = open_agent_session(loaded, continue_latest=args.continue_session, resume_id=args.resume)
    extensions = load_extensions(session.ctx.workspace, skills=loaded.settings.skills.enabled)
    for notice in extensions.notices():
        sink.emit({"type": "notice", "message": notice})
    definitions, problems = load_definitions(session.ctx.workspace)
    for problem in problems:
        sink.emit({"type": "notice", "message": f"subagent definition {problem}"})

    def model_for(name: str) -> ChatModel:
        return build_chat_model(replace(config, model=name), debug_log=debug_log, tool_calls=loaded.settings.tool_calls)

    subagents = Subagents(definitions, tools, model_for)
    if chosen.enabled is None or TASK_TOOL in chosen.enabled:
        tools = (*tools, subagents.tool)
    if extensions.skills.skills:  # offered only when there is a skill to load
        tools = (*tools, skill_tool(extensions.skills))
    if debug_log is not None:
        debug_log(f"model: context window {config.context_window} tokens, from {config.context_window_source}")
        debug_log(f"tools offered: {', '.join(t.name for t in tools)}; {len(hooks)} hook(s)")
    session.ctx.supports_images = config.supports_images
    servers = McpServers(loaded, session.ctx.session_dir / "mcp")
    try:
        servers.start()
        extra = servers.tools()
        if debug_log is not None and extra:
            debug_log(f"MCP tools offered: {', '.join(t.name for t in extra)}")
        agent = Agent(
            build_chat_model(config, debug_log=debug_log, tool_calls=loaded.settings.tool_calls),
            session.ctx,
            sink,
            approver=approver_for(session.ctx),
            mode=args.mode,
            context_window=config.context_window,
            transcript=session.transcript,
            history=session.saved.messages if session.saved else None,
            tools=tools + extra,
            skills_prompt=skills_prompt(extensions.skills, loaded.settings.skills.max_prompt_chars),
            checkpoints=session.checkpoints,
            session_turns=session.saved.turns if session.saved else 0,
            hooks=HookRunner.for_session(hooks, session.ctx) if len(hooks) else None,
            budgets=budgets,
            spending=Spending(price),
        )
    except BaseException:
        servers.close()
        raise
    servers.attach(agent)
    subagents.attach(agent)
    extensions = replace(extensions, prompts=tuple(servers.prompts))  # /mcp__SERVER__PROMPT
    for notice in servers.notices:
        sink.emit({"type": "notice", "message": notice})
    return PreparedRun(config, session, agent, extensions, subagents, servers)


LOCAL_WINDOW_GUESS = 8_192


def with_server_window(config: ModelConfig) -> ModelConfig:
    """The config with the window the server reports, unless the window was configured (that still wins) or
    the provider is a hosted one (their windows are the presets')."""
    from dataclasses import replace
    from urllib.parse import urlparse

    from sneakycode.agent.model.providers import LOOPBACK_HOSTS
    from sneakycode.agent.model.window import discover_context_window

    if config.context_window_source.startswith("configured") or not (config.local or config.provider == "custom"):
        return config
    found = discover_context_window(config.base_url, config.model, config.api_key, provider=config.provider)
    if found is not None:
        return replace(config, context_window=found.tokens, context_window_source=found.source)
    if urlparse(config.base_url).hostname in LOOPBACK_HOSTS and config.context_window > LOCAL_WINDOW_GUESS:
        # Seen with llama-cpp-python's server: it reports its window nowhere. Guessing the custom preset's
        # 32,768 let a 4,096-token reply cap through on an 8k server; the common local default is safer.
        return replace(
            config,
            context_window=LOCAL_WINDOW_GUESS,
            context_window_source="a guess: this local server reports no window (set context_window)",
        )
    return config
