"""The one place a run is assembled: from settings and Options to the model, the session folder, the tools
(built-ins for the model's family, the task and skill tools, the program's own, MCP servers'), hooks,
budgets, checkpoints and the Agent. `Session` calls it; so does `switch_model` for what depends on the model.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from contextlib import ExitStack
from dataclasses import dataclass, replace
from urllib.parse import urlparse

from sneakycode.agent.budgets import Budgets, Spending
from sneakycode.agent.first_request import start_map_build
from sneakycode.agent.loop import Agent
from sneakycode.agent.model.providers import LOOPBACK_HOSTS, ModelConfig, resolve_model_config
from sneakycode.agent.model.window import discover_context_window
from sneakycode.agent.protocol import EventSink
from sneakycode.agent.roles import BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.agent.subagent_definitions import load_definitions
from sneakycode.agent.subagents import TASK_TOOL, Subagents
from sneakycode.api.binding import ModelBinding, Models, binding_of, builtin_tools, close_model, offered_if
from sneakycode.api.options import BUDGET_NAMES, Options
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError
from sneakycode.extensions.hooks import HookRunner
from sneakycode.extensions.hooks_config import load_hooks
from sneakycode.extensions.invocation import Extensions, load_extensions
from sneakycode.extensions.mcp.manager import McpServers
from sneakycode.extensions.skills import skill_tool, skills_prompt
from sneakycode.permissions.gate import Approver, Unattended
from sneakycode.session.checkpoints import Checkpoints, open_checkpoints
from sneakycode.session.transcript import TRANSCRIPT, SavedSession, Transcript, find_session, load_transcript
from sneakycode.tools.base import Tool
from sneakycode.tools.context import ToolContext, open_tool_context

__all__ = ["AgentSession", "Parts", "assemble", "builtin_tools", "close_model", "offered_if", "open_agent_session"]

LOCAL_WINDOW_GUESS = 8_192


@dataclass
class Parts:
    """Everything a session runs with; `close` ends what it started (hooks, MCP servers, transcript)."""

    config: ModelConfig
    ctx: ToolContext
    transcript: Transcript
    saved: SavedSession | None
    checkpoints: Checkpoints | None
    agent: Agent
    extensions: Extensions
    subagents: Subagents
    mcp: McpServers
    skills: Tool | None
    small_config: ModelConfig | None = None
    models: Models | None = None
    """What every later binding derives from (set_model, subagents' and commands' models)."""

    def close(self, reason: str) -> None:
        """The SessionEnd hooks, then every MCP server stopped (no process outlives the session), then the
        model's connection and the transcript closed."""
        try:
            self.agent.hooks.session_end(reason)
        finally:
            try:
                self.mcp.close()
            finally:
                try:
                    close_model(self.agent.model)
                    if self.agent.small is not None:
                        close_model(self.agent.small.model)
                finally:
                    self.transcript.close()


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
    with ExitStack() as undo:
        found = find_session(loaded, continue_latest=continue_latest, resume_id=resume_id)
        saved = load_transcript(found.dir / TRANSCRIPT) if found is not None else None
        ctx = open_tool_context(loaded, kind="agent", session=found)
        undo.callback(ctx.close)
        if found is None:  # a new folder that nothing was written to yet: a failed start leaves none behind
            undo.callback(shutil.rmtree, ctx.session_dir, ignore_errors=True)
        if saved is not None:
            ctx.tasks = list(saved.tasks)
        settings = loaded.settings
        checkpoints = open_checkpoints(ctx.session_dir, loaded.workspace, enabled=settings.checkpoints.enabled,
                                       max_file_size=settings.max_file_size_bytes)
        opened = AgentSession(ctx, Transcript(ctx.session_dir), saved, checkpoints)
        undo.pop_all()
    return opened


def model_config(loaded: LoadedSettings, options: Options) -> ModelConfig:
    """Provider, endpoint, model, key, and the window the server reports (a ConfigError says what to set)."""
    return with_server_window(resolve_model_config(loaded, options.api_key))


def budgets_for(options: Options, loaded: LoadedSettings) -> Budgets:
    """An unattended run's budgets come from the settings (the options are their top layer); an interactive
    session's from the options alone."""
    source = options if options.interactive else loaded.settings.budgets
    return Budgets(*(getattr(source, name, None) for name in BUDGET_NAMES))


def session_tools(parts_builtin: tuple[Tool, ...], loaded: LoadedSettings, subagents: Subagents,
                  skills: Tool | None, custom: tuple[Tool, ...]) -> tuple[Tool, ...]:
    """What the model is offered besides MCP servers' tools: built-ins, the task tool, the skill tool, the
    program's own tools."""
    chosen = loaded.settings.tools
    tools = parts_builtin
    if chosen.enabled is None or TASK_TOOL in chosen.enabled:
        tools = (*tools, subagents.tool)
    if skills is not None:
        tools = (*tools, skills)
    check_custom_names({t.name for t in tools}, custom)
    return (*tools, *custom)


def check_custom_names(taken: Collection[str], custom: tuple[Tool, ...]) -> None:
    """A program's tool may not take the name of one the session offers itself."""
    clash = [t.name for t in custom if t.name in taken]
    if clash:
        raise ConfigError(f"a tool of the program is named like a built-in one: {', '.join(clash)}; rename it")


