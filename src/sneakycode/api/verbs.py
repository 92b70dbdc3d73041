"""The verbs that change a session between requests, written once for every face: `set_mode`, `clear`,
`compact`, `rewind`, `resume`, `set_model` (and its older name `switch_model`), with `tasks` and `jobs` to look at;
through its mixins the conversation and its neighbours (api/history.py), listings (api/catalog.py), usage
(api/usage.py), a prompt line's mentions (api/mentions.py) and the network proxy's refusals (api/network.py).

The terminal's slash commands and the editor's call these and nothing below them, so `/clear` means the same
in both (the SessionStart hooks run again). Each waits for a running request to end: one request or change
at a time.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from sneakycode.api.catalog import CatalogVerbs
from sneakycode.api.history import HistoryVerbs
from sneakycode.api.mentions import MentionVerbs
from sneakycode.api.network import NetworkVerbs
from sneakycode.api.previews import PreviewVerbs
from sneakycode.api.usage import UsageVerbs

if TYPE_CHECKING:
    from sneakycode.agent.compaction_now import ManualCompaction
    from sneakycode.agent.model.providers import ModelConfig
    from sneakycode.api.assembly import Parts
    from sneakycode.api.binding import ModelBinding
    from sneakycode.api.options import Options
    from sneakycode.config import LoadedSettings, PermissionMode
    from sneakycode.session.rewind import RewindReport


class SessionVerbs(HistoryVerbs, CatalogVerbs, UsageVerbs, MentionVerbs, NetworkVerbs, PreviewVerbs):
    """Mixed into `Session`: what it needs of it is its parts, settings, options and its request lock. The
    looking verbs are grouped by concept in their own modules (history, catalog, usage, mentions,
    network, previews)."""

    _parts: Parts
    loaded: LoadedSettings
    options: Options
    _running: threading.Lock

    # ---- looking ---------------------------------------------------------------------------------------

    @property
    def mode(self) -> PermissionMode:
        """The permission mode in force."""
        return self._parts.agent.mode

    @property
    def tasks(self) -> list[dict[str, Any]]:
        """The session's task list (what the model keeps with the tasks tool), as a copy."""
        return [dict(task) for task in self._parts.ctx.tasks]

    def jobs(self) -> list[dict[str, Any]]:
        """Every background command of the session (subagents' included), as the JSON result lists them."""
        jobs = self._parts.ctx.session.jobs
        return [job.summary() for job in jobs.table().jobs.values()] if jobs.started else []

    @property
    def small_config(self) -> ModelConfig | None:
        """The small model's endpoint, model and window (None: the main model runs the chores too)."""
        return self._parts.small_config

    # ---- changing --------------------------------------------------------------------------------------

    def set_mode(self, mode: PermissionMode | str) -> None:
        """The permission mode for the rest of the session (default, auto-edit, plan, yolo); a ValueError
        names a mode that does not exist."""
        from sneakycode.config import PermissionMode

        self._parts.agent.set_mode(PermissionMode(mode))
        self._parts.transcript.write("mode", mode=str(PermissionMode(mode)))  # a loaded session shows it again

    def clear(self) -> None:
        """Start the conversation afresh in the same session: every file counts as unread again, and the
        SessionStart hooks run again (source "clear")."""
        with self._running:
            agent = self._parts.agent
            agent.clear()
            agent.start_session("clear")

    def compact(self, focus: str = "") -> ManualCompaction | None:
        """Replace the conversation so far with a summary (what `focus` names kept in detail); None when there
        is nothing to compact. A SneakyError when the summarising model cannot be reached (nothing changes);
        `cancel` stops it."""
        from sneakycode.agent.compaction_now import compact_now

        with self._running:
            agent = self._parts.agent
            agent.cancel.clear()
            return compact_now(agent, focus)

    def rewind(self, turn: int | None = None) -> RewindReport:
        """Take files and conversation back to before model turn `turn` (default: the last checkpoint). A
        CheckpointError says why nothing was rewound."""
        from sneakycode.session.rewind import rewind_session

        with self._running:
            ctx, agent = self._parts.ctx, self._parts.agent
            report = rewind_session(ctx.session_dir, ctx.session_id, ctx.workspace.root, turn=turn,
                                    max_file_size=self.loaded.settings.max_file_size_bytes)
            if report.conversation is not None:
                agent.rewound(report.conversation.messages, report.turn - 1)
            return report

    def resume(self, session_id: str) -> int:
        """Continue the conversation (and task list) of another saved session of this workspace here, in this
        session; files count as unread. Returns how many messages it brought back; a ConfigError when there is
        no such session or its transcript does not hold a conversation (nothing changes then)."""
        from sneakycode.api.history import other_sessions
        from sneakycode.errors import ConfigError
        from sneakycode.session.transcript import TRANSCRIPT, load_transcript

        with self._running:
            ctx, agent = self._parts.ctx, self._parts.agent
            found = next((info for info in other_sessions(self._parts, self.loaded) if info.id == session_id), None)
            if found is None:
                raise ConfigError(f"there is no other saved session {session_id!r} in this workspace")
            saved = load_transcript(found.dir / TRANSCRIPT)
            agent.rewound(saved.messages, agent.session_turns)  # a ConfigError when they are not chat messages
            ctx.tasks = list(saved.tasks)
            if agent.transcript is not None:
                agent.transcript.write("history", messages=agent.history, reason=f"resumed session {found.id}")
            return len(agent.history) - 1

    def ask_small(self, question: str, max_tokens: int = 256) -> str:
        """One question to the small model (the main one without `[models] small`), answered without tools or
        history, its usage counted as a chore's: the model vote between attempts (batch/attempts.py) uses it."""
        from sneakycode.agent.messages import UserMessage

        with self._running:
            agent = self._parts.agent
            agent.cancel.clear()
            model, name = (agent.small.model, agent.small.name) if agent.small is not None else (agent.model,
                                                                                                 agent.model_name)
            message: UserMessage = {"role": "user", "content": question}
            reply = model.complete([message], [], max_tokens=max_tokens, cancel=agent.cancel)
            agent.account_chore(reply.usage, name)
            return reply.content or ""

    def set_goal(self, command: str | None, files: list[str] | None = None) -> None:
        """From the next request on, work until `command` passes (a goal, api/goal.py; `files`: the check's files,
        default those it names); None drops the goal. A ConfigError for a command or files that cannot work."""
        from dataclasses import replace

        from sneakycode.api.goal import check_goal_options

        chosen = replace(self.options, until=command, until_files=files if command is not None else None)
        check_goal_options(chosen)
        with self._running:
            self.options = chosen

    def set_model(self, name: str, role: str = "main") -> None:
        """Go on with model `name` in `role` ("main" or "small") on the same server and conversation. The model
        is bound as at start-up (api/binding.py): its window and reply cap, its price, whether it takes images,
        the edit tool its family is trained on (with the system prompt that names it). A ConfigError, with the
        session unchanged, when it cannot run: e.g. no price for it while `max_cost` is set.
        `role="small"` switches the small model (on its own server when `[models.small]` names one), which
        runs compaction summaries and the explore subagent from then on."""
        from sneakycode.api.binding import ModelBinding, close_model

        if role not in ("main", "small"):
            raise ValueError(f"role must be 'main' or 'small', not {role!r}")
        with self._running:  # between requests, never in the middle of one
            parts, agent = self._parts, self._parts.agent
            assert parts.models is not None
            binding = ModelBinding.for_model(name, "small" if role == "small" else "main", parts.models)
            binding.charge_to(agent.spending)
            if role == "small":
                old_small = agent.use_small(binding.bound())
                if old_small is not None:
                    close_model(old_small.model)
                parts.small_config = binding.config
                return
            self._use_main(binding)

    def _use_main(self, binding: ModelBinding) -> ModelConfig:
        """Run the session's requests on `binding` from now on (the caller holds the request lock); returns the
        config of the model it replaced."""
        from sneakycode.api.assembly import session_tools
        from sneakycode.api.binding import close_model

        parts, agent = self._parts, self._parts.agent
        replaced = parts.config
        close_model(agent.use_model(binding.bound()).model)
        parts.ctx.supports_images = binding.supports_images
        parts.subagents.available = binding.tools
        tools = session_tools(binding.tools, self.loaded, parts.subagents, parts.skills, tuple(self.options.tools))
        agent.set_tools((*tools, *parts.mcp.tools()), reason=f"model switched to {binding.name}")
        parts.ctx.output_budget = agent.context.output_budget(agent.fixed_tokens())
        parts.config = binding.config
        return replaced

    def switch_model(self, name: str, role: str = "main") -> None:
        """The older name of `set_model`."""
        self.set_model(name, role)
