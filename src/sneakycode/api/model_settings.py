"""A model's settings written to the user's config, as `[model_settings."MODEL"]` (see
config/model_settings.py), with tomlkit so the file keeps its comments (`doctor --save` writes what worked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sneakycode.config import user_config_path
from sneakycode.config.model_settings import ModelTuning
from sneakycode.config.toml_edit import read_document, write_document

__all__ = ["save_model_settings"]


def save_model_settings(model: str, settings: dict[str, Any], path: Path | None = None) -> Path:
    """Write `settings` as the model's entry (replacing the keys it names, keeping the others); the file's path.
    A ConfigError when the file is not TOML (then it is left as it was)."""
    import tomlkit

    ModelTuning.model_validate(settings)  # never write what the config would refuse to load
    target = path or user_config_path()
    document = read_document(target)
    tables = document.setdefault("model_settings", tomlkit.table(is_super_table=True))
    entry = tables.setdefault(model, tomlkit.table())
    for key, value in settings.items():
        entry[key] = value
    write_document(target, document)
    return target
