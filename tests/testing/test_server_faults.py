"""The server faults `sneakycode doctor` must find, as the scripted server plays them (issue 28): a call the
server's parser swallowed, streamed arguments split into calls, a silently cut prompt, a refused prompt over the
window, and a prompt cache."""

from __future__ import annotations

import json
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.testing.test_server import READ, TOOLS, USER, joined_tool_calls, raw_post, sse_events


def test_a_swallowed_call_arrives_with_neither_calls_nor_text() -> None:
    with ScriptedServer({"steps": [{"content": "On it.", "tool_calls": [READ]}] * 2,
                         "quirks": {"swallow_tool_calls": True}}) as server:
        _, _, plain = raw_post(server, {"messages": USER, "tools": TOOLS})
        _, _, streamed = raw_post(server, {"messages": USER, "tools": TOOLS, "stream": True})
    message = json.loads(plain)["choices"][0]["message"]
    assert message["content"] is None and "tool_calls" not in message
    events = sse_events(streamed)
    assert joined_tool_calls(events) == []
    assert all(not c["delta"].get("content") for e in events[:-1] for c in e["choices"])


def test_split_streamed_arguments_open_a_new_call_per_fragment() -> None:
    with ScriptedServer({"steps": [{"tool_calls": [READ]}], "chunk_size": 8,
                         "quirks": {"split_streamed_arguments": True}}) as server:
        _, _, streamed = raw_post(server, {"messages": USER, "tools": TOOLS, "stream": True})
    calls = joined_tool_calls(sse_events(streamed))
    assert len(calls) > 2
    assert len({ids[0] for ids in (c["ids"] for c in calls)}) == len(calls)
    assert "".join(c["arguments"] for c in calls) == '{"file_path": "src/app.py"}'


def test_orphan_argument_fragments_arrive_under_new_indexes_without_id_or_name() -> None:
    """Issue 38: the shape older vLLM and llama.cpp builds stream, which the client must join back."""
    with ScriptedServer({"steps": [{"tool_calls": [READ]}], "chunk_size": 8,
                         "quirks": {"orphan_argument_fragments": True}}) as server:
        _, _, streamed = raw_post(server, {"messages": USER, "tools": TOOLS, "stream": True})
    deltas = [d for e in sse_events(streamed)[:-1] for c in e["choices"] for d in c["delta"].get("tool_calls") or []]
    assert deltas[0]["id"] and deltas[0]["function"]["name"] == "read_file"
    orphans = [d for d in deltas if d["index"] > 0]
    assert len(orphans) > 1 and all("id" not in d and "name" not in d["function"] for d in orphans)
    assert "".join(d["function"]["arguments"] for d in deltas) == '{"file_path": "src/app.py"}'


def usage(server: ScriptedServer, messages: list[dict[str, Any]], **more: Any) -> tuple[int, dict[str, Any]]:
    status, _, body = raw_post(server, {"messages": messages, **more})
    payload = json.loads(body)
    return status, payload.get("usage") or payload


def test_truncate_prompt_caps_the_reported_prompt_tokens() -> None:
    long = [{"role": "user", "content": "word " * 4000}]
    with ScriptedServer({"steps": [{"content": "ok"}] * 2, "quirks": {"truncate_prompt": 1000}}) as server:
        _, cut = usage(server, long)
        _, short = usage(server, USER)
    assert cut["prompt_tokens"] == 1000
    assert short["prompt_tokens"] < 1000


def test_max_prompt_tokens_refuses_a_longer_prompt_as_vllm_does() -> None:
    long = [{"role": "user", "content": "word " * 4000}]
    with ScriptedServer({"steps": [{"content": "ok"}], "quirks": {"max_prompt_tokens": 2048}}) as server:
        status, error = usage(server, long, max_tokens=8)
        ok, _ = usage(server, USER, max_tokens=8)
    assert status == 400 and ok == 200
    assert error["error"]["code"] == "context_length_exceeded"
    assert error["error"]["message"].startswith("This model's maximum context length is 2048 tokens.")


def test_prompt_cache_reports_the_prefix_shared_with_the_last_prompt() -> None:
    long = [{"role": "user", "content": "word " * 400}]
    with ScriptedServer({"steps": [{"content": "ok"}] * 3, "quirks": {"prompt_cache": True}}) as server:
        _, first = usage(server, long)
        _, again = usage(server, long)
        _, other = usage(server, USER)
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    assert again["prompt_tokens_details"]["cached_tokens"] == again["prompt_tokens"] > 400
    assert other["prompt_tokens_details"]["cached_tokens"] < 10
