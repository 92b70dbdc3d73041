"""Which MCP servers a session may start: `[mcp.servers.NAME]` tables from the settings layers and the
`mcpServers` object of the workspace's `.mcp.json` (the format Claude Code, Cursor and Gemini CLI share),
with `${VAR}` and `${VAR:-default}` expanded from the user's environment.

Servers come with a repository when they are in its `.sneakycode/config.toml` or `.mcp.json`: those run
programs, so they are only used once the user trusted the workspace (untrusted, the settings layers have
already dropped the project's tables; `.mcp.json` is not read at all), and are listed as held back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from sneakycode.config import (
    CONFIG_FILE_LIMIT,
    MCP_JSON,
    LoadedSettings,
    McpServerSettings,
    read_regular_file,
)
from sneakycode.config.sources import read_toml
from sneakycode.errors import ConfigError
from sneakycode.process.environment import full_environment

Transport = Literal["stdio", "http", "sse"]
# ${NAME} or ${NAME:-default}: the forms .mcp.json files use; string.Template knows no defaults.
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# .mcp.json `type` values, as the clients that write these files spell them.
_JSON_TYPES: dict[str, Transport] = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}


@dataclass(frozen=True)
class ServerSpec:
    """One configured server: its settings with variables expanded, and the file or variable it came from.
    `problem` says why it cannot start (a variable that is not set, neither command nor url)."""

    name: str
    settings: McpServerSettings
    origin: str
    problem: str | None = None

    @property
    def transport(self) -> Transport:
        chosen = self.settings.transport
        if chosen != "auto":
            return chosen
        if self.settings.command:
            return "stdio"
        return "sse" if (self.settings.url or "").rstrip("/").endswith("/sse") else "http"

    @property
    def target(self) -> str:
        """What it runs or where it connects, for listings."""
        if self.transport == "stdio":
            return " ".join([self.settings.command or "", *self.settings.args]).strip()
        return self.settings.url or ""


@dataclass(frozen=True)
class HeldBack:
    """A server a repository file asks for, not started because the workspace is not trusted."""

    name: str
    origin: str
    target: str


def configured_servers(loaded: LoadedSettings) -> tuple[list[ServerSpec], list[HeldBack]]:
    """Every server this session may use (enabled or not), and those held back for want of trust."""
    environ = full_environment()
    specs: dict[str, ServerSpec] = {}
    json_path = (loaded.base or loaded.workspace) / MCP_JSON
    from_json = _read_mcp_json(json_path) if loaded.trusted else {}
    for name, raw in from_json.items():
        specs[name] = _spec(name, raw, str(json_path), environ)
    for name, settings in loaded.settings.mcp.servers.items():
        overlay = settings.model_dump(exclude_unset=True)
        origin = _origin(loaded, name)
        if name in from_json and not (settings.command or settings.url):
            # Only settings for a server .mcp.json defines (turn it off, a longer timeout): apply them to it.
            specs[name] = _spec(name, {**from_json[name], **overlay}, f"{json_path} and {origin}", environ)
        else:
            specs[name] = _spec(name, overlay, origin, environ)
    return sorted(specs.values(), key=lambda spec: spec.name), _held_back(loaded, json_path)


def _origin(loaded: LoadedSettings, name: str) -> str:
    prefix = f"mcp.servers.{name}."
    sources = dict.fromkeys(source for key, source in loaded.origins.items() if key.startswith(prefix))
    return " and ".join(sources) or "default"


def _spec(name: str, raw: Mapping[str, Any], origin: str, environ: Mapping[str, str]) -> ServerSpec:
    try:
        settings = McpServerSettings.model_validate(raw)
    except ValidationError as exc:
        problem = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return ServerSpec(name, McpServerSettings(enabled=False), origin, f"invalid settings: {problem}")
    missing: list[str] = []
    expanded = _expand(settings.model_dump(), environ, missing)
    settings = McpServerSettings.model_validate(expanded)
    if missing:
        names = ", ".join(f"${{{variable}}}" for variable in dict.fromkeys(missing))
        return ServerSpec(name, settings, origin, f"it names {names}, which is not set in the environment")
    if not (settings.command or settings.url):
        return ServerSpec(name, settings, origin, "it has neither a command nor a url")
    return ServerSpec(name, settings, origin)


def _expand(value: Any, environ: Mapping[str, str], missing: list[str]) -> Any:
    if isinstance(value, str):

        def substitute(found: re.Match[str]) -> str:
            name, default = found.group(1), found.group(2)
            if name in environ:
                return environ[name]
            if default is None:
                missing.append(name)
            return default or ""

        return _VARIABLE.sub(substitute, value)
    if isinstance(value, list):
        return [_expand(item, environ, missing) for item in value]
    if isinstance(value, dict):
        return {key: _expand(item, environ, missing) for key, item in value.items()}
    return value


def _read_mcp_json(path: Path) -> dict[str, dict[str, Any]]:
    """The `mcpServers` of a `.mcp.json`, in settings form; a ConfigError names what is wrong with the file."""
    raw = read_regular_file(path, CONFIG_FILE_LIMIT)
    if raw is None:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not valid JSON: {exc}") from None
    servers = data.get("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: `mcpServers` must be an object of servers by name")
    converted: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: mcpServers.{name} must be an object")
        known = {key: entry[key] for key in ("command", "args", "env", "cwd", "url", "headers") if key in entry}
        kind = entry.get("type")
        if kind is not None:
            if kind not in _JSON_TYPES:
                raise ConfigError(f"{path}: mcpServers.{name}.type {kind!r} is not one of {', '.join(_JSON_TYPES)}")
            known["transport"] = _JSON_TYPES[kind]
        if entry.get("disabled") is True:
            known["enabled"] = False
        converted[str(name)] = known
    return converted


def _held_back(loaded: LoadedSettings, json_path: Path) -> list[HeldBack]:
    if loaded.trusted:
        return []
    held: list[HeldBack] = []
    if loaded.project_file is not None:
        asked = read_toml(loaded.project_file).get("mcp", {}).get("servers", {})
        for name, entry in (asked if isinstance(asked, dict) else {}).items():
            if isinstance(entry, dict) and (entry.get("command") or entry.get("url")):
                held.append(HeldBack(str(name), str(loaded.project_file), _describe(entry)))
    try:
        from_json = _read_mcp_json(json_path)
    except ConfigError:
        from_json = {}
    held.extend(HeldBack(name, str(json_path), _describe(entry)) for name, entry in from_json.items())
    return held


def _describe(entry: Mapping[str, Any]) -> str:
    if entry.get("command"):
        raw_args = entry.get("args")
        args: list[Any] = raw_args if isinstance(raw_args, list) else []
        return " ".join(str(part) for part in [entry["command"], *args])
    return str(entry.get("url", ""))
