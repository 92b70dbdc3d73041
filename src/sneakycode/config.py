"""Layered settings: defaults < user TOML < project TOML < SNEAKYCODE_* environment < command-line flags.

Each field's description is its reference documentation: docs/config.md is generated from it.
Every layer is validated on its own first, so an unknown key or a wrong type is reported with the file or
variable it came from. Rule lists (`permissions.*`, `tools.shell.*_commands`) accumulate across layers, so a
project file cannot silently drop a user's deny rule; every other key is replaced by the later layer.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sneakycode.errors import ConfigError
from sneakycode.regular_files import NotRegularFile, OverLimit, read_regular


class PermissionMode(StrEnum):
    """How much runs without asking: every command line, flag and rule names these values."""

    DEFAULT = "default"  # ask for edits and commands
    AUTO_EDIT = "auto-edit"  # approve file edits, ask for commands
    PLAN = "plan"  # only the auto-approved (read-only) tools run
    YOLO = "yolo"  # approve every call no deny rule blocks


ENV_PREFIX = "SNEAKYCODE_"
CONFIG_FILE_LIMIT = 1 << 20
PROJECT_CONFIG = Path(".sneakycode") / "config.toml"
ACCUMULATING_KEYS = frozenset(
    {"permissions.allow", "permissions.ask", "permissions.deny"}
    | {f"tools.shell.{key}" for key in ("allowed_commands", "denied_commands", "env_keep", "env_strip")}
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


class ShellSettings(_Strict):
    allowed_commands: list[str] = Field(
        default_factory=list,
        description="Command prefixes run without asking; every part of a compound command must match.",
    )
    denied_commands: list[str] = Field(
        default_factory=list,
        description="Command prefixes that are refused wherever they appear in a command line.",
    )
    default_timeout: int = Field(30, ge=1, description="Seconds a command may run when the call gives none.")
    max_timeout: int = Field(600, ge=1, description="The largest timeout, in seconds, a call may ask for.")
    sandbox: Literal["auto", "bwrap", "off"] = Field(
        "auto", description="Run commands under bubblewrap: auto (when it works), bwrap (required), off."
    )
    sandbox_network: bool = Field(True, description="Whether sandboxed commands may use the network.")
    env_keep: list[str] = Field(
        default_factory=list,
        description="Globs (any case) of credential-like variables that commands get anyway (never a model key).",
    )
    env_strip: list[str] = Field(default_factory=list, description="Globs (any case) of more variables to strip.")


class ToolsSettings(_Strict):
    shell: ShellSettings = Field(default_factory=ShellSettings, description="run_command settings.")


class PermissionSettings(_Strict):
    mode: PermissionMode = Field(
        PermissionMode.DEFAULT,
        description="default (ask for edits and commands), auto-edit (approve edits), plan (read only), yolo.",
    )
    allow: list[str] = Field(default_factory=list, description="Rules `TOOL` or `TOOL(PATTERN)` approved.")
    ask: list[str] = Field(default_factory=list, description="Rules that always ask, even if allowed.")
    deny: list[str] = Field(default_factory=list, description="Rules that are always refused.")


class Settings(_Strict):
    workspace_root: str = Field(".", description="Folder all tool paths are relative to.")
    max_file_size_bytes: int = Field(1_048_576, ge=1, description="Largest file a tool reads or writes.")
    max_output_bytes: int = Field(65_536, ge=1024, description="Cap on any single tool result.")
    state_dir: str | None = Field(
        None, description="Where sessions, journals and saved outputs live (default: the user state dir)."
    )
    provider: str | None = Field(
        None, description="Model provider preset: groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom."
    )
    model: str | None = Field(None, description="Model name sent to the provider.")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, overriding the preset's.")
    api_key_env: str | None = Field(None, description="Environment variable that holds the API key.")
    context_window: int | None = Field(None, ge=1024, description="Model context size in tokens.")
    max_turns: int = Field(50, ge=1, description="Model turns before a run stops.")
    request_timeout: float = Field(120.0, gt=0, description="Seconds to wait for one model response.")
    max_retries: int = Field(4, ge=0, description="Retries of a model request on 429, 5xx or connection errors.")
    retry_backoff: float = Field(
        1.0, ge=0, description="Seconds before the first retry; doubles each retry (with jitter) unless Retry-After."
    )
    permissions: PermissionSettings = Field(default_factory=PermissionSettings, description="Permission rules.")
    tools: ToolsSettings = Field(default_factory=ToolsSettings, description="Per-tool settings.")


@dataclass
class LoadedSettings:
    """Settings plus where each value came from (for `sneakycode permissions list` and error messages), and
    what an untrusted project file asked for and did not get (`ignored`, one line each)."""

    settings: Settings
    workspace: Path
    origins: dict[str, str] = field(default_factory=dict)
    rule_origins: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    project_file: Path | None = None
    ignored: list[str] = field(default_factory=list)

    def origin_of(self, key: str) -> str:
        return self.origins.get(key, "default")


def user_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("sneakycode")) / "config.toml"


def default_state_dir() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir("sneakycode"))


def _format_validation(source: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        unknown = err["type"] == "extra_forbidden"
        problems.append(f"unknown key '{key}'" if unknown else f"key '{key}': {err['msg']} (got {err.get('input')!r})")
    return f"{source}: " + "; ".join(problems)


def _validate_layer(source: str, data: Mapping[str, Any]) -> None:
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_validation(source, exc)) from None


def read_regular_file(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file, at most `limit` of them; None when there is no such file. A FIFO, device
    or socket (or a link to one) is a ConfigError, never a hang or an endless read: these files come with
    repositories, and a repository's author chooses what they are."""
    try:
        return read_regular(path, limit)
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        raise ConfigError(f"{path}: not a regular file ({exc.kind}), so it is not read") from None
    except OverLimit:
        raise ConfigError(f"{path}: larger than {limit} bytes, so it is not read") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    data = read_regular_file(path, CONFIG_FILE_LIMIT)
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _env_layer(environ: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """One layer per SNEAKYCODE_* variable; `__` separates nesting (SNEAKYCODE_TOOLS__SHELL__SANDBOX)."""
    layers = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        path = [part.lower() for part in name[len(ENV_PREFIX) :].split("__")]
        raw = environ[name]
        try:
            value: Any = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        nested: dict[str, Any] = {path[-1]: value}
        for part in reversed(path[:-1]):
            nested = {part: nested}
        layers.append((f"environment variable {name}", nested))
    return layers


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def _set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        target = target.setdefault(part, {})
    target[last] = value


def merge_layers(layers: list[tuple[str, Mapping[str, Any]]], workspace: Path) -> LoadedSettings:
    """Validate each (source, data) layer, then merge them in order into one Settings."""
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    rule_origins: dict[str, list[tuple[str, str]]] = {key: [] for key in ACCUMULATING_KEYS}
    for source, data in layers:
        _validate_layer(source, data)
        for dotted, value in _flatten(data).items():
            if dotted in ACCUMULATING_KEYS:
                rules = rule_origins[dotted]
                rules.extend((str(rule), source) for rule in value if (str(rule), source) not in rules)
                value = list(dict.fromkeys(rule for rule, _ in rules))
            _set_dotted(merged, dotted, value)
            origins[dotted] = source
    settings = Settings.model_validate(merged)
    shell = settings.tools.shell
    if shell.default_timeout > shell.max_timeout:
        where = {key: origins.get(f"tools.shell.{key}", "default") for key in ("default_timeout", "max_timeout")}
        raise ConfigError(
            f"tools.shell.default_timeout = {shell.default_timeout} (from {where['default_timeout']}) is above "
            f"tools.shell.max_timeout = {shell.max_timeout} (from {where['max_timeout']}); every command would fail"
        )
    return LoadedSettings(settings=settings, workspace=workspace, origins=origins, rule_origins=rule_origins)


def load_settings(
    workspace: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    user_config: Path | None = None,
    *,
    trust_project: bool = False,
) -> LoadedSettings:
    """Load every layer for `workspace` (default: the current directory).

    `flags` maps dotted keys (for example ``"permissions.mode"``) to values given on the command line. The
    project file comes with the repository: unless the user trusted this workspace (`sneakycode trust`, the
    interactive prompt) or `trust_project` is set, only what tightens applies (see `project_layer`).
    """
    env = os.environ if environ is None else environ
    base = (workspace or Path.cwd()).resolve()
    user_path = user_config or user_config_path()
    project_path = base / PROJECT_CONFIG
    user_layers: list[tuple[str, Mapping[str, Any]]] = [(str(user_path), _read_toml(user_path)), *_env_layer(env)]
    raw_project = read_regular_file(project_path, CONFIG_FILE_LIMIT)
    project: dict[str, Any] = {}
    ignored: list[str] = []
    if raw_project is not None:
        project = _read_toml(project_path)
        _validate_layer(str(project_path), project)
        trusted = trust_project or is_trusted(base, raw_project, _trust_state_dir(user_layers))
        if not trusted:
            current = merge_layers(user_layers, base).settings
            project, ignored = untrusted_project_layer(project, current, base)
    layers = [user_layers[0], (str(project_path), project), *user_layers[1:]]
    if flags:
        flag_data: dict[str, Any] = {}
        for dotted, value in flags.items():
            _set_dotted(flag_data, dotted, value)
        layers.append(("command-line flags", flag_data))
    loaded = merge_layers(layers, base)
    loaded.project_file = project_path if raw_project is not None else None
    loaded.ignored = ignored
    root = Path(loaded.settings.workspace_root).expanduser()
    loaded.workspace = (root if root.is_absolute() else base / root).resolve()
    if loaded.origins.get("workspace_root") == str(project_path) and not _inside(base, loaded.workspace):
        raise ConfigError(
            f"{project_path}: workspace_root = {loaded.settings.workspace_root!r} leaves the repository "
            f"({loaded.workspace} is outside {base}); a project file can only narrow the workspace"
        )
    return loaded


def state_dir(settings: Settings) -> Path:
    """The folder that holds sessions (created on demand)."""
    return Path(settings.state_dir).expanduser() if settings.state_dir else default_state_dir()


# ---- trust: what a project file may do before the user trusted the workspace ---------------------------

TRUST_FILE = "trusted-workspaces.json"
# Always kept: a repository may always ask for more caution.
TIGHTENING_KEYS = frozenset(
    {"permissions.deny", "permissions.ask", "tools.shell.denied_commands", "tools.shell.env_strip"}
)
# Kept: they neither loosen a permission nor send anything anywhere new.
HARMLESS_KEYS = frozenset({"model", "context_window", "request_timeout", "max_retries", "retry_backoff"})
LOWER_IS_TIGHTER = frozenset(
    {"max_file_size_bytes", "max_output_bytes", "max_turns", "tools.shell.default_timeout", "tools.shell.max_timeout"}
)
# From the strictest value to the loosest.
STRICTNESS: dict[str, tuple[Any, ...]] = {
    "permissions.mode": ("plan", "default", "auto-edit", "yolo"),
    "tools.shell.sandbox": ("bwrap", "auto", "off"),
    "tools.shell.sandbox_network": (False, True),
}


def untrusted_project_layer(
    project: Mapping[str, Any], current: Settings, base: Path
) -> tuple[dict[str, Any], list[str]]:
    """What an untrusted project file may set (whatever tightens `current`, the user's own settings), and one
    line for each thing it asked for and does not get. Every key not known to be safe needs trust, so a key
    added later (servers, hooks, commands that run programs) is held back until someone decides otherwise."""
    kept: dict[str, Any] = {}
    ignored: list[str] = []
    for dotted, value in _flatten(project).items():
        now = _current(current, dotted)
        if dotted in TIGHTENING_KEYS or dotted in HARMLESS_KEYS:
            allowed = True
        elif dotted in LOWER_IS_TIGHTER:
            allowed = value <= now
        elif dotted in STRICTNESS:
            order = STRICTNESS[dotted]
            allowed = order.index(value) <= order.index(now)
        elif dotted == "workspace_root":
            allowed = _inside(base, (base / Path(str(value)).expanduser()).resolve())
        else:
            allowed = not value and value is not None and now in ([], None)
        if allowed:
            _set_dotted(kept, dotted, value)
        else:
            shown = json.dumps(value, ensure_ascii=False, default=str)
            ignored.append(f"{dotted} = {shown if len(shown) <= 120 else shown[:117] + '...'}")
    return kept, ignored


def _current(settings: Settings, dotted: str) -> Any:
    value: Any = settings
    for part in dotted.split("."):
        value = getattr(value, part, None)
    return value.value if isinstance(value, StrEnum) else value


def _inside(base: Path, path: Path) -> bool:
    return path == base or base in path.parents


def _trust_state_dir(user_layers: list[tuple[str, Mapping[str, Any]]]) -> Path:
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
    return _trust_state_dir([(str(user_path), _read_toml(user_path)), *_env_layer(env)])
