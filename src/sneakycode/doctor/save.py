"""`doctor --save`: the settings that worked, written for that model to the user's config (api/model_settings.py
writes them, validated by the model the config loads them with)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sneakycode.api.model_settings import save_model_settings


def save_settings(model: str, settings: dict[str, Any], path: Path | None = None) -> Path:
    """Write `settings` as the model's entry (replacing the keys it names, keeping the others); the file's path.
    A ConfigError when the file is not TOML (then it is left as it was)."""
    return save_model_settings(model, settings, path)
