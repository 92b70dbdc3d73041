"""Every request carries an output cap; a reply cut by it is never run half-formed; a stalled stream is retried."""

from __future__ import annotations

from typing import Any

import pytest

from sneakycode.agent.model.providers import ModelConfig, output_cap
from sneakycode.errors import ModelError
from tests.agent.model.test_client import EDIT, harness

__all__ = ["harness"]


@pytest.mark.parametrize(
    ("config", "cap"),
    [
        ({"provider": "ollama", "local": True, "context_window": 8192}, 2048),
        ({"provider": "llamacpp", "local": True, "context_window": 131_072}, 4096),
        ({"provider": "custom", "context_window": 32_768}, 4096),
        ({"provider": "groq", "context_window": 131_072}, 16_384),
        ({"provider": "groq", "max_output_tokens": 999}, 999),
    ],
)
def test_the_default_cap_is_a_quarter_of_a_local_window_at_most_4096(config: dict[str, Any], cap: int) -> None:
    assert output_cap(ModelConfig(base_url="http://x/v1", model="m", api_key="k", **config)) == cap


def test_every_request_sends_max_tokens(harness: Any) -> None:
    h = harness([{"content": "hi"}], context_window=8192)
    h.complete()
    assert h.server.chat_requests[0]["max_tokens"] == 2048


def test_a_reply_cut_inside_a_tool_call_is_asked_again_once_with_twice_the_cap(harness: Any) -> None:
    cut = {"tool_calls": [{"name": "str_replace", "arguments": '{"file_path": "src/a'}], "finish_reason": "length"}
    h = harness([cut, {"tool_calls": [EDIT]}], max_output_tokens=100)
    turn = h.complete()
    assert [c.name for c in turn.tool_calls] == ["str_replace"] and '"new_str": "b"' in turn.tool_calls[0].arguments
    assert [r["max_tokens"] for r in h.server.chat_requests] == [100, 200]


def test_a_tool_call_cut_twice_is_never_returned(harness: Any) -> None:
    cut = {"tool_calls": [{"name": "str_replace", "arguments": '{"file_path": "src/a'}], "finish_reason": "length"}
    h = harness([cut, cut], max_output_tokens=100)
    with pytest.raises(ModelError) as caught:
        h.complete()
    assert caught.value.kind == "output_truncated" and "max_output_tokens" in str(caught.value)


def test_cut_text_says_it_was_cut(harness: Any) -> None:
    h = harness([{"content": "The plan is to", "finish_reason": "length"}], max_output_tokens=64)
    turn = h.complete()
    assert turn.content.startswith("The plan is to") and "cut at the output cap of 64 tokens" in turn.content
    assert len(h.server.chat_requests) == 1


def test_a_stream_that_stalls_mid_reply_is_retried(harness: Any) -> None:
    h = harness([{"content": "slow slow slow", "chunk_delay": 2.0}, {"content": "fast"}], stream_idle_timeout=0.3,
                max_retries=1)
    turn = h.complete()
    assert turn.content == "fast"
    assert h.logged("sent nothing for 0.3 s (stall_timeout)")
