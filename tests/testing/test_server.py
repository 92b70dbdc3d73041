"""The scripted OpenAI-compatible server: what it sends, what it records, and each failure it can play."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import openai
import pytest

from sneakycode.testing.script import ScriptError
from sneakycode.testing.server import ScriptedServer

USER = [{"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]
READ = {"name": "read_file", "arguments": {"file_path": "src/app.py"}}


def raw_post(server: ScriptedServer, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    """One chat request over plain http.client, so tests see exactly what the server sends."""
    url = urlparse(server.base_url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=5)
    try:
        conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def sse_events(data: bytes) -> list[Any]:
    events = []
    for block in data.decode().split("\n\n"):
        if block.startswith("data: "):
            payload = block[len("data: ") :]
            events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events


def joined_tool_calls(events: list[Any]) -> list[dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for event in events[:-1]:
        for choice in event["choices"]:
            for delta in choice["delta"].get("tool_calls", []):
                call = calls.setdefault(delta["index"], {"names": [], "ids": [], "arguments": ""})
                call["names"].append(delta.get("function", {}).get("name"))
                call["ids"].append(delta.get("id"))
                call["arguments"] += delta.get("function", {}).get("arguments", "")
    return [calls[i] for i in sorted(calls)]


@pytest.fixture
def client() -> Iterator[Any]:
    made: list[openai.OpenAI] = []

    def make(server: ScriptedServer, key: str = "test-key") -> openai.OpenAI:
        made.append(openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=5))
        return made[-1]

    yield make
    for c in made:
        c.close()


def test_streamed_turn_arrives_in_pieces_that_join_to_the_scripted_reply() -> None:
    script = {"steps": [{"content": "Let me look at the app first.", "tool_calls": [READ]}], "chunk_size": 8}
    with ScriptedServer(script) as server:
        status, headers, data = raw_post(
            server, {"model": "m", "messages": USER, "stream": True, "stream_options": {"include_usage": True}}
        )
    events = sse_events(data)
    assert status == 200 and headers["content-type"] == "text/event-stream"
    assert events[-1] == "[DONE]"
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"])
    assert text == "Let me look at the app first."
    content_chunks = [e for e in events[:-1] if e["choices"] and e["choices"][0]["delta"].get("content")]
    assert len(content_chunks) > 1
    [call] = joined_tool_calls(events)
    assert json.loads(call["arguments"]) == {"file_path": "src/app.py"}
    assert [n for n in call["names"] if n] == ["read_file"], "OpenAI sends the name once"
    assert events[-2]["choices"] == [] and events[-2]["usage"]["total_tokens"] > 0
    assert events[-3]["choices"][0]["finish_reason"] == "tool_calls"


def test_non_streamed_turn_is_a_chat_completion_the_sdk_parses(client: Any) -> None:
    with ScriptedServer([{"content": "Done.", "reasoning": "Easy.", "tool_calls": [READ]}]) as server:
        completion = client(server).chat.completions.create(model="m", messages=USER)
    message = completion.choices[0].message
    assert message.content == "Done."
    assert message.tool_calls[0].function.name == "read_file"
    assert message.to_dict()["reasoning_content"] == "Easy."
    assert completion.usage is not None and completion.usage.prompt_tokens > 0


def test_every_request_is_recorded_with_its_body_and_answer(client: Any) -> None:
    with ScriptedServer([{"content": "one"}, {"fault": "status", "status": 503}]) as server:
        sdk = client(server)
        sdk.chat.completions.create(model="m", messages=USER, tools=TOOLS)
        with pytest.raises(openai.InternalServerError):
            sdk.chat.completions.create(model="m", messages=USER)
        assert [m.id for m in sdk.models.list()] == ["scripted-model"]
    assert [(r.method, r.status) for r in server.requests] == [("POST", 200), ("POST", 503), ("GET", 200)]
    assert server.chat_requests[0]["tools"] == TOOLS
    assert server.requests[0].headers["authorization"] == "Bearer test-key"
    assert server.remaining_steps == 0


def test_a_429_carries_the_scripted_retry_after_header() -> None:
    with ScriptedServer([{"fault": "status", "status": 429, "retry_after": "0.5", "message": "slow down"}]) as server:
        status, headers, data = raw_post(server, {"model": "m", "messages": USER})
    assert status == 429 and headers["retry-after"] == "0.5"
    assert json.loads(data)["error"]["message"] == "slow down"


@pytest.mark.parametrize(
    ("fault", "error"),
    [("drop", openai.APIConnectionError), ("drop_mid_stream", openai.APIConnectionError),
     ("malformed_sse", json.JSONDecodeError)],
)
def test_stream_faults_reach_the_sdk_as_failures(client: Any, fault: str, error: type[Exception]) -> None:
    with ScriptedServer([{"fault": fault}]) as server, pytest.raises(error):
        list(client(server).chat.completions.create(model="m", messages=USER, stream=True))


def test_empty_stream_fault_is_a_200_without_events(client: Any) -> None:
    with ScriptedServer([{"fault": "empty_stream"}]) as server:
        chunks = list(client(server).chat.completions.create(model="m", messages=USER, stream=True))
    assert chunks == []
    assert server.requests[0].status == 200


def test_hang_fault_holds_the_request_until_the_client_times_out() -> None:
    with ScriptedServer([{"fault": "hang", "seconds": 5}]) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=0.2)
        with pytest.raises(openai.APITimeoutError):
            sdk.chat.completions.create(model="m", messages=USER)
        sdk.close()


def test_repeat_tool_call_ids_quirk_sends_id_and_name_in_every_delta() -> None:
    script = {"steps": [{"tool_calls": [READ]}], "chunk_size": 4, "quirks": {"repeat_tool_call_ids": True}}
    with ScriptedServer(script) as server:
        _, _, data = raw_post(server, {"model": "m", "messages": USER, "stream": True})
    [call] = joined_tool_calls(sse_events(data))
    assert len(call["names"]) > 3
    assert set(call["names"]) == {"read_file"} and set(call["ids"]) == {"call_0_0"}
    assert json.loads(call["arguments"]) == {"file_path": "src/app.py"}


def test_empty_stream_with_tools_quirk_answers_streaming_tool_requests_with_nothing() -> None:
    script = {"steps": [{"content": "served"}], "quirks": {"empty_stream_with_tools": True}}
    with ScriptedServer(script) as server:
        _, _, streamed = raw_post(server, {"model": "m", "messages": USER, "tools": TOOLS, "stream": True})
        assert streamed == b"" and server.remaining_steps == 1
        status, _, plain = raw_post(server, {"model": "m", "messages": USER, "tools": TOOLS})
    assert status == 200 and json.loads(plain)["choices"][0]["message"]["content"] == "served"


@pytest.mark.parametrize("status", [500, 422])
def test_reject_null_content_quirk_refuses_null_content_beside_tool_calls(status: int) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    history = [*USER, {"role": "assistant", "content": None, "tool_calls": [call]},
               {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    script = {"steps": [{"content": "fine"}], "quirks": {"reject_null_content": status}}
    with ScriptedServer(script) as server:
        assert raw_post(server, {"model": "m", "messages": history})[0] == status
        history[1]["content"] = ""
        assert raw_post(server, {"model": "m", "messages": history})[0] == 200


def test_ignore_include_usage_quirk_sends_no_usage_chunk() -> None:
    script = {"steps": [{"content": "hi"}], "quirks": {"ignore_include_usage": True}}
    with ScriptedServer(script) as server:
        _, _, data = raw_post(
            server, {"model": "m", "messages": USER, "stream": True, "stream_options": {"include_usage": True}}
        )
    assert not any("usage" in e for e in sse_events(data)[:-1])


def test_tool_calls_as_text_quirk_writes_the_calls_into_the_content(client: Any) -> None:
    tagged = {"steps": [{"content": "Reading.", "tool_calls": [READ]}], "quirks": {"tool_calls_as_text": "tagged"}}
    bare = {"steps": [{"tool_calls": [READ]}], "quirks": {"tool_calls_as_text": "bare"}}
    with ScriptedServer(tagged) as server:
        message = client(server).chat.completions.create(model="m", messages=USER).choices[0].message
    assert message.tool_calls is None
    assert message.content.startswith("Reading.\n<tool_call>") and message.content.endswith("</tool_call>")
    with ScriptedServer(bare) as server:
        message = client(server).chat.completions.create(model="m", messages=USER).choices[0].message
    assert json.loads(message.content) == READ


def test_api_key_and_models_make_the_server_strict(client: Any) -> None:
    script = {"steps": [{"content": "ok"}], "api_key": "right", "models": ["alpha", "beta"]}
    with ScriptedServer(script) as server:
        with pytest.raises(openai.AuthenticationError):
            client(server, key="wrong").chat.completions.create(model="alpha", messages=USER)
        with pytest.raises(openai.NotFoundError) as exc:
            client(server, key="right").chat.completions.create(model="gamma", messages=USER)
        assert exc.value.code == "model_not_found"
        assert [m.id for m in client(server, key="right").models.list()] == ["alpha", "beta"]
        assert server.remaining_steps == 1


def test_an_exhausted_script_says_so_instead_of_inventing_a_reply() -> None:
    with ScriptedServer([]) as server:
        status, _, data = raw_post(server, {"model": "m", "messages": USER})
    assert status == 400
    assert "no step left" in json.loads(data)["error"]["message"]


def test_steps_can_be_added_while_the_server_runs(client: Any) -> None:
    with ScriptedServer([]) as server:
        server.add_steps([{"content": "late"}])
        reply = client(server).chat.completions.create(model="m", messages=USER)
    assert reply.choices[0].message.content == "late"


@pytest.mark.parametrize(
    ("script", "complaint"),
    [
        ([{"content": "x", "toolcalls": []}], "step 0: unknown key(s) toolcalls"),
        ([{"content": "x"}, {"fault": "explode"}], "step 1: fault must be one of"),
        ({"steps": [], "quirks": {"ignore_usage": True}}, "unknown quirk 'ignore_usage'"),
        ([{"tool_calls": [{"arguments": {}}]}], "step 0 tool call 0: a tool call needs a string 'name'"),
    ],
)
def test_a_malformed_script_is_refused_naming_the_step_and_key(script: Any, complaint: str) -> None:
    with pytest.raises(ScriptError, match=re.escape(complaint)):
        ScriptedServer(script)


def test_runs_as_a_subprocess_that_prints_its_url_and_records_requests(tmp_path: Path) -> None:
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps({"steps": [{"content": "from a subprocess"}]}))
    record = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sneakycode.testing.server", "--script", str(script_file), "--port", "0",
         "--record", str(record)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        sdk = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=5)
        reply = sdk.chat.completions.create(model="m", messages=USER)
        sdk.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert proc.returncode == 0
    assert reply.choices[0].message.content == "from a subprocess"
    [line] = record.read_text().splitlines()
    assert json.loads(line)["body"]["messages"] == USER and json.loads(line)["status"] == 200


def test_a_scripted_delay_holds_every_chat_answer() -> None:
    with ScriptedServer({"steps": [{"content": "slow"}], "delay": 0.3}) as server:
        sdk = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        started = time.monotonic()
        reply = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert time.monotonic() - started >= 0.3
    assert reply.choices[0].message.content == "slow"
