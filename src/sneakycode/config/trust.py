"""Trust: what a repository's own files may ask for before the user trusted the workspace, and where that
trust is recorded (the user's state folder, with one hash over every such file, so changing any of them
asks again). `.sneakycode/config.toml` may only tighten until then; `.mcp.json` servers do not start."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from sneakycode.config.network import effective_network, expand_hosts
from sneakycode.config.settings import Settings, default_state_dir, user_config_path
from sneakycode.config.sources import (
    CONFIG_FILE_LIMIT,
    PROJECT_CONFIG,
    env_layer,
    flatten,
    read_regular_file,
    read_toml,
    set_dotted,
)

TRUST_FILE = "trusted-workspaces.json"
MCP_JSON = Path(".mcp.json")
CLAUDE_SETTINGS = Path(".claude") / "settings.json"
# Every file a repository ships that asks SneakyCode for something (settings, servers, hooks: programs to
# run); one trust record covers them all.
REPOSITORY_FILES: tuple[Path, ...] = (PROJECT_CONFIG, MCP_JSON, CLAUDE_SETTINGS)
# Always kept: a repository may always ask for more caution.
TIGHTENING_KEYS = frozenset(
    {"permissions.deny", "permissions.ask", "tools.shell.denied_commands", "tools.shell.env_strip"}
)
# Kept: they neither loosen a permission nor send anything anywhere new.
HARMLESS_KEYS = frozenset(
    {
        "context_window", "request_timeout", "max_retries", "retry_backoff", "tool_calls",
        "stall_seconds", "stall_timeout", "stream_idle_timeout",
        "tools.edit_format", "mcp.max_tool_chars", "supports_images",
    }
    # Skills are prompts that come with the repository anyway: switching them or sizing their list is harmless.
    | {"skills.enabled", "skills.max_prompt_chars"}
    # Batch pacing and sizing: they slow or size the runner, and run nothing.
    | {"batch.requests_per_minute", "batch.tokens_per_minute", "batch.num_cpus", "batch.task_timeout"}
    # The repository map reads only what the read tools may read, and sizes one message.
    | {"repo_map.enabled", "repo_map.max_tokens", "repo_map.min_window", "repo_map.max_file_bytes",
       "repo_map.build_seconds"}
)  # fmt: skip
# Where the model's requests (the whole conversation) go and which secret goes with them: never from an
# untrusted repository, for any role (main or small).
REDIRECTING_KEYS = frozenset(
    {"provider", "base_url", "api_key_env", "models.small.base_url", "models.small.api_key_env",
     "models.fallback.base_url", "models.fallback.api_key_env"}
    # Where web_search sends the model's queries, and which secret goes with them: the user's choice alone.
    | {"tools.web.search.backend", "tools.web.search.url", "tools.web.search.api_key_env"}
)
# Which model each role runs on: the user pays for it on their key, so an untrusted repository may only name
# the model the user's own settings already choose (a pricier one waits for trust).
MODEL_CHOICE_KEYS = frozenset({"model", "models.small", "models.small.model", "models.fallback",
                               "models.fallback.model"})
# `hooks` is left unclassified on purpose: hooks run programs, so an untrusted project's hooks are dropped.
# Servers are programs to run and places to send data: held back, except a server turned off.
SERVERS_PREFIX = ("mcp.servers.", "lsp.servers.")
# tools.shell.max_jobs: fewer jobs at once only narrows what commands may do. A budget (`budgets.*`) only ends
# a run sooner; one the user left unset (no limit) a project may set.
LOWER_IS_TIGHTER = frozenset(
    {
        "max_file_size_bytes", "max_output_bytes", "max_turns", "tools.shell.default_timeout",
        "tools.shell.max_timeout", "diagnostics.timeout", "tools.shell.max_jobs", "tools.web.timeout",
        "tools.web.max_bytes", "tools.web.search.timeout", "tools.web.search.max_results", "budgets.max_tokens",
        "budgets.max_cost", "budgets.timeout",
    }
)  # fmt: skip
# Where sandboxed commands may connect: a project narrows (a stricter mode, fewer hosts or ports), never widens.
NETWORK_KEYS = frozenset({"tools.shell.network", "tools.shell.allowed_hosts", "tools.shell.allowed_ports"})
# From the strictest value to the loosest. `diagnostics.enabled` runs no program (checkers are
# `diagnostics.checkers`, which an untrusted file never sets: it is not listed here), but a project may only
# turn it off, so it never overrides a user who turned it off.
STRICTNESS: dict[str, tuple[Any, ...]] = {
    "diagnostics.enabled": (False, True),
    "lsp.enabled": (False, True),  # a language server is a program: a project may only turn them off
    # Checkpoints are the user's way back after a command the model ran went wrong, so a repository may turn
    # them on but not off: a project that wanted its own destructive commands to stick would ask for exactly that.
    "checkpoints.enabled": (True, False),
    "permissions.mode": ("plan", "default", "auto-edit", "yolo"),
    "tools.shell.sandbox": ("bwrap", "auto", "off"),
    "tools.shell.sandbox_network": (False, True),
    # Reaching private addresses is what a prompt-injected page would want (a metadata service, an admin port).
    "tools.web.allow_private": (False, True),
    # Telemetry sends the session's data somewhere: a repository may turn it off, never on (its endpoint and
    # headers are not listed anywhere, so they are held back like any unknown key), nor add content to it.
    "telemetry.enabled": (False, None, True),
    "telemetry.include_content": (False, True),
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
        if dotted in REDIRECTING_KEYS:
            allowed = False
        elif dotted in MODEL_CHOICE_KEYS:
            allowed = value == _model_name(_current(current, dotted.removesuffix(".model")))
        elif dotted == "models.small.context_window":
            # The window of the user's own small model (named again, so the table stands on its own); with none
            # configured there is nothing to size.
            small = _model_name(_current(current, "models.small"))
            allowed = small is not None
            if allowed:
                set_dotted(kept, "models.small.model", small)
        elif dotted.startswith(SERVERS_PREFIX):
            allowed = dotted.endswith(".enabled") and value is False
        elif dotted in TIGHTENING_KEYS or dotted in HARMLESS_KEYS:
            allowed = True
        elif dotted in LOWER_IS_TIGHTER:
            number = isinstance(value, int | float) and not isinstance(value, bool)
            allowed = number and (now is None or value <= now)
        elif dotted in NETWORK_KEYS:
            allowed = _narrows_network(dotted, value, current)
        elif dotted in STRICTNESS:
            order = STRICTNESS[dotted]
            allowed = order.index(value) <= order.index(now)
        elif dotted == "tools.enabled":
            # Offering fewer tools only narrows what the model can do; one the user's settings left out stays out.
            allowed = isinstance(value, list) and (now is None or set(value) <= set(now))
        elif dotted.startswith("pricing."):
            # A price counts against --max-cost: a higher one (or one for an unpriced model) only tightens it.
            allowed = _price_not_lower(value, now)
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


def _narrows_network(dotted: str, value: Any, current: Settings) -> bool:
    """Whether a project's network setting only narrows the user's: a mode no looser than the effective one,
    hosts and ports within the user's (hosts named where the user's network is fully on narrow it too)."""
    user = effective_network(current.tools.shell)
    if dotted == "tools.shell.network":
        order = ("off", "allowlist", "on")
        return value in order and order.index(value) <= order.index(user.mode)
    if not isinstance(value, list):
        return False
    if dotted == "tools.shell.allowed_ports":
        return set(value) <= set(user.ports)
    return user.mode == "on" or set(expand_hosts([str(v) for v in value])) <= set(user.hosts)


def _model_name(chosen: Any) -> Any:
    """The model a role setting names: a bare name, or the `model` of a `[models.small]` table."""
    return chosen if chosen is None or isinstance(chosen, str) else getattr(chosen, "model", None)


def _price_not_lower(asked: Any, now: Any) -> bool:
    if not isinstance(asked, Mapping):
        return False
    if now is None:
        return True
    fields = ("input", "output", "cached_input")
    return all((asked.get(f) or 0) >= (getattr(now, f) or 0) for f in fields)


def _current(settings: Settings, dotted: str) -> Any:
    if dotted.startswith("pricing."):
        return settings.pricing.get(dotted.partition(".")[2])
    value: Any = settings
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
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


def repository_files(base: Path) -> list[tuple[Path, bytes]]:
    """The REPOSITORY_FILES present in `base`, with their bytes (a ConfigError when one is not a regular file)."""
    found = []
    for relative in REPOSITORY_FILES:
        data = read_regular_file(base / relative, CONFIG_FILE_LIMIT)
        if data is not None:
            found.append((relative, data))
    return found


def repository_digest(files: list[tuple[Path, bytes]]) -> str:
    """One hash over every repository file. A workspace with only its config file keeps the hash of that
    file alone, so trust recorded before `.mcp.json` was covered still holds."""
    if [path for path, _ in files] == [PROJECT_CONFIG]:
        return hashlib.sha256(files[0][1]).hexdigest()
    digest = hashlib.sha256()
    for path, data in files:
        digest.update(f"{path}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def is_trusted(base: Path, state: Path) -> bool:
    """True when the user trusted this workspace's repository files exactly as they are now."""
    files = repository_files(base)
    return bool(files) and _trust_records(state).get(str(base)) == repository_digest(files)


def record_trust(base: Path, state: Path, *, forget: bool = False) -> None:
    """Trust this workspace's repository files as they are now (`forget`: stop trusting it). A changed
    file is untrusted again, because the hash no longer matches."""
    records = _trust_records(state)
    files = repository_files(base)
    if forget or not files:
        records.pop(str(base), None)
    else:
        records[str(base)] = repository_digest(files)
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
