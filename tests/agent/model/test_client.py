"""The OpenAI-compatible client over real HTTP against the scripted server, through both transports: the thin
client on httpx2 (the default) and the official SDK (`model_client = "openai-sdk"`). Every case runs on each,
so the two retry, classify and assemble alike."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from sneakycode.agent.model.client import OpenAIChatModel, build_chat_model, prepare_messages
from sneakycode.agent.model.providers import ModelConfig
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.errors import ModelError
from sneakycode.testing.server import ScriptedServer

USER = [{"role": "user", "content": "Add a --verbose flag."}]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("read_file", "str_replace", "finish")
]
READ = {"name": "read_file", "arguments": {"file_path": "src/app.py"}}
EDIT = {"name": "str_replace", "arguments": {"file_path": "src/app.py", "old_str": "a", "new_str": "b"}}


@dataclass
class Harness:
    server: ScriptedServer
    model: OpenAIChatModel
    log: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)

    def complete(self, messages: list[dict[str, Any]] | None = None, tools: list[dict[str, Any]] | None = None,
                 cancel: threading.Event | None = None) -> AssistantTurn:
        return self.model.complete(
            USER if messages is None else messages, TOOLS if tools is None else tools,
            on_text=self.shown.append, cancel=cancel,
        )

    def logged(self, text: str) -> bool:
        return any(text in line for line in self.log)


@pytest.fixture(params=["builtin", "openai-sdk"])
def harness(request: pytest.FixtureRequest) -> Iterator[Callable[..., Harness]]:
    opened: list[Harness] = []

    def start(script: Any, **config: Any) -> Harness:
        server = ScriptedServer(script).start()
        settings = {"provider": "custom", "base_url": server.base_url, "model": "scripted-model",
                    "api_key": "test-key", "key_source": "the environment variable TEST_KEY",
                    "model_source": "the --model flag", "request_timeout": 5.0, "retry_backoff": 0.0,
                    "client": request.param, **config}
        log: list[str] = []
        model = OpenAIChatModel(ModelConfig(**settings), debug_log=log.append)
        opened.append(Harness(server, model, log))
        return opened[-1]

    yield start
    for h in opened:
        h.model.close()
        h.server.stop()


def test_streamed_text_reaches_on_text_as_it_arrives_and_usage_comes_from_the_server(harness: Any) -> None:
    h = harness({"steps": [{"content": "Here is a plan with several words."}], "chunk_size": 5})
    turn = h.complete()
    assert turn.content == "Here is a plan with several words." and turn.tool_calls == []
    assert len(h.shown) > 3 and "".join(h.shown) == turn.content
    assert turn.finish_reason == "stop"
    assert turn.usage.prompt_tokens > 0 and not turn.usage.estimated
    body = h.server.chat_requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["tools"] == TOOLS and body["model"] == "scripted-model"


def test_tool_call_fragments_are_joined_into_whole_calls(harness: Any) -> None:
    h = harness({"steps": [{"content": "Reading and editing.", "tool_calls": [READ, EDIT]}], "chunk_size": 3})
    turn = h.complete()
    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [
        ("read_file", READ["arguments"]), ("str_replace", EDIT["arguments"])
    ]
    assert [c.id for c in turn.tool_calls] == ["call_0_0", "call_0_1"]
    assert turn.finish_reason == "tool_calls"


def test_regression_repeated_id_and_name_in_every_delta_are_taken_once(harness: Any) -> None:
    """llama.cpp repeats id and name in each delta; concatenating them gave `read_fileread_fileread_file`."""
    h = harness({"steps": [{"tool_calls": [READ, EDIT]}], "chunk_size": 4, "quirks": {"repeat_tool_call_ids": True}})
    turn = h.complete()
    assert [c.name for c in turn.tool_calls] == ["read_file", "str_replace"]
    assert [c.id for c in turn.tool_calls] == ["call_0_0", "call_0_1"]
    assert json.loads(turn.tool_calls[1].arguments) == EDIT["arguments"]


def test_usage_is_estimated_when_the_server_ignores_include_usage(harness: Any) -> None:
    h = harness({"steps": [{"content": "x" * 400}, {"content": "y"}], "quirks": {"ignore_include_usage": True}})
    turn = h.complete()
    assert turn.usage.estimated
    assert turn.usage.completion_tokens == 100
    assert turn.usage.prompt_tokens >= len(json.dumps(USER)) // 4
    h.complete()
    assert sum("estimating" in line for line in h.log) == 1


def test_regression_empty_event_stream_with_tools_falls_back_to_non_streaming_for_the_session(harness: Any) -> None:
    """llama.cpp answers a streaming request with tools by HTTP 200 and no events; that is not a reply."""
    h = harness({"steps": [{"content": "first"}, {"content": "second"}],
                 "quirks": {"empty_stream_with_tools": True}})
    assert h.complete().content == "first"
    assert h.complete().content == "second"
    assert [body.get("stream", False) for body in h.server.chat_requests] == [True, False, False]
    assert h.logged("retrying without streaming")
    assert h.shown == ["first", "second"]


@pytest.mark.parametrize("status", [500, 422])
def test_regression_assistant_tool_call_messages_are_sent_with_empty_string_content(harness: Any, status: int) -> None:
    """llama.cpp and LM Studio answer 500/422 when an assistant message with tool calls has `content: null`."""
    h = harness({"steps": [{"content": "ok"}], "quirks": {"reject_null_content": status}})
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    history = [*USER, {"role": "assistant", "content": None, "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1", "content": "1\tprint()"}]
    assert h.complete(history).content == "ok"
    assert h.server.chat_requests[0]["messages"][1]["content"] == ""


@pytest.mark.parametrize("field_name", ["reasoning_content", "reasoning"])
def test_reasoning_is_kept_apart_from_the_content(harness: Any, field_name: str) -> None:
    h = harness([{"content": "Use argparse.", "reasoning": "The user wants a flag.", "reasoning_field": field_name}])
    turn = h.complete()
    assert turn.reasoning == "The user wants a flag."
    assert turn.content == "Use argparse." and "".join(h.shown) == "Use argparse."


def test_reasoning_kept_in_the_history_is_never_sent_back(harness: Any) -> None:
    h = harness([{"content": "ok"}])
    history = [*USER, {"role": "assistant", "content": "Sure.", "reasoning": "secret", "reasoning_content": "secret"},
               {"role": "user", "content": "go on"}]
    h.complete(history)
    sent = h.server.chat_requests[0]["messages"]
    assert sent[1] == {"role": "assistant", "content": "Sure."}
    assert "secret" not in json.dumps(sent)


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 100])
def test_think_tags_in_the_content_are_reasoning_even_split_across_chunks(harness: Any, chunk_size: int) -> None:
    h = harness({"steps": [{"content": "<think>plan it</think>\n\nAnswer."}], "chunk_size": chunk_size})
    turn = h.complete()
    assert (turn.reasoning, turn.content) == ("plan it", "Answer.")
    assert "".join(h.shown) == "Answer.", "the think part is never streamed to the user"


def test_an_unclosed_think_at_the_start_is_all_reasoning(harness: Any) -> None:
    h = harness({"steps": [{"content": "<think>still weighing it", "finish_reason": "length"}], "chunk_size": 4})
    turn = h.complete()
    assert (turn.reasoning, turn.content, turn.tool_calls) == ("still weighing it", "", [])
    assert h.shown == [] and len(h.server.chat_requests) == 1, "a reasoning-only reply goes to the loop as is"


def test_think_tags_join_the_reasoning_field(harness: Any) -> None:
    h = harness([{"content": "<think>second</think>Answer.", "reasoning": "first"}])
    assert h.complete().reasoning == "first\n\nsecond"


@pytest.mark.parametrize("stream", [True, False])
def test_a_tool_call_written_inside_think_is_never_parsed(harness: Any, stream: bool) -> None:
    thought = '<think>maybe <tool_call>{"name": "str_replace", "arguments": {}}</tool_call>? No.</think>'
    script: dict[str, Any] = {"steps": [{"content": thought + "I will not edit."}], "chunk_size": 5}
    if not stream:
        script["quirks"] = {"empty_stream_with_tools": True}
    h = harness(script)
    turn = h.complete()
    assert turn.tool_calls == [] and turn.content == "I will not edit."
    assert "tool_call" in turn.reasoning and "".join(h.shown) == "I will not edit."


def test_a_tool_call_after_think_is_parsed_and_the_reasoning_kept(harness: Any) -> None:
    content = '<think>read first</think><tool_call>{"name": "read_file", "arguments": {"file_path": "a"}}</tool_call>'
    h = harness({"steps": [{"content": content}], "chunk_size": 6})
    turn = h.complete()
    assert [c.name for c in turn.tool_calls] == ["read_file"] and turn.reasoning == "read first"
    assert h.shown == []


def test_tool_calls_written_as_tagged_text_become_tool_calls(harness: Any) -> None:
    h = harness({"steps": [{"content": "I will read it.", "tool_calls": [READ]}], "chunk_size": 4,
                 "quirks": {"tool_calls_as_text": "tagged"}})
    turn = h.complete()
    assert [(c.name, json.loads(c.arguments)) for c in turn.tool_calls] == [("read_file", READ["arguments"])]
    assert turn.content == "I will read it."
    assert "<tool" not in "".join(h.shown), "the raw tag is not shown to the user"
    assert h.logged("wrote 1 tool call(s) as text (read_file)")


def test_a_bare_json_object_naming_a_known_tool_becomes_a_tool_call(harness: Any) -> None:
    h = harness({"steps": [{"tool_calls": [EDIT]}], "quirks": {"tool_calls_as_text": "bare"}})
    turn = h.complete()
    assert [c.name for c in turn.tool_calls] == ["str_replace"] and turn.content == ""
    assert h.shown == []


def test_json_that_names_no_offered_tool_stays_text(harness: Any) -> None:
    reply = json.dumps({"name": "launch_rockets", "arguments": {}})
    h = harness([{"content": reply}])
    turn = h.complete()
    assert turn.tool_calls == [] and turn.content == reply
    assert "".join(h.shown) == reply


@pytest.mark.parametrize(
    ("fault", "logged"),
    [
        ({"fault": "status", "status": 500}, "HTTP 500"),
        ({"fault": "status", "status": 503, "message": "overloaded"}, "HTTP 503: overloaded"),
        ({"fault": "drop"}, "connection failed"),
        ({"fault": "drop_mid_stream", "message": "Half"}, "connection failed"),
        ({"fault": "malformed_sse"}, "malformed reply"),
    ],
)
def test_transient_failures_are_retried_until_a_reply_arrives(harness: Any, fault: dict[str, Any],
                                                              logged: str) -> None:
    h = harness([fault, {"content": "recovered"}])
    assert h.complete().content == "recovered"
    assert len(h.server.chat_requests) == 2
    assert h.logged(f"{logged}") and h.logged("retry 1 of 4")


def test_a_429_waits_as_long_as_retry_after_says(harness: Any) -> None:
    h = harness([{"fault": "status", "status": 429, "retry_after": "0.05"}, {"content": "ok"}], retry_backoff=20.0)
    assert h.complete().content == "ok"
    assert h.logged("HTTP 429") and h.logged("in 0.05 s (Retry-After)")


def test_a_hung_request_times_out_at_request_timeout_and_is_retried(harness: Any) -> None:
    h = harness([{"fault": "hang", "seconds": 10}, {"content": "ok"}], request_timeout=0.3)
    assert h.complete().content == "ok"
    assert h.logged("the request timed out")


def test_retries_are_bounded_by_max_retries_and_end_in_a_model_error(harness: Any) -> None:
    h = harness([{"fault": "status", "status": 500, "message": "boom"}] * 3 + [{"content": "never"}], max_retries=2)
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "server"
    assert "after 2 retries" in exc.value.message and "HTTP 500: boom" in exc.value.message
    assert len(h.server.chat_requests) == 3


def test_a_dead_local_server_is_reported_with_how_to_start_it(harness: Any) -> None:
    h = harness([], max_retries=1, local=True, help="start it with `ollama serve`")
    url = h.server.base_url
    h.server.stop()
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "connection"
    assert f"cannot reach {url} after 1 retry" in exc.value.message and "ollama serve" in exc.value.message


def test_a_rejected_key_says_where_the_key_came_from_and_is_not_retried(harness: Any) -> None:
    h = harness({"steps": [{"content": "never"}], "api_key": "the-right-key"})
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "auth"
    assert "rejected the API key" in exc.value.message
    assert "the environment variable TEST_KEY" in exc.value.message
    assert len(h.server.chat_requests) == 1


def test_an_unknown_model_lists_the_models_the_server_offers(harness: Any) -> None:
    h = harness({"steps": [], "models": ["qwen2.5-coder:14b", "llama3.1:8b"]}, model="gpt-5")
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "model_not_found"
    message = exc.value.message
    assert "does not offer the model 'gpt-5' (from the --model flag" in message
    assert "It offers: qwen2.5-coder:14b, llama3.1:8b" in message


def test_an_oversized_conversation_is_reported_as_a_context_length_error(harness: Any) -> None:
    too_long = {"fault": "status", "status": 400, "code": "context_length_exceeded",
                "message": "This model's maximum context length is 8192 tokens."}
    h = harness([too_long])
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "context_length" and len(h.server.chat_requests) == 1


def test_an_empty_reply_is_asked_again_once(harness: Any) -> None:
    h = harness([{"content": ""}, {"content": "Now with text."}])
    assert h.complete().content == "Now with text."
    assert h.logged("empty reply") and len(h.server.chat_requests) == 2


def test_two_empty_replies_in_a_row_are_reported(harness: Any) -> None:
    h = harness([{"content": "", "finish_reason": "length"}, {"content": "  "}, {"content": "x"}])
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "empty_reply" and "empty reply twice" in exc.value.message
    assert h.server.remaining_steps == 1


def test_cancel_stops_a_slow_stream_and_keeps_the_text_so_far(harness: Any) -> None:
    words = " ".join(f"word{i}" for i in range(40))
    h = harness({"steps": [{"content": words, "tool_calls": [READ], "chunk_delay": 0.5}], "chunk_size": 6})
    cancel = threading.Event()
    turn = h.model.complete(USER, TOOLS, on_text=lambda text: (h.shown.append(text), cancel.set()), cancel=cancel)
    assert turn.finish_reason == "cancelled"
    assert turn.tool_calls == []
    assert 0 < len(turn.content) < len(words) and words.startswith(turn.content)


def test_cancel_during_a_retry_wait_returns_at_once(harness: Any) -> None:
    h = harness([{"fault": "status", "status": 429, "retry_after": "60"}, {"content": "too late"}])
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    turn = h.complete(cancel=cancel)
    timer.join()
    assert turn.finish_reason == "cancelled" and turn.content == ""
    assert len(h.server.chat_requests) == 1


def test_a_retry_after_beyond_two_minutes_is_reported_instead_of_waited_for(harness: Any) -> None:
    h = harness([{"fault": "status", "status": 429, "retry_after": "3600", "message": "daily limit"}])
    with pytest.raises(ModelError) as exc:
        h.complete()
    assert exc.value.kind == "rate_limit" and "asks to wait 3600 s" in exc.value.message


def test_regression_a_proxy_in_the_environment_does_not_capture_a_local_server(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HTTP_PROXY set, requests to Ollama on 127.0.0.1 went to the proxy and failed."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    h = harness([{"content": "direct"}], max_retries=0)
    assert h.complete().content == "direct"


def test_prepare_messages_sends_only_standard_keys() -> None:
    """What the loop keeps for itself (image sizes, the tool-images mark) and anything a type does not
    declare (a refusal, a timestamp) never reaches the server; an empty tool_calls is left out."""
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    history: list[Any] = [
        {"role": "system", "content": "Be brief.", "timestamp": 1},
        {"role": "user", "content": [{"type": "text", "text": "see"}, image], "image_sizes": [[2, 2]],
         "tool_images": True},
        {"role": "assistant", "content": "ok", "tool_calls": [], "refusal": "r"},
        {"content": "done", "tool_call_id": "c1", "role": "tool", "name": "read_file", "elided": True},
    ]
    sent = prepare_messages(history)
    assert sent == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "see"}, image]},
        {"role": "assistant", "content": "ok"},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
    ]
    assert list(sent[3]) == ["role", "tool_call_id", "content"]  # the declared order, whatever came in


def test_build_chat_model_gives_a_working_chat_model() -> None:
    with ScriptedServer([{"content": "built"}]) as server:
        config = ModelConfig(provider="custom", base_url=server.base_url, model="m", api_key="k")
        model = build_chat_model(replace(config, retry_backoff=0.0))
        assert model.complete(USER, []).content == "built"
        assert "tools" not in server.chat_requests[0]
