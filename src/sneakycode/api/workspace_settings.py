"""The settings of a workspace for a face's command that starts no agent (`tool`, `sessions`, `undo`, `map`,
`permissions`, `mcp`, `trust`, `batch`, `eval`): the same layers and trust rules a session loads
(config/layers.py), the flags on top."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings, load_settings

__all__ = ["load_workspace_settings"]


def load_workspace_settings(workspace: Path | None, flags: Mapping[str, Any] | None = None, *,
                            trust_project: bool = False) -> LoadedSettings:
    """Every layer for `workspace` (default: the current folder); a ConfigError naming the file and key when a
    layer is wrong."""
    return load_settings(workspace, flags, trust_project=trust_project)
