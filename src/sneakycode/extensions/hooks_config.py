"""Which hooks apply: the `hooks` settings (TOML), plus the `hooks` of a workspace's `.claude/settings.json`
in Claude Code's own format, read only once the user trusted that file (it comes with the repository and
runs programs, like the hooks of an untrusted `.sneakycode/config.toml`, which the config layers drop).

Claude Code's format::

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, get_args

from pydantic import ValidationError

from sneakycode.config import CONFIG_FILE_LIMIT, LoadedSettings, read_regular_file
from sneakycode.config.settings import HookCommand
from sneakycode.config.trust import CLAUDE_SETTINGS
from sneakycode.errors import ConfigError

HookEvent = Literal[
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop", "PreCompact",
    "Notification", "SessionEnd",
]
"""Claude Code's hook events that SneakyCode runs: the one list every runner, point and loader uses.
`config.settings.HooksSettings` has one field per event (so pydantic refuses an unknown one in TOML); a test
keeps the two the same."""
EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)


def is_hook_event(name: str) -> TypeGuard[HookEvent]:
    return name in EVENTS


@dataclass(frozen=True)
class ConfiguredHook:
    """One hook command for one event, and where it was configured (shown when it fails)."""

    event: HookEvent
    matcher: str
    command: str
    timeout: int
    source: str


@dataclass
class HookSet:
    """Every configured hook by event, and what the user should be told about hooks that were not loaded."""

    by_event: dict[HookEvent, list[ConfiguredHook]] = field(default_factory=dict)
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
    # The repository's own file, the one its trust record covers (not one under a narrowed workspace_root).
    path = (loaded.base or loaded.workspace) / CLAUDE_SETTINGS
    try:
        raw = read_regular_file(path, CONFIG_FILE_LIMIT)
    except ConfigError as exc:
        found.notices.append(f"hooks of {exc}")
        return found
    if raw is None:
        return found
    try:
        claude = _claude_hooks(raw, str(path), found.notices)
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


def _configured(event: HookEvent, spec: HookCommand, source: str) -> ConfiguredHook:
    return ConfiguredHook(event, spec.matcher, spec.command, spec.timeout, source)


def _claude_hooks(raw: bytes, source: str, notices: list[str]) -> list[ConfiguredHook]:
    """The hook commands of a Claude Code settings file; a ConfigError names what is malformed. An event this
    version does not have (a newer Claude Code's, or a misspelt one) is a notice: the file's other hooks
    still run, as they do in Claude Code."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{source}: not valid JSON ({exc})") from None
    hooks: Any = data.get("hooks", {}) if isinstance(data, dict) else {}
    if not isinstance(hooks, dict):
        raise ConfigError(f"{source}: `hooks` must be an object of events")
    found: list[ConfiguredHook] = []
    for event, groups in hooks.items():
        if not is_hook_event(event):
            notices.append(
                f"{source}: hooks.{event} is not a hook event SneakyCode has, so its hooks do not run "
                f"(the events are {', '.join(EVENTS)})"
            )
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
