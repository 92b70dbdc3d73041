"""Trust: what a repository's own `.sneakycode/config.toml` may do before the user trusted the workspace,
and where that trust is recorded (the user's state folder, with the file's hash)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from sneakycode.config.settings import Settings, default_state_dir, user_config_path
from sneakycode.config.sources import env_layer, flatten, read_toml, set_dotted

TRUST_FILE = "trusted-workspaces.json"
# Always kept: a repository may always ask for more caution.
TIGHTENING_KEYS = frozenset(
    {"permissions.deny", "permissions.ask", "tools.shell.denied_commands", "tools.shell.env_strip"}
)
# Kept: they neither loosen a permission nor send anything anywhere new.
HARMLESS_KEYS = frozenset(
    {
        "model", "context_window", "request_timeout", "max_retries", "retry_backoff", "tool_calls", "tools.edit_format",
        "supports_images",
    }
)
LOWER_IS_TIGHTER = frozenset(
    {
        "max_file_size_bytes", "max_output_bytes", "max_turns", "tools.shell.default_timeout",
        "tools.shell.max_timeout", "tools.web.timeout", "tools.web.max_bytes",
    }
)
# From the strictest value to the loosest.
STRICTNESS: dict[str, tuple[Any, ...]] = {
    "permissions.mode": ("plan", "default", "auto-edit", "yolo"),
    "tools.shell.sandbox": ("bwrap", "auto", "off"),
    "tools.shell.sandbox_network": (False, True),
    # Reaching private addresses is what a prompt-injected page would want (a metadata service, an admin port).
    "tools.web.allow_private": (False, True),
}


def untrusted_project_layer(
    project: Mapping[str, Any], current: Settings, base: Path
) -> tuple[dict[str, Any], list[str]]:
    """What an untrusted project file may set (whatever tightens `current`, the user's own settings), and one
    line for each thing it asked for and does not get. Every key not known to be safe needs trust, so a key
    added later (servers, hooks, commands that run programs) is held back until someone decides otherwise."""
    kept: dict[str, Any] = {}
    ignored: list[str] = []
    for dotted, value in flatten(project).items():
        now = _current(current, dotted)
        if dotted in TIGHTENING_KEYS or dotted in HARMLESS_KEYS:
            allowed = True
        elif dotted in LOWER_IS_TIGHTER:
            allowed = value <= now
        elif dotted in STRICTNESS:
            order = STRICTNESS[dotted]
            allowed = order.index(value) <= order.index(now)
        elif dotted == "tools.enabled":
            # Offering fewer tools only narrows what the model can do; one the user's settings left out stays out.
            allowed = isinstance(value, list) and (now is None or set(value) <= set(now))
        elif dotted == "workspace_root":
            allowed = inside(base, (base / Path(str(value)).expanduser()).resolve())
        else:
            allowed = not value and value is not None and now in ([], None)
        if allowed:
            set_dotted(kept, dotted, value)
        else:
            shown = json.dumps(value, ensure_ascii=False, default=str)
            ignored.append(f"{dotted} = {shown if len(shown) <= 120 else shown[:117] + '...'}")
    return kept, ignored


def _current(settings: Settings, dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        value = getattr(value, part, None)
    return value.value if isinstance(value, StrEnum) else value


def inside(base: Path, path: Path) -> bool:
    return path == base or base in path.parents


def trust_state_dir_of(user_layers: list[tuple[str, Mapping[str, Any]]]) -> Path:
    """The state folder as the user (not the project) configures it: where trust is recorded."""
    chosen: str | None = None
    for _, data in user_layers:
        if isinstance(data.get("state_dir"), str):
            chosen = data["state_dir"]
    return Path(chosen).expanduser() if chosen else default_state_dir()


def _trust_records(state: Path) -> dict[str, str]:
    try:
        data = json.loads((state / TRUST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def is_trusted(base: Path, raw_project: bytes, state: Path) -> bool:
    """True when the user trusted this workspace's project file exactly as it is now."""
    return _trust_records(state).get(str(base)) == hashlib.sha256(raw_project).hexdigest()


def record_trust(base: Path, raw_project: bytes | None, state: Path) -> None:
    """Trust this workspace's project file as it is now (None: forget the workspace). A changed file is
    untrusted again, because its hash no longer matches."""
    records = _trust_records(state)
    if raw_project is None:
        records.pop(str(base), None)
    else:
        records[str(base)] = hashlib.sha256(raw_project).hexdigest()
    state.mkdir(parents=True, exist_ok=True)
    tmp = state / f".{TRUST_FILE}.tmp"
    tmp.write_text(json.dumps(records, indent=2, sort_keys=True), encoding="utf-8")
    tmp.chmod(0o600)
    tmp.replace(state / TRUST_FILE)


def trust_state_dir(environ: Mapping[str, str] | None = None, user_config: Path | None = None) -> Path:
    """Where trust is recorded for this user (their config and environment decide, never a project)."""
    user_path = user_config or user_config_path()
    env = os.environ if environ is None else environ
    return trust_state_dir_of([(str(user_path), read_toml(user_path)), *env_layer(env)])
