"""The user's consent to what a repository's files ask for (`sneakycode trust`): what waits for it, and
recording or revoking it. Thin verbs over `config/trust.py`, the one place trust is decided."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import REPOSITORY_FILES, LoadedSettings, record_trust, repository_files, trust_state_dir

__all__ = ["REPOSITORY_FILES", "present_files", "set_trusted", "trust_requests", "trust_state"]


def trust_requests(loaded: LoadedSettings) -> list[str]:
    """One line for each thing the repository's files ask for that waits for trust."""
    from sneakycode.extensions.mcp.config import configured_servers

    held = configured_servers(loaded)[1]
    return [*loaded.ignored, *(f"MCP server {h.name} = {h.target} ({h.origin})" for h in held)]


def present_files(loaded: LoadedSettings) -> list[Path]:
    """The repository's files that trust covers and that exist here."""
    assert loaded.base is not None
    return [path for path, _ in repository_files(loaded.base)]


def trust_state() -> Path:
    """Where trust is recorded (the user's state folder); a ConfigError when the user's config is wrong."""
    return trust_state_dir()


def set_trusted(loaded: LoadedSettings, state: Path, *, trusted: bool = True) -> None:
    """Record trust in the files as they are now (or forget it)."""
    assert loaded.base is not None
    record_trust(loaded.base, state, forget=not trusted)
