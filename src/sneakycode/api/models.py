"""The model servers a face can offer before a session exists (the first-run setup): the presets, which local
servers answer, and the models a server lists. Once a session runs, `Session.offered_models` asks its own."""

from __future__ import annotations

from sneakycode.agent.model.providers import (
    KEY_PRESETS,
    LOCAL_PRESETS,
    SETUP_HELP,
    ProviderPreset,
    list_models,
    probe_local_servers,
)
from sneakycode.config import user_config_path

__all__ = ["KEY_PRESETS", "LOCAL_PRESETS", "SETUP_HELP", "ProviderPreset", "list_models", "probe_local_servers",
           "user_config_path"]
