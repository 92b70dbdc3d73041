"""Issue 36: what a face's status line and /stats read (api/usage.py), through the session."""

from __future__ import annotations

from pathlib import Path

import sneakycode
from sneakycode.api.session import Session
from sneakycode.testing.server import ScriptedServer


def test_usage_counts_the_request_and_the_context(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([{"content": "hello", "usage": {"prompt_tokens": 3000, "completion_tokens": 8}}])
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                                 mode="plan", settings={"retry_backoff": 0.01})
    with Session(options) as session:
        before = session.usage()
        assert (before.model, before.mode, before.tokens) == ("m", "plan", 0)
        assert 0 < before.context_tokens < before.context_window
        session.run("hi")
        after = session.usage()
    assert (after.prompt_tokens, after.completion_tokens, after.tokens) == (3000, 8, 3008)
    assert after.context_tokens > before.context_tokens
    assert after.cost is None and after.price_source is None  # no price for a scripted model
