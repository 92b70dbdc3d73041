"""Configuration, the lowest layer but errors: the settings, their layers and sources, trust in a
repository's own file, and the one way a file a repository supplies is opened (files.py)."""

from sneakycode.config.layers import load_settings, merge_layers
from sneakycode.config.settings import (
    DiagnosticsSettings,
    LoadedSettings,
    McpServerSettings,
    McpSettings,
    PermissionMode,
    PermissionSettings,
    Settings,
    default_state_dir,
    state_dir,
    user_config_path,
)
from sneakycode.config.sources import CONFIG_FILE_LIMIT, PROJECT_CONFIG, read_regular_file
from sneakycode.config.tool_settings import ShellSettings, ToolsSettings
from sneakycode.config.trust import MCP_JSON, REPOSITORY_FILES, record_trust, repository_files, trust_state_dir

__all__ = [
    "CONFIG_FILE_LIMIT",
    "MCP_JSON",
    "PROJECT_CONFIG",
    "REPOSITORY_FILES",
    "DiagnosticsSettings",
    "LoadedSettings",
    "McpServerSettings",
    "McpSettings",
    "PermissionMode",
    "PermissionSettings",
    "Settings",
    "ShellSettings",
    "ToolsSettings",
    "default_state_dir",
    "load_settings",
    "merge_layers",
    "read_regular_file",
    "record_trust",
    "repository_files",
    "state_dir",
    "trust_state_dir",
    "user_config_path",
]
