"""Layered settings: defaults < user TOML < project TOML < SNEAKYCODE_* environment < command-line flags.

Every layer is validated on its own first, so an unknown key or a wrong type is reported with the file or
variable it came from. Rule lists (`permissions.*`, `tools.shell.*_commands`) accumulate across layers, so a
project file cannot silently drop a user's deny rule; every other key is replaced by the later layer. The
project file only tightens until the user trusts the workspace (see trust.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sneakycode.config.model_settings import tuned_values
from sneakycode.config.settings import LoadedSettings, Settings, user_config_path
from sneakycode.config.sources import (
    ACCUMULATING_KEYS,
    CONFIG_FILE_LIMIT,
    PROJECT_CONFIG,
    env_layer,
    flatten,
    read_regular_file,
    read_toml,
    set_dotted,
    validate_layer,
)
from sneakycode.config.trust import inside, is_trusted, trust_state_dir_of, untrusted_project_layer
from sneakycode.errors import ConfigError


def merge_layers(layers: list[tuple[str, Mapping[str, Any]]], workspace: Path) -> LoadedSettings:
    """Validate each (source, data) layer, then merge them in order into one Settings."""
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    rule_origins: dict[str, list[tuple[str, str]]] = {key: [] for key in ACCUMULATING_KEYS}
    for source, data in layers:
        validate_layer(source, data)
        for dotted, value in flatten(data).items():
            dotted = _keep_small_table(merged, origins, dotted, value)
            if dotted in ACCUMULATING_KEYS:
                rules = rule_origins[dotted]
                rules.extend((str(rule), source) for rule in value if (str(rule), source) not in rules)
                value = list(dict.fromkeys(rule for rule, _ in rules))
            set_dotted(merged, dotted, value)
            origins[dotted] = source
    model = merged.get("model")
    for dotted, value in tuned_values(model, Settings.model_validate(merged).model_settings, origins).items():
        set_dotted(merged, dotted, value)
        origins[dotted] = f'[model_settings."{model}"] in {origins.get(f"model_settings.{model}", "default")}'
    settings = Settings.model_validate(merged)
    shell = settings.tools.shell
    if shell.default_timeout > shell.max_timeout:
        where = {key: origins.get(f"tools.shell.{key}", "default") for key in ("default_timeout", "max_timeout")}
        raise ConfigError(
            f"tools.shell.default_timeout = {shell.default_timeout} (from {where['default_timeout']}) is above "
            f"tools.shell.max_timeout = {shell.max_timeout} (from {where['max_timeout']}); every command would fail"
        )
    return LoadedSettings(settings=settings, workspace=workspace, origins=origins, rule_origins=rule_origins)


def _keep_small_table(merged: dict[str, Any], origins: dict[str, str], dotted: str, value: Any) -> str:
    """Where `dotted` lands when `[models] small` is a bare name in one layer and a table in another: a later
    name sets the table's `model` (its base_url and api_key_env stay: a name never moves the small model to the
    main endpoint and key), and a later table key keeps the earlier name as the table's `model`."""
    small = merged.get("models", {}).get("small") if isinstance(merged.get("models"), dict) else None
    if dotted == "models.small" and isinstance(value, str) and isinstance(small, dict):
        return "models.small.model"
    if dotted.startswith("models.small.") and isinstance(small, str):
        merged["models"]["small"] = {"model": small}
        origins["models.small.model"] = origins.pop("models.small", "default")
    return dotted


def load_settings(
    workspace: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    user_config: Path | None = None,
    *,
    trust_project: bool = False,
    isolated: bool = False,
) -> LoadedSettings:
    """Load every layer for `workspace` (default: the current directory).

    `flags` maps dotted keys (for example ``"permissions.mode"``) to values given on the command line. The
    project file comes with the repository: unless the user trusted this workspace (`sneakycode trust`, the
    interactive prompt) or `trust_project` is set, only what tightens applies (see `project_layer`);
    `loaded.trusted` says which, for the other repository files (`.mcp.json`).

    `isolated` (an embedding program's choice): no user configuration file, no SNEAKYCODE_* variable and no
    trust record is read; the workspace is trusted only with `trust_project`.
    """
    base = (workspace or Path.cwd()).resolve()
    project_path = base / PROJECT_CONFIG
    user_layers: list[tuple[str, Mapping[str, Any]]]
    if isolated:
        user_layers = [("no user configuration (isolated)", {})]
        trusted = trust_project
    else:
        env = os.environ if environ is None else environ
        user_path = user_config or user_config_path()
        user_layers = [(str(user_path), read_toml(user_path)), *env_layer(env)]
        trusted = trust_project or is_trusted(base, trust_state_dir_of(user_layers))
    raw_project = read_regular_file(project_path, CONFIG_FILE_LIMIT)
    project: dict[str, Any] = {}
    ignored: list[str] = []
    if raw_project is not None:
        project = read_toml(project_path)
        validate_layer(str(project_path), project)
        if not trusted:
            current = merge_layers(user_layers, base).settings
            project, ignored = untrusted_project_layer(project, current, base)
    layers = [user_layers[0], (str(project_path), project), *user_layers[1:]]
    if flags:
        flag_data: dict[str, Any] = {}
        for dotted, value in flags.items():
            set_dotted(flag_data, dotted, value)
        layers.append(("command-line flags", flag_data))
    loaded = merge_layers(layers, base)
    loaded.project_file = project_path if raw_project is not None else None
    loaded.ignored = ignored
    loaded.base = base
    loaded.trusted = trusted
    loaded.isolated = isolated
    root = Path(loaded.settings.workspace_root).expanduser()
    loaded.workspace = (root if root.is_absolute() else base / root).resolve()
    if loaded.origins.get("workspace_root") == str(project_path) and not inside(base, loaded.workspace):
        raise ConfigError(
            f"{project_path}: workspace_root = {loaded.settings.workspace_root!r} leaves the repository "
            f"({loaded.workspace} is outside {base}); a project file can only narrow the workspace"
        )
    return loaded


