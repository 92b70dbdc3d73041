"""`sneakycode -p TASK --output-format stream-json` through the real CLI against the scripted server: a model
that streams its reasoning has it shown piece by piece (`reasoning_delta`) before the answer it precedes, the
pieces joining to the whole, and the whole `reasoning` event after it says it was streamed (issue 38)."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import jsonschema

from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli

LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
STREAM = jsonschema.Draft202012Validator(
    json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text()))
THOUGHT = "The user wants a greeting. Nothing to look up; a short friendly reply will do."
ANSWER = "Hello there, how can I help?"


def test_reasoning_deltas_come_before_the_answer_and_join_to_the_reasoning(ws: Path) -> None:
    script = {"chunk_size": 8, "steps": [{"reasoning": THOUGHT, "content": ANSWER, "chunk_delay": 0.01}]}
    with ScriptedServer(script) as server:
        result = run_cli("-p", "hi", "--base-url", server.base_url, "--model", "scripted-model",
                         "--workspace", str(ws), "--output-format", "stream-json", env=LOOPBACK)
    assert result.code == ExitCode.OK, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        STREAM.validate(event)
    kinds = [e["type"] for e in events]
    deltas = [e["text"] for e in events if e["type"] == "reasoning_delta"]
    assert len(deltas) > 1 and "".join(deltas) == THOUGHT  # piece by piece, all of it, once
    last_delta = max(i for i, kind in enumerate(kinds) if kind == "reasoning_delta")
    answer = kinds.index("assistant")
    assert last_delta < answer and events[answer]["text"] == ANSWER
    [whole] = [e for e in events if e["type"] == "reasoning"]
    assert whole["text"] == THOUGHT and whole["streamed"] is True  # kept for programs, marked as already shown
