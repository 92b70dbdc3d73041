"""What rides on a user's request besides its words: a resumed session's notes, and on the first request of a
conversation, the repository map.

The map goes into the first user message, after the request, never into the system prompt: the system prompt
is composed before the request is known (the map is focused on what the request mentions), and a message
once sent is never changed, so every later request, a resume included, extends this one byte for byte and a
server's prompt cache holds (issue 26). A subagent gets no map (its task names what it needs), nor does a
conversation a resume or a rewind continues (its first message already had one).

The map is built in the background from the session's start (tools/codemap/background.py), and the first
request waits for it at most `repo_map.build_seconds` (0.5 s, issue 42): past CUT_SHARE of that, the build is
cut and what it parsed so far (smallest files first) is mapped; a map not ready even then is left out, and
the build goes on for the next session. Measured against offering a
`code_map` tool instead, the first-request map costs fewer tokens for the same answer (bench/repo_map.py,
docs/code-intelligence.md): the tool needs a round trip that resends the whole conversation, and its
schema rides on every request.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sneakycode.config import state_dir
from sneakycode.permissions.rules import hidden_paths
from sneakycode.tools.codemap.background import MapBuild, MapRequest
from sneakycode.tools.codemap.repomap import Focus, RepoMap, build_map, with_heading

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent
    from sneakycode.tools.context import ToolContext


CUT_SHARE = 0.6  # of build_seconds waited for the whole build; the rest is for the graph and ranks of a cut one


def compose_request(agent: Agent, request: str) -> str:
    """The request as the model gets it: the pending session notes first, the map after it when it is the
    first message of a main agent's conversation. The notes are consumed."""
    parts = [*agent.take_session_notes(), request]
    if len(agent.history) == 1 and agent.main:
        repo_map = first_request_map(agent, request)
        if repo_map:
            parts.append(repo_map)
    return "\n\n".join(parts)


def map_request(ctx: ToolContext, window: int) -> MapRequest | None:
    """What the session's map is built from; None when it gets none (off, or the window too small)."""
    settings = ctx.settings
    budget = settings.repo_map.budget(window)
    if not budget:
        return None
    return MapRequest(
        root=ctx.workspace.root,
        hidden=hidden_paths(ctx.loaded),
        max_file_bytes=min(settings.repo_map.max_file_bytes, settings.max_file_size_bytes),
        cache_dir=ctx.session_dir,
        index_dir=settings.repo_map.index_folder(state_dir(settings)),
        max_tokens=budget,
    )


def start_map_build(ctx: ToolContext, window: int) -> None:
    """Start building a new conversation's map in the background (background.py), as its session opens, so the
    first request finds it ready or waits for it at most `repo_map.build_seconds`."""
    request = map_request(ctx, window)
    if request is not None:
        ctx.session.map_build.start(request)


def first_request_map(agent: Agent, request: str) -> str:
    """The map section for this request, or "" (off, window too small, not built in time, nothing to show)."""
    ctx = agent.ctx
    wanted = map_request(ctx, agent.context.window)
    if wanted is None:
        return ""
    build = ctx.session.map_build.start(wanted)  # the one started as the session opened, if it was
    root = wanted.root
    seen = {os.path.relpath(path, root).replace(os.sep, "/") for path in ctx.workspace.ledger.entries}
    try:
        repo_map = wait_for_map(build, Focus(frozenset(seen), request), ctx.settings.repo_map.build_seconds)
    except Exception as exc:  # the map only helps: whatever goes wrong in it, the request goes out without it
        agent.sink.emit({"type": "notice", "message": f"The repository map was left out: {type(exc).__name__}: {exc}"})
        return ""
    if isinstance(repo_map, str):
        agent.sink.emit({"type": "notice", "message": f"The repository map was left out: {repo_map}"})
        return ""
    return with_heading(repo_map) if repo_map.text else ""


def wait_for_map(build: MapBuild, focus: Focus, seconds: float) -> RepoMap | str:
    """The map of `build` toward `focus`, waiting for it at most about `seconds`: past CUT_SHARE of them the
    build is cut and what it parsed is mapped. A string says why there is none (not ready, the build failed)."""
    wanted = build.request
    waited_for = not build.ready.is_set()  # a report from long ago is walked again: files may have changed since
    if not build.wait(seconds * CUT_SHARE):
        build.cut()  # what is parsed by now goes out with this request; the rest is parsed after it
        build.wait(seconds * (1 - CUT_SHARE))
    try:
        if build.error is not None:
            return f"{type(build.error).__name__}: {build.error}"
        if not build.ready.is_set():
            return f"it was not ready within repo_map.build_seconds ({seconds:g} s)"
        return build_map(wanted.root, max_tokens=wanted.max_tokens, hidden=wanted.hidden,
                         max_file_bytes=wanted.max_file_bytes, cache_dir=wanted.cache_dir, focus=focus,
                         seconds=seconds, index_dir=wanted.index_dir,
                         refreshed=build.report if waited_for else None)
    finally:
        build.taken.set()
