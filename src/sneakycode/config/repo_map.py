"""`[repo_map]`: the outline of the repository's most-used definitions sent with the first request."""

from __future__ import annotations

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
        3.0,
        gt=0,
        description="Seconds the first request waits for files to be parsed (smallest first); the rest are parsed "
        "next time, from the session's index.",
    )
    max_file_bytes: int = Field(
        262_144, ge=1024, description="Source files larger than this (or than max_file_size_bytes) are not parsed."
    )

    def budget(self, window: int) -> int:
        """The map's tokens for a model with this context window; 0 when there is no map."""
        if not self.enabled or window < self.min_window:
            return 0
        wanted = self.max_tokens if self.max_tokens is not None else min(window // DEFAULT_SHARE, DEFAULT_CEILING)
        return min(wanted, window // LARGEST_SHARE)
