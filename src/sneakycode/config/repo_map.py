"""`[repo_map]`: the outline of the repository's most-used definitions sent with the first request."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_SHARE = 32  # of the window, when max_tokens is not set
DEFAULT_CEILING = 4096
LARGEST_SHARE = 8  # a map never takes more than this part of the window, whatever max_tokens says


class RepoMapSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)

    enabled: bool = Field(True, description="Send the repository map with the first request of a session.")
    max_tokens: int | None = Field(
        None,
        ge=64,
        description="Tokens the map may take; unset: 1/32 of the context window, at most 4,096 "
        "(never more than 1/8 of the window).",
    )
    min_window: int = Field(
        16_384, ge=1024, description="Context windows (tokens) smaller than this get no map: it would crowd the work."
    )
    build_seconds: float = Field(
        0.5,
        gt=0,
        description="Seconds the first request waits for the map, which is built in the background from the "
        "session's start; a map not ready by then is left out of that request, and its build goes on for the next "
        "session.",
    )
    index_dir: str | None = Field(
        None,
        description="The folder of the parsed tags every session, batch task and eval task shares (by file "
        "content); unset: `codemap` in the state folder.",
    )
    max_file_bytes: int = Field(
        262_144, ge=1024, description="Source files larger than this (or than max_file_size_bytes) are not parsed."
    )

    def index_folder(self, state: Path) -> Path:
        """Where the shared tags live, for sessions whose state folder is `state`."""
        return Path(self.index_dir).expanduser() if self.index_dir else state / "codemap"

    def budget(self, window: int) -> int:
        """The map's tokens for a model with this context window; 0 when there is no map."""
        if not self.enabled or window < self.min_window:
            return 0
        wanted = self.max_tokens if self.max_tokens is not None else min(window // DEFAULT_SHARE, DEFAULT_CEILING)
        return min(wanted, window // LARGEST_SHARE)
