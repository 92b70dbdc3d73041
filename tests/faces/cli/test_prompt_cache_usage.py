"""What the server's prompt cache did, through the real CLI against the scripted server: cached and prefilled
prompt tokens and prefill seconds per request (stream-json `usage` events) and per session (the JSON result's
`usage` and `cost`), and the cache request fields sent only to the server kinds that define them."""

from __future__ import annotations

import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pexpect

from sneakycode.faces.terminal.status import cache_summary, status_text
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli
from tests.faces.cli.test_headless import ENV, call, finish
from tests.faces.terminal.test_app import spawn, wait_for_prompt
from tests.faces.terminal.test_input_units import usage

# llama.cpp's own accounting: its usage counts the whole prompt, `timings` what was evaluated and reused.
LLAMA_TURNS = [
    {**call("list_dir", path="."), "usage": {"prompt_tokens": 6000, "completion_tokens": 10},
     "timings": {"prompt_n": 6000, "cache_n": 0, "prompt_ms": 2400.0, "predicted_n": 10}},
    {**finish("Done."), "usage": {"prompt_tokens": 6400, "completion_tokens": 8},
     "timings": {"prompt_n": 400, "cache_n": 6000, "prompt_ms": 250.0, "predicted_n": 8}},
]


def headless(server: ScriptedServer, ws: Path, *flags: str) -> CliResult:
    return run_cli("-p", "Look around", "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                   str(ws), *flags, env=ENV)


def events_of(result: CliResult) -> list[dict[str, Any]]:
    assert result.code == 0, result.stderr
    schema = json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text())
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        jsonschema.validate(event, schema)
    return events


def test_llama_cpp_timings_become_cached_and_prefilled_tokens_per_request_and_session(ws: Path) -> None:
    """llama.cpp's `timings` (prompt_n evaluated, cache_n reused, prompt_ms) reach the usage events, the final
    result and the session's cost; every request asked it to keep its cache (`cache_prompt: true`)."""
    with ScriptedServer({"steps": LLAMA_TURNS, "server_kind": "llamacpp"}) as server:
        events = events_of(headless(server, ws, "--output-format", "stream-json"))
        requests = server.chat_requests
    assert [r.get("cache_prompt") for r in requests] == [True, True]
    assert all("keep_alive" not in r for r in requests)
    usage = [e for e in events if e["type"] == "usage"]
    picked = [(u["prompt_tokens"], u["cached_tokens"], u["prefilled_tokens"], u["prefill_seconds"], u["cache_reported"])
              for u in usage]
    assert picked == [(6000, 0, 6000, 2.4, True), (6400, 6000, 400, 0.25, True)]
    last = usage[-1]
    assert (last["session_cached_tokens"], last["session_prefilled_tokens"], last["session_prefill_seconds"]) == (
        6000, 6400, 2.65)
    [final] = [e for e in events if e["type"] == "final"]
    assert final["usage"]["cached_tokens"] == 6000 and final["usage"]["prefilled_tokens"] == 6400
    assert final["usage"]["prefill_seconds"] == 2.65 and final["usage"]["cache_reported"] is True
    cost = final["cost"]
    assert (cost["cached_tokens"], cost["prefilled_tokens"], cost["prefill_seconds"]) == (6000, 6400, 2.65)


def test_openai_style_cached_tokens_are_reported_and_nothing_extra_is_sent(ws: Path) -> None:
    """OpenAI and vLLM say `prompt_tokens_details.cached_tokens`; a server of unknown kind gets no
    non-standard field (an unknown field can be refused)."""
    turns = [{"content": "Hi.", "usage": {"prompt_tokens": 5000, "completion_tokens": 3,
                                         "prompt_tokens_details": {"cached_tokens": 4864}}}]
    with ScriptedServer({"steps": turns}) as server:
        result = headless(server, ws, "--output-format", "json")
        [request] = server.chat_requests
    assert result.code == 0, result.stderr
    assert "cache_prompt" not in request and "keep_alive" not in request
    shown = json.loads(result.stdout)
    assert shown["usage"]["cached_tokens"] == 4864 and shown["usage"]["prefilled_tokens"] == 136
    assert shown["usage"]["prefill_seconds"] is None and shown["usage"]["cache_reported"] is True


def test_ollama_is_asked_to_keep_the_model_loaded_and_its_silence_on_caching_is_not_zero(ws: Path) -> None:
    """Ollama unloads an idle model (and its cache) after 5 minutes unless asked; it reports nothing cached,
    which is shown as not reported rather than as a cache that served nothing."""
    with ScriptedServer({"steps": [{"content": "Hi."}], "server_kind": "ollama"}) as server:
        events = events_of(headless(server, ws, "--output-format", "stream-json"))
        [request] = server.chat_requests
    assert request.get("keep_alive") == "30m" and "cache_prompt" not in request
    [usage] = [e for e in events if e["type"] == "usage"]
    assert usage["cache_reported"] is False and usage["prefill_seconds"] is None


def test_stats_and_the_status_line_show_what_the_cache_served(ws: Path) -> None:
    """/stats in the real terminal says how much of the session's prompts the cache served and the prefill
    time; the status line shows the share and the seconds, and says nothing where the server is silent."""
    with ScriptedServer({"steps": LLAMA_TURNS, "server_kind": "llamacpp"}) as server:
        child = spawn(ws, server, "--yes", model="scripted-model")
        wait_for_prompt(child)
        child.sendline("look around")
        child.expect("Done.")
        wait_for_prompt(child)
        child.sendline("/stats")
        # The console may wrap the line anywhere (its width comes from the environment), so any white space
        # between the words will do.
        said = "6,000 of 12,400 prompt tokens served from the cache (48%), 6,400 read anew; prefill 2.6 s"
        child.expect(r"\s+".join(re.escape(word) for word in said.split()))
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    facts = usage("m", "default", 0, 8_192, prompt=2_500, completion=18, cached=1_200, prefill=2.65)
    assert status_text(facts) == " m · default · context 0% of 8k · 2,518 tokens · cached 48% · prefill 2.6 s"
    silent = status_text(usage("m", "default", 0, 8_192, prompt=2_500, completion=18))
    assert "cached" not in silent and "prefill" not in silent
    assert cache_summary(0, 2_500, reported=False) == "not reported by this server"
