""""Always" at an approval: the allow rule it stands for, and where it lives (this session, the project's
config, the user's config).

The rule is the narrowest one that still means "this kind of call": for a command, the program and its
subcommand as a prefix (`run_command(pytest:*)`, `run_command(git commit:*)`), for a file tool the path,
for a fetch the domain. A suggestion is kept only when the permission decision itself confirms that it
approves the call in hand; otherwise the gate's exact rule is offered instead.

Config files are edited with tomlkit so the user's comments and layout survive. A project file is covered
by a trust hash (config/trust.py), so saving to it changes that hash: when the workspace was trusted before
(or its files held nothing back waiting for trust), the user's own answer re-records trust; otherwise it
stays untrusted, and the rule applies there only once the user runs `sneakycode trust`.
"""

from __future__ import annotations

import os
import re
import shlex
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Array, Table

from sneakycode.config import (
    CONFIG_FILE_LIMIT,
    PROJECT_CONFIG,
    LoadedSettings,
    read_regular_file,
    record_trust,
    repository_files,
    trust_state_dir,
)
from sneakycode.config.trust import is_trusted
from sneakycode.permissions.decide import Decision, decide
from sneakycode.permissions.gate import PreparedCall, suggested_rules
from sneakycode.tools.registry import get_tool

SESSION_ORIGIN = "approved in this session"
# A second word that reads like a subcommand (`git commit`, `npm test`, `cargo build`), not a path or flag.
SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
# Programs that run whatever code they are given: a prefix of the program alone approves everything.
INTERPRETERS = frozenset({"python", "node", "bash", "sh", "zsh", "dash", "ruby", "perl", "php", "deno", "bun", "lua"})


def prefix_rule(tool_name: str, command: str) -> str | None:
    """`TOOL(PROGRAM SUBCOMMAND:*)` for one simple command, or None when it has no plain program word."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or "=" in words[0]:
        return None
    if Path(words[0]).name.rstrip("0123456789.") in INTERPRETERS:
        # `python:*` would allow any program at all: only `python -m MODULE` makes a prefix worth keeping.
        if len(words) > 2 and words[1] == "-m" and SUBCOMMAND.fullmatch(words[2].replace("_", "-")):
            return f"{tool_name}({' '.join(words[:3])}:*)"
        return None
    kept = words[:2] if len(words) > 1 and SUBCOMMAND.fullmatch(words[1]) else words[:1]
    return f"{tool_name}({' '.join(kept)}:*)"


def always_rules(tool_name: str, arguments: dict[str, Any], loaded: LoadedSettings, root: Path) -> list[str]:
    """The allow rules "always" would add for this call: prefixes for commands when they approve it,
    else the gate's narrowest rules (the exact command, the path, the domain)."""
    found = get_tool(tool_name)
    decision = decide(found or tool_name, arguments, loaded, root)
    exact = suggested_rules(PreparedCall(tool_name, arguments, found), decision)
    if found is None or found.command is None:
        return exact
    commands = decision.commands or [str(arguments.get(found.command, ""))]
    prefixes = list(dict.fromkeys(rule for rule in (prefix_rule(tool_name, c) for c in commands) if rule))
    if prefixes and len(prefixes) == len(commands) and _approves(prefixes, tool_name, arguments, loaded, root):
        return prefixes
    return exact


def _approves(rules: list[str], tool_name: str, arguments: dict[str, Any], loaded: LoadedSettings, root: Path) -> bool:
    trial = deepcopy(loaded.settings)
    trial.permissions.allow = [*trial.permissions.allow, *rules]
    return decide(tool_name, arguments, trial, root).decision is Decision.ALLOW


def allow_for_session(loaded: LoadedSettings, rules: list[str]) -> None:
    """Add the rules to the running session's settings: every later decision (subagents' too) sees them."""
    allow = loaded.settings.permissions.allow
    for rule in rules:
        if rule not in allow:
            allow.append(rule)
            loaded.rule_origins.setdefault("permissions.allow", []).append((rule, SESSION_ORIGIN))


def add_allow_rules(path: Path, rules: list[str]) -> None:
    """Append the rules to `[permissions] allow` in the TOML file at `path` (created if missing), keeping
    everything else in it byte for byte."""
    # The project's file comes with the repository: read it as the settings are read (a regular file, bounded),
    # so one swapped for a FIFO since startup is a ConfigError, not a frozen prompt.
    raw = read_regular_file(path, CONFIG_FILE_LIMIT)
    document = tomlkit.parse(raw.decode("utf-8") if raw is not None else "")
    permissions = document.get("permissions")
    if not isinstance(permissions, Table):
        permissions = tomlkit.table()
        document["permissions"] = permissions
    allow = permissions.get("allow")
    if not isinstance(allow, Array):
        allow = tomlkit.array()
        permissions["allow"] = allow
    for rule in rules:
        if rule not in allow:
            allow.append(rule)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(tomlkit.dumps(document), encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class Saved:
    """Where the rules went and, when they do not apply to new sessions yet, why."""

    path: Path
    note: str | None = None


def save_to_project(loaded: LoadedSettings, rules: list[str]) -> Saved:
    """Save to the workspace's `.sneakycode/config.toml` and keep the workspace trusted if it was: the user
    made this change, so it does not need their consent a second time."""
    from sneakycode.cli.trust_command import trust_requests

    base = loaded.base or loaded.workspace
    state = trust_state_dir()
    # Trusting now grants nothing the user did not already have when the files held nothing back from them
    # (`trust_requests` is what the trust question would list); --trust-project alone is not consent to record.
    held_nothing = not loaded.trusted and not trust_requests(loaded)
    trusted_before = not repository_files(base) or is_trusted(base, state) or held_nothing
    path = base / PROJECT_CONFIG
    add_allow_rules(path, rules)
    if trusted_before:
        record_trust(base, state)
        return Saved(path)
    return Saved(path, "this workspace is not trusted, so its allow rules apply once you run `sneakycode trust`")


def save_to_user(rules: list[str], path: Path) -> Saved:
    add_allow_rules(path, rules)
    return Saved(path)
