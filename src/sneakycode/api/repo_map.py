"""The repository map the model gets with a first request, on its own (`sneakycode map`): the same builder,
budget, deny rules and ignore files as a session's. Parsed tags come from the store every session, batch and
eval task shares (by content), and the index is kept in a tool session's folder, started from the newest one
another session of the workspace left (so a second run is warm)."""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.config import LoadedSettings

__all__ = ["DEFAULT_WINDOW", "MapRefused", "RepoMapView", "repository_map"]

DEFAULT_WINDOW = 32_768  # agent/loop.py's, when no context_window is configured


class MapRefused(Exception):
    """The path cannot be mapped: outside the workspace, missing, or kept from the model by a deny rule."""


@dataclass(frozen=True)
class RepoMapView:
    text: str
    definitions: int
    files: int
    tokens: int
    """About how many tokens the map takes."""
    budget: int
    """The budget it was built within."""
    capped: int
    """More source files than this were found, so the rest were left out (0: none were)."""


def repository_map(loaded: LoadedSettings, path: str, tokens: int | None) -> RepoMapView:
    """The map of the files under `path` (a folder), or the whole map focused on `path` (a file), within
    `tokens` (default: the model's share of its window). A ConfigError when no tool session can start."""
    from sneakycode.config import state_dir
    from sneakycode.config.repo_map import DEFAULT_CEILING, DEFAULT_SHARE
    from sneakycode.errors import ToolError
    from sneakycode.permissions.rules import hidden_paths
    from sneakycode.tools.codemap.repomap import Focus, build_map
    from sneakycode.tools.context import open_tool_context

    ctx = open_tool_context(loaded, kind="map")
    settings = loaded.settings
    window = settings.context_window or DEFAULT_WINDOW
    budget = tokens or settings.repo_map.max_tokens or min(window // DEFAULT_SHARE, DEFAULT_CEILING)
    hidden = hidden_paths(loaded)
    try:
        target = ctx.workspace.resolve(path, must_exist=True)
    except ToolError as exc:
        raise MapRefused(exc.error) from None
    shown = ctx.workspace.display(target)
    rule = hidden(shown) if shown != "." else None
    if rule is not None:
        raise MapRefused(f"{shown!r} is kept from the model by the deny rule `{rule}`")
    is_file = target.is_file()
    built = build_map(
        ctx.workspace.root,
        max_tokens=budget,
        hidden=hidden,
        max_file_bytes=min(settings.repo_map.max_file_bytes, settings.max_file_size_bytes),
        cache_dir=ctx.session_dir,
        index_dir=settings.repo_map.index_folder(state_dir(settings)),  # the tags every session shares
        focus=Focus(frozenset([shown]) if is_file else frozenset()),
        under="" if is_file else shown,
    )
    return RepoMapView(built.text, built.definitions, built.files, built.tokens, budget, built.refresh.capped or 0)
