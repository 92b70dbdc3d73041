""""Always" at an approval: where the allow rule it stands for lives (this session, the project's config, the
user's config). Which rule that is, and how it joins the session, is permissions/always.py (shared with the
editor face).

Config files are edited with tomlkit so the user's comments and layout survive. A project file is covered
by a trust hash (config/trust.py), so saving to it changes that hash: when the workspace was trusted before
(or its files held nothing back waiting for trust), the user's own answer re-records trust; otherwise it
stays untrusted, and the rule applies there only once the user runs `sneakycode trust`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sneakycode.config import (
    PROJECT_CONFIG,
    LoadedSettings,
    record_trust,
    repository_files,
    trust_state_dir,
)
from sneakycode.config.toml_edit import append_unique
from sneakycode.config.trust import is_trusted
from sneakycode.permissions.always import allow_for_session, always_rules, prefix_rule

__all__ = ["Saved", "add_allow_rules", "allow_for_session", "always_rules", "prefix_rule", "save_to_project",
           "save_to_user"]

def add_allow_rules(path: Path, rules: list[str]) -> None:
    """Append the rules to `[permissions] allow` in the TOML file at `path` (created if missing), keeping
    everything else in it byte for byte. The project's file comes with the repository: it is read as the
    settings are (a regular file, bounded), so one swapped for a FIFO since startup is a ConfigError."""
    append_unique(path, ("permissions",), "allow", rules)


@dataclass(frozen=True)
class Saved:
    """Where the rules went and, when they do not apply to new sessions yet, why."""

    path: Path
    note: str | None = None


def save_to_project(loaded: LoadedSettings, rules: list[str]) -> Saved:
    """Save to the workspace's `.sneakycode/config.toml` and keep the workspace trusted if it was: the user
    made this change, so it does not need their consent a second time."""
    from sneakycode.faces.cli.trust_command import trust_requests

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
