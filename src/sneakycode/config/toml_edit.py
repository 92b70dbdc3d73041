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


def append_unique(path: Path, tables: tuple[str, ...], key: str, values: list[str]) -> None:
    """Add each of `values` not already there to the list `key` of table `tables` (`("tools", "shell")`) in the
    file at `path` (created if missing), keeping everything else in it byte for byte: saved "always" rules
    and allowed hosts."""
    import tomlkit
    from tomlkit.items import Array, Table

    document = read_document(path)
    table = document
    for depth, name in enumerate(tables):
        inner = table.get(name)
        if not isinstance(inner, Table):
            # A parent table only holds others (`[tools.shell]`, not an empty `[tools]` above it).
            inner = tomlkit.table(is_super_table=depth < len(tables) - 1)
            table[name] = inner
        table = inner
    listed = table.get(key)
    if not isinstance(listed, Array):
        listed = tomlkit.array()
        table[key] = listed
    for value in values:
        if value not in listed:
            listed.append(value)
    write_document(path, document)
