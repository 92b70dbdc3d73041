"""Editing a TOML config file in place with tomlkit, which keeps its comments and layout: these are files people
write by hand (`sneakycode mcp add/remove`, `sneakycode doctor --save`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sneakycode.config.sources import CONFIG_FILE_LIMIT, read_regular_file
from sneakycode.errors import ConfigError


def read_document(path: Path) -> Any:
    """The file as a tomlkit document (an empty one when there is no file); a ConfigError when it is not TOML."""
    import tomlkit
    from tomlkit.exceptions import ParseError

    raw = read_regular_file(path, CONFIG_FILE_LIMIT)
    try:
        return tomlkit.parse(raw.decode("utf-8")) if raw is not None else tomlkit.document()
    except (UnicodeDecodeError, ParseError) as exc:
        raise ConfigError(f"{path}: not valid TOML, so it was not changed: {exc}") from None


def write_document(path: Path, document: Any) -> None:
    """Replace the file with `document` at once (a temporary file renamed over it), keeping its permissions."""
    import tomlkit

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(tomlkit.dumps(document), encoding="utf-8")
    if path.exists():
        tmp.chmod(path.stat().st_mode & 0o777)  # a config holding tokens may be private: keep it so
    tmp.replace(path)
