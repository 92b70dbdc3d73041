"""Where settings come from: TOML files (read only as regular files, up to a limit) and SNEAKYCODE_*
variables, each validated on its own so an error names the file or variable it came from."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.config.settings import Settings
from sneakycode.errors import ConfigError

ENV_PREFIX = "SNEAKYCODE_"
CONFIG_FILE_LIMIT = 1 << 20
PROJECT_CONFIG = Path(".sneakycode") / "config.toml"
# Tables whose keys are free text (model names hold dots): `pricing."gpt-4.1-mini"` is one key, never split.
MAP_KEYS = frozenset({"pricing", "model_settings"})
ACCUMULATING_KEYS = frozenset(
    {"permissions.allow", "permissions.ask", "permissions.deny"}
    | {f"tools.shell.{key}" for key in ("allowed_commands", "denied_commands", "env_keep", "env_strip", "sandbox_hide")}
)


def _format_validation(source: str, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        unknown = err["type"] == "extra_forbidden"
        problems.append(f"unknown key '{key}'" if unknown else f"key '{key}': {err['msg']} (got {err.get('input')!r})")
    return f"{source}: " + "; ".join(problems)


def validate_layer(source: str, data: Mapping[str, Any]) -> None:
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


def read_toml(path: Path) -> dict[str, Any]:
    data = read_regular_file(path, CONFIG_FILE_LIMIT)
    if data is None:
        return {}
    import tomllib  # only where a file exists: its parser is some 10 ms of every start without one (issue 42)

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def env_layer(environ: Mapping[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """One layer per SNEAKYCODE_* variable; `__` separates nesting (SNEAKYCODE_TOOLS__SHELL__SANDBOX)."""
    layers = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        path = [part.lower() for part in name[len(ENV_PREFIX) :].split("__")]
        raw = environ[name]
        import tomllib  # only once a variable is set (see read_toml)

        try:
            value: Any = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        nested: dict[str, Any] = {path[-1]: value}
        for part in reversed(path[:-1]):
            nested = {part: nested}
        layers.append((f"environment variable {name}", nested))
    return layers


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if dotted in MAP_KEYS and isinstance(value, Mapping):
            flat.update({f"{dotted}.{name}": entry for name, entry in value.items()})
        elif isinstance(value, Mapping):
            flat.update(flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def set_dotted(target: dict[str, Any], dotted: str, value: Any) -> None:
    head, _, rest = dotted.partition(".")
    if head in MAP_KEYS and rest:
        target.setdefault(head, {})[rest] = value
        return
    *parents, last = dotted.split(".")
    for part in parents:
        if not isinstance(target.get(part), dict):
            # A key that is a value in one layer and a table in another (`models.small`): the later wins whole.
            target[part] = {}
        target = target[part]
    target[last] = value
