"""What a session offers, listed for a face: its own slash commands and skills, its subagents, its MCP
servers, the models its server lists, its effective settings with where each came from, and its background
jobs (one of which the person may end)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts
    from sneakycode.config import LoadedSettings
    from sneakycode.extensions.mcp.manager import ServerRow as McpServerInfo  # one row type: the manager's own

MODELS_TIMEOUT = 5.0


@dataclass(frozen=True)
class SubagentInfo:
    """A subagent the task tool can run: `tools` None means all tools; `model` None the session's."""

    name: str
    description: str
    source: str
    tools: tuple[str, ...] | None
    model: str | None


@dataclass(frozen=True)
class SkillInfo:
    """A skill the model may load (and `/NAME` runs directly): `folder` as the model names it."""

    name: str
    description: str
    folder: str


@dataclass(frozen=True)
class SettingInfo:
    """One effective setting: its dotted key, its value, and the layer it came from."""

    key: str
    value: Any
    origin: str


class CatalogVerbs:
    """Mixed into `Session`: listings."""

    _parts: Parts
    loaded: LoadedSettings
    _running: threading.Lock

    def commands(self) -> list[tuple[str, str]]:
        """(name, one line of help) for every `/NAME` that `run` expands: custom commands, skills, MCP prompts."""
        return self._parts.extensions.slash_entries()

    def has_command(self, name: str) -> bool:
        """Whether `/name` is a custom command, skill or MCP prompt of the session (what `run` expands)."""
        return self._parts.extensions.find(name) is not None

    def skills(self) -> list[SkillInfo]:
        return [SkillInfo(s.name, s.description, s.folder) for s in self._parts.extensions.skills.skills]

    def subagents(self) -> list[SubagentInfo]:
        return [SubagentInfo(d.name, d.description, d.source, None if d.tools is None else tuple(d.tools), d.model)
                for d in self._parts.subagents.definitions.values()]

    def mcp_servers(self) -> list[McpServerInfo]:
        return self._parts.mcp.rows()

    def offered_models(self, timeout: float = MODELS_TIMEOUT) -> list[str]:
        """The model ids the main model's server lists (`GET /models`); an OSError or ValueError when it does
        not answer so."""
        from sneakycode.agent.model.providers import list_models

        config = self._parts.config
        return list_models(config.base_url, config.api_key, timeout)

    def settings_report(self, defaults: bool = False) -> list[SettingInfo]:
        """Every setting some layer set (with `defaults`, every setting), sorted by key, with its layer; a model
        switched with `set_model` shows as this session's."""
        from sneakycode.config.sources import flatten

        values = flatten(self.loaded.settings.model_dump(mode="json"))
        switched = self._parts.config.model if self._parts.config.model != values.get("model") else None
        if switched is not None:
            values["model"] = switched
        found = []
        for key, value in sorted(values.items()):
            origin = ("switched with /model in this session" if key == "model" and switched is not None
                      else self.loaded.origin_of(key))
            if origin != "default" or defaults:
                found.append(SettingInfo(key, value, origin))
        return found

    def kill_job(self, job_id: int) -> dict[str, object] | None:
        """End background job `job_id` (process group, SIGTERM then SIGKILL) and return its summary; None when
        the session has no such job."""
        jobs = self._parts.ctx.session.jobs
        if not jobs.started:
            return None
        table = jobs.table()
        found = table.get(job_id)
        if found is None:
            return None
        table.kill(found)
        return found.summary()
