"""Workspace trust for a face: what the repository's files ask for that waits for trust, which files they are,
and recording the person's "yes" (or taking it back: `sneakycode trust --revoke`). The trust itself (hashes,
where it is kept) is config/trust.py's."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import REPOSITORY_FILES, LoadedSettings, record_trust, repository_files, trust_state_dir

__all__ = ["REPOSITORY_FILES", "present_files", "repository_file_paths", "set_trusted", "trust_requests",
           "trust_state", "trust_workspace"]


def trust_requests(loaded: LoadedSettings) -> list[str]:
    """One line for each thing the repository's files ask for that waits for trust."""
    from sneakycode.extensions.mcp.config import configured_servers

    held = configured_servers(loaded)[1]
    return [*loaded.ignored, *(f"MCP server {h.name} = {h.target} ({h.origin})" for h in held)]


def repository_file_paths(loaded: LoadedSettings) -> list[Path]:
    """The repository's configuration files that the trust question is about (absolute)."""
    base = loaded.base or loaded.workspace
    return [base / path for path, _ in repository_files(base)]


def present_files(loaded: LoadedSettings) -> list[Path]:
    """The repository's files that trust covers and that exist here (relative to the workspace's base)."""
    return [path for path, _ in repository_files(loaded.base or loaded.workspace)]


def trust_workspace(loaded: LoadedSettings) -> None:
    """Record the person's trust in the workspace's files as they are now (a later change asks again)."""
    record_trust(loaded.base or loaded.workspace, trust_state_dir())


def trust_state() -> Path:
    """Where trust is recorded (the user's state folder); a ConfigError when the user's config is wrong."""
    return trust_state_dir()


def set_trusted(loaded: LoadedSettings, state: Path, *, trusted: bool = True) -> None:
    """Record trust in the files as they are now in `state` (or, with `trusted` off, forget it)."""
    record_trust(loaded.base or loaded.workspace, state, forget=not trusted)
