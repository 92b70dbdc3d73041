""""Always" at an approval, for a face: the allow rules it stands for (permissions/always.py decides which),
and where they live: this session, the project's config or the user's config.

Config files are edited with tomlkit (config/toml_edit.py) so the user's comments and layout survive. A project
file is covered by a trust hash (config/trust.py), so saving to it changes that hash: when the workspace was
trusted before (or its files held nothing back waiting for trust), the user's own answer re-records trust;
otherwise it stays untrusted, and the rule applies there only once the user runs `sneakycode trust`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from sneakycode.config import PROJECT_CONFIG, record_trust, repository_files, trust_state_dir, user_config_path
from sneakycode.config.toml_edit import append_unique
from sneakycode.config.trust import is_trusted
from sneakycode.permissions import always
from sneakycode.permissions.always import prefix_rule
from sneakycode.tools.base import ToolContext

__all__ = ["PROJECT_CONFIG", "Saved", "add_allow_rules", "allow_for_session", "always_rules", "prefix_rule",
           "save_always", "user_config_path"]

Where = Literal["project", "user"]


@dataclass(frozen=True)
class Saved:
    """Where the rules went and, when they do not apply to new sessions yet, why."""

    path: Path
    note: str | None = None


def always_rules(ctx: ToolContext, tool_name: str, arguments: dict[str, Any]) -> list[str]:
    """The allow rules "always" would add for this call in the session of `ctx` (the context an approver is
    made for): prefixes for commands when they approve it, else the gate's narrowest rules."""
    return always.always_rules(tool_name, arguments, ctx.loaded, ctx.workspace.root)


def allow_for_session(ctx: ToolContext, rules: list[str]) -> None:
    """The rules join the running session's settings: every later decision (subagents' too) sees them."""
    always.allow_for_session(ctx.loaded, rules)


def add_allow_rules(path: Path, rules: list[str]) -> None:
    """Append the rules to `[permissions] allow` in the TOML file at `path` (created if missing), keeping
    everything else in it byte for byte. The project's file comes with the repository: it is read as the
    settings are (a regular file, bounded), so one swapped for a FIFO since startup is a ConfigError."""
    append_unique(path, ("permissions",), "allow", rules)


def save_always(ctx: ToolContext, rules: list[str], where: Where, user_config: Path | None = None) -> Saved:
    """Save the rules to the project's `.sneakycode/config.toml` (keeping the workspace trusted if it was: the
    user made this change, so it needs no second consent) or to the user's config. A ConfigError, OSError or
    ValueError when the file cannot be read or written."""
    from sneakycode.api.trust import trust_requests

    if where == "user":
        path = user_config or user_config_path()
        add_allow_rules(path, rules)
        return Saved(path)
    loaded = ctx.loaded
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
