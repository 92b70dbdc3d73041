"""Which hooks apply: the `hooks` settings (TOML), plus the `hooks` of a workspace's `.claude/settings.json`
in Claude Code's own format, read only once the user trusted that file (it comes with the repository and
runs programs, like the hooks of an untrusted `.sneakycode/config.toml`, which the config layers drop).

Claude Code's format::

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sneakycode.config import CONFIG_FILE_LIMIT, LoadedSettings, read_regular_file
from sneakycode.config.settings import HookCommand, HooksSettings
from sneakycode.config.trust import CLAUDE_SETTINGS
from sneakycode.errors import ConfigError

EVENTS = tuple(HooksSettings.model_fields)


@dataclass(frozen=True)
class ConfiguredHook:
    """One hook command for one event, and where it was configured (shown when it fails)."""

    event: str
    matcher: str
    command: str
    timeout: int
    source: str


@dataclass
class HookSet:
    """Every configured hook by event, and what the user should be told about hooks that were not loaded."""

    by_event: dict[str, list[ConfiguredHook]] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(hooks) for hooks in self.by_event.values())


def load_hooks(loaded: LoadedSettings, *, trust_project: bool = False) -> HookSet:
    """The configured hooks, then those of `.claude/settings.json` when it is trusted (or `trust_project`)."""
    found = HookSet()
    for event in EVENTS:
        for spec in getattr(loaded.settings.hooks, event):
            source = loaded.origin_of(f"hooks.{event}")
            found.by_event.setdefault(event, []).append(_configured(event, spec, source))
    path = loaded.workspace / CLAUDE_SETTINGS
    try:
        raw = read_regular_file(path, CONFIG_FILE_LIMIT)
    except ConfigError as exc:
        found.notices.append(f"hooks of {exc}")
        return found
    if raw is None:
        return found
    try:
        claude = _claude_hooks(raw, str(path))
    except ConfigError as exc:
        found.notices.append(f"{exc}; its hooks were not loaded")
        return found
    if not claude:
        return found
    if not (trust_project or loaded.trusted):
        found.notices.append(
            f"{path} comes with the repository and asks to run {len(claude)} hook command(s); they do not run "
            "until you trust this workspace: read the file, then run `sneakycode trust` (or pass --trust-project "
            "for one run)."
        )
        return found
    for hook in claude:
        found.by_event.setdefault(hook.event, []).append(hook)
    return found


def _configured(event: str, spec: HookCommand, source: str) -> ConfiguredHook:
    return ConfiguredHook(event, spec.matcher, spec.command, spec.timeout, source)


def _claude_hooks(raw: bytes, source: str) -> list[ConfiguredHook]:
    """The hook commands of a Claude Code settings file; a ConfigError names what is malformed."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{source}: not valid JSON ({exc})") from None
    hooks: Any = data.get("hooks", {}) if isinstance(data, dict) else {}
    if not isinstance(hooks, dict):
        raise ConfigError(f"{source}: `hooks` must be an object of events")
    found: list[ConfiguredHook] = []
    for event, groups in hooks.items():
        if event not in EVENTS:  # an event of a newer Claude Code: its hooks have nothing to run on here
            continue
        if not isinstance(groups, list):
            raise ConfigError(f"{source}: hooks.{event} must be a list of {{matcher, hooks}} objects")
        for group in groups:
            matcher = group.get("matcher", "") if isinstance(group, dict) else None
            commands = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(matcher, str) or not isinstance(commands, list):
                raise ConfigError(f"{source}: each hooks.{event} entry needs `matcher` text and a `hooks` list")
            for command in commands:
                if not isinstance(command, dict) or command.get("type", "command") != "command":
                    raise ConfigError(f"{source}: hooks.{event}: only hooks of type `command` are supported")
                try:
                    spec = HookCommand.model_validate(
                        {"matcher": matcher, **{k: v for k, v in command.items() if k != "type"}}
                    )
                except ValidationError as exc:
                    raise ConfigError(f"{source}: hooks.{event}: {exc.errors()[0]['msg']}") from None
                found.append(_configured(event, spec, source))
    return found
