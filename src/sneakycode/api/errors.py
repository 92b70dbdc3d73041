"""The exceptions a face catches, importable without loading anything else.

`api.vocabulary` names them too, with the event and tool types; but it imports the agent's and the tools'
modules, and the light commands (`--help`, `tool`, `undo`, ...) must start without those
(tests/faces/cli/test_cold_start.py). `sneakycode.errors` is a leaf, so this door costs nothing.
"""

from __future__ import annotations

from sneakycode.errors import CheckpointError, ConfigError, ErrorCode, ModelError, SneakyError, ToolError

__all__ = ["CheckpointError", "ConfigError", "ErrorCode", "ModelError", "SneakyError", "ToolError"]