def assemble(
    options: Options,
    loaded: LoadedSettings,
    sink: EventSink,
    approver_for: Callable[[ToolContext], Approver | None],
    unattended: Unattended,
) -> Parts:
    """The model, the session and the Agent; a ConfigError says why a run cannot start. All or nothing: what
    can be checked is checked before anything is opened, and a failure after that closes what was opened and
    leaves no session folder behind. The session's MCP servers are started (together, each within its
    startup_timeout) and their tools offered; what failed or was held back for want of trust is emitted as
    notices."""
    debug_log = options.debug_log
    models = Models(loaded, model_config(loaded, options), budgets_for(options, loaded), debug_log)
    settings = loaded.settings
    with ExitStack() as undo:
        main = ModelBinding.for_model(None, "main", models)
        undo.callback(main.close)
        small = None if settings.models.small is None else ModelBinding.for_model(None, "small", models)
        if small is not None:
            undo.callback(small.close)
        # The program's tools, checked against every name the session offers itself, before any folder exists.
        enabled = settings.tools.enabled
        task = {TASK_TOOL} if enabled is None or TASK_TOOL in enabled else set()
        check_custom_names({t.name for t in main.tools} | task, tuple(options.tools))
        spending = Spending()
        for binding in (main, small):
            if binding is not None:
                binding.charge_to(spending)
        hooks = load_hooks(loaded, trust_project=options.trust_project)
        for notice in hooks.notices:
            sink.emit({"type": "notice", "message": notice})
        opened = open_agent_session(loaded, continue_latest=options.continue_session, resume_id=options.resume)
        ctx, transcript, saved, checkpoints = opened.ctx, opened.transcript, opened.saved, opened.checkpoints
        if saved is None:  # registered first, so it runs last: after everything in the folder is closed
            undo.callback(shutil.rmtree, ctx.session_dir, ignore_errors=True)
        undo.callback(ctx.close)
        undo.callback(transcript.close)
        if saved is None:  # a new conversation's map: built while the rest starts (agent/first_request.py)
            start_map_build(ctx, main.window)
        extensions = load_extensions(ctx.workspace, skills=settings.skills.enabled, user=not loaded.isolated)
        for notice in extensions.notices():
            sink.emit({"type": "notice", "message": notice})
        definitions, problems = load_definitions(ctx.workspace, user=not loaded.isolated, trusted=loaded.trusted)
        for problem in problems:
            sink.emit({"type": "notice", "message": f"subagent definition {problem}"})

        def model_for(name: str) -> BoundModel:
            binding = ModelBinding.for_model(name, "subagent", models)
            binding.charge_to(spending)
            return binding.bound()

        subagents = Subagents(definitions, main.tools, model_for)
        skills = skill_tool(extensions.skills) if extensions.skills.skills else None  # only when there is one
        tools = session_tools(main.tools, loaded, subagents, skills, tuple(options.tools))
        if debug_log is not None:
            config = main.config
            debug_log(f"model: context window {config.context_window} tokens, from {config.context_window_source}")
            if small is not None:
                debug_log(f"small model: {small.name} at {small.config.base_url}, context window "
                          f"{small.window} tokens, from {small.config.context_window_source}")
            debug_log(f"tools offered: {', '.join(t.name for t in tools)}; {len(hooks)} hook(s)")
        ctx.supports_images = main.supports_images
        servers = McpServers(loaded, ctx.session_dir / "mcp")
        undo.callback(servers.close)
        servers.start()
        extra = servers.tools()
        if debug_log is not None and extra:
            debug_log(f"MCP tools offered: {', '.join(t.name for t in extra)}")
        agent = Agent(
            binding_of(main, small),
            Calls(ctx, approver_for(ctx), tools + extra, unattended),
            Conversation(
                history=saved.messages if saved else None,
                session_turns=saved.turns if saved else 0,
                transcript=transcript,
                checkpoints=checkpoints,
                skills_prompt=skills_prompt(extensions.skills, settings.skills.max_prompt_chars),
                system_prompt=options.system_prompt,
            ),
            RunConfig(
                sink,
                main=True,
                mode=options.mode,
                hooks=HookRunner.for_session(hooks, ctx) if len(hooks) else None,
                budgets=models.budgets,
                spending=spending,
            ),
        )
        servers.attach(agent)
        subagents.attach(agent)
        undo.pop_all()
    extensions = replace(extensions, prompts=tuple(servers.prompts))  # /mcp__SERVER__PROMPT
    for notice in servers.notices:
        sink.emit({"type": "notice", "message": notice})
    return Parts(main.config, ctx, transcript, saved, checkpoints, agent, extensions, subagents, servers, skills,
                 None if small is None else small.config, models)


def with_server_window(config: ModelConfig) -> ModelConfig:
    """The config with the window the server reports, unless the window was configured (that still wins) or
    the provider is a hosted one (their windows are the presets')."""
    if config.context_window_source.startswith("configured") or not (config.local or config.provider == "custom"):
        return config
    found = discover_context_window(config.base_url, config.model, config.api_key, provider=config.provider)
    if found is not None:
        return replace(config, context_window=found.tokens, context_window_source=found.source,
                       server_kind=config.server_kind or found.kind)
    if urlparse(config.base_url).hostname in LOOPBACK_HOSTS and config.context_window > LOCAL_WINDOW_GUESS:
        # Seen with llama-cpp-python's server: it reports its window nowhere. Guessing the custom preset's
        # 32,768 let a 4,096-token reply cap through on an 8k server; the common local default is safer.
        return replace(
            config,
            context_window=LOCAL_WINDOW_GUESS,
            context_window_source="a guess: this local server reports no window (set context_window)",
        )
    return config
