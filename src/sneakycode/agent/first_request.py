"""What rides on a user's request besides its words: a resumed session's notes, and on the first request of a
conversation, the repository map.

The map goes into the first user message, after the request, never into the system prompt: the system prompt
is composed before the request is known (the map is focused on what the request mentions), and a message
once sent is never changed, so every later request, a resume included, extends this one byte for byte and a
server's prompt cache holds (issue 26). A subagent gets no map (its task names what it needs), nor does a
conversation a resume or a rewind continues (its first message already had one). Measured against offering a
`code_map` tool instead, the first-request map costs fewer tokens for the same answer (bench/repo_map.py,
docs/code-intelligence.md): the tool needs a round trip that resends the whole conversation, and its
schema rides on every request.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from sneakycode.tools.codemap.repomap import Focus, build_map, with_heading

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent


def compose_request(agent: Agent, request: str) -> str:
    """The request as the model gets it: the pending session notes first, the map after it when it is the
    first message of a main agent's conversation. The notes are consumed."""
    parts = [*agent.take_session_notes(), request]
    if len(agent.history) == 1 and agent.main:
        repo_map = first_request_map(agent, request)
        if repo_map:
            parts.append(repo_map)
    return "\n\n".join(parts)


def first_request_map(agent: Agent, request: str) -> str:
    """The map section for this request, or "" (off, window too small, nothing to show)."""
    ctx = agent.ctx
    settings = ctx.settings
    budget = settings.repo_map.budget(agent.context.window)
    if not budget:
        return ""
    root = ctx.workspace.root
    seen = {os.path.relpath(path, root).replace(os.sep, "/") for path in ctx.workspace.ledger.entries}
    try:
        repo_map = build_map(
            root,
            max_tokens=budget,
            hidden=ctx.hidden,
            max_file_bytes=min(settings.repo_map.max_file_bytes, settings.max_file_size_bytes),
            cache_dir=ctx.session_dir,
            focus=Focus(frozenset(seen), request),
            seconds=settings.repo_map.build_seconds,
        )
    except Exception as exc:  # the map only helps: whatever goes wrong in it, the request goes out without it
        agent.sink.emit({"type": "notice", "message": f"The repository map was left out: {type(exc).__name__}: {exc}"})
        return ""
    return with_heading(repo_map) if repo_map.text else ""
