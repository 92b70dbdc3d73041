""""Always" at an approval, for every face that asks a person (the terminal's `a`, an editor's "allow always"):
the allow rules it stands for, how they join the running session, and what "always" remembers when no rule
can approve the call (an ask rule covers it).

The rule is the narrowest one that still means "this kind of call": for a command, the program and its
subcommand as a prefix (`run_command(pytest:*)`, `run_command(git commit:*)`), for a file tool the path,
for a fetch the domain. A suggestion is kept only when the permission decision itself confirms that it
approves the call in hand; otherwise the gate's exact rule is offered instead.
"""

from __future__ import annotations

import re
import shlex
from copy import deepcopy
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings
from sneakycode.permissions.decide import Decision, decide
from sneakycode.permissions.gate import PreparedCall, suggested_rules
from sneakycode.tools.registry import get_tool

SESSION_ORIGIN = "approved in this session"
# A second word that reads like a subcommand (`git commit`, `npm test`, `cargo build`), not a path or flag.
SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
# Programs that run whatever code they are given: a prefix of the program alone approves everything.
INTERPRETERS = frozenset({"python", "node", "bash", "sh", "zsh", "dash", "ruby", "perl", "php", "deno", "bun", "lua"})


def session_key(tool_name: str, arguments: dict[str, Any]) -> str:
    """What "always" approves for the rest of the session when no rule can (an ask rule covers the call):
    the same tool, or for a tool that runs a command line, the same command line."""
    found = get_tool(tool_name)
    if found is not None and found.command is not None:
        return f"{tool_name}({arguments.get(found.command, '')})"
    return tool_name


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
