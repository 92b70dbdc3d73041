"""Layered settings: defaults < user TOML < project TOML < SNEAKYCODE_* environment < command-line flags.

Each field's description is its reference documentation: docs/config.md is generated from it.
Every layer is validated on its own first, so an unknown key or a wrong type is reported with the file or
variable it came from. Rule lists (`permissions.*`, `tools.shell.*_commands`) accumulate across layers, so a
project file cannot silently drop a user's deny rule; every other key is replaced by the later layer.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sneakycode.errors import ConfigError

PermissionMode = Literal["default", "auto-edit", "plan", "yolo"]
ENV_PREFIX = "SNEAKYCODE_"
PROJECT_CONFIG = Path(".sneakycode") / "config.toml"
ACCUMULATING_KEYS = frozenset(
    {
        "permissions.allow",
        "permissions.ask",
        "permissions.deny",
        "tools.shell.allowed_commands",
        "tools.shell.denied_commands",
    }
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


class ToolsSettings(_Strict):
    shell: ShellSettings = Field(default_factory=ShellSettings, description="run_command settings.")


class PermissionSettings(_Strict):
    mode: PermissionMode = Field(
        "default",
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
    """Settings plus where each value came from (for `sneakycode permissions list` and error messages)."""

    settings: Settings
    workspace: Path
    origins: dict[str, str] = field(default_factory=dict)
    rule_origins: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

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
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown key '{key}'")
        else:
            problems.append(f"key '{key}': {err['msg']} (got {err.get('input')!r})")
    return f"{source}: " + "; ".join(problems)


def _validate_layer(source: str, data: Mapping[str, Any]) -> None:
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_validation(source, exc)) from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror}") from None


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
    return LoadedSettings(settings=settings, workspace=workspace, origins=origins, rule_origins=rule_origins)


def load_settings(
    workspace: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    user_config: Path | None = None,
) -> LoadedSettings:
    """Load every layer for `workspace` (default: the current directory).

    `flags` maps dotted keys (for example ``"permissions.mode"``) to values given on the command line.
    """
    env = os.environ if environ is None else environ
    base = (workspace or Path.cwd()).resolve()
    user_path = user_config or user_config_path()
    project_path = base / PROJECT_CONFIG
    layers: list[tuple[str, Mapping[str, Any]]] = [
        (str(user_path), _read_toml(user_path)),
        (str(project_path), _read_toml(project_path)),
        *_env_layer(env),
    ]
    if flags:
        flag_data: dict[str, Any] = {}
        for dotted, value in flags.items():
            _set_dotted(flag_data, dotted, value)
        layers.append(("command-line flags", flag_data))
    loaded = merge_layers(layers, base)
    root = Path(loaded.settings.workspace_root).expanduser()
    loaded.workspace = (root if root.is_absolute() else base / root).resolve()
    return loaded


def state_dir(settings: Settings) -> Path:
    """The folder that holds sessions (created on demand)."""
    return Path(settings.state_dir).expanduser() if settings.state_dir else default_state_dir()
