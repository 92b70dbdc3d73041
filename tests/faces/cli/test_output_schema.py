"""`sneakycode -p TASK --output-schema FILE` through the real CLI against the scripted server: the final answer
must be JSON valid against the schema; an invalid one goes back to the model once with the validation errors;
the JSON result carries `structured_output`; an answer that stays invalid is a clean, coded failure (exit 1);
a schema that cannot be used is a usage error (exit 2) before any request."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli

LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "SNEAKYCODE_RETRY_BACKOFF": "0.01"}
STREAM = jsonschema.Draft202012Validator(
    json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text()))
VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}, "score": {"type": "integer", "minimum": 0}},
    "required": ["verdict", "score"],
    "additionalProperties": False,
}


def finish(message: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "finish", "arguments": {"message": message}}]}


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "verdict.schema.json"
    path.write_text(json.dumps(VERDICT))
    return path


def headless(server: ScriptedServer, ws: Path, schema: Path, *flags: str) -> CliResult:
    return run_cli("-p", "Judge the code", "--base-url", server.base_url, "--model", "scripted-model",
                   "--workspace", str(ws), "--output-schema", str(schema), *flags, env=LOOPBACK)


def test_an_invalid_answer_goes_back_once_with_the_errors_and_the_valid_one_is_structured_output(
        ws: Path, schema_file: Path) -> None:
    with ScriptedServer([finish('{"verdict": "maybe"}'), finish('{"verdict": "pass", "score": 7}')]) as server:
        result = headless(server, ws, schema_file, "--output-format", "json")
        requests = server.chat_requests
    assert result.code == ExitCode.OK, result.stderr
    shown = json.loads(result.stdout)
    assert shown["structured_output"] == {"verdict": "pass", "score": 7}
    assert (shown["status"], shown["error_code"]) == ("finished", None)
    assert len(requests) == 2
    system = requests[0]["messages"][0]["content"]
    assert "# Output format" in system and '"required":["verdict","score"]' in system  # the schema, told up front
    feedback = requests[1]["messages"][-1]
    assert feedback["role"] == "user" and "does not validate against the output schema" in feedback["content"]
    assert "'maybe' is not one of ['pass', 'fail']" in feedback["content"]
    assert "'score' is a required property" in feedback["content"]
    assert "does not match the output schema" in result.stderr  # the retry is said, not silent


def test_stream_json_final_carries_structured_output_and_the_retry_notice(ws: Path, schema_file: Path) -> None:
    """The answered path (a reply without a tool call), and a fenced JSON block accepted as the answer."""
    with ScriptedServer([{"content": "Looks fine to me."},
                         {"content": '```json\n{"verdict": "fail", "score": 2}\n```'}]) as server:
        result = headless(server, ws, schema_file, "--output-format", "stream-json")
    assert result.code == ExitCode.OK, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        STREAM.validate(event)
    assert any(e["type"] == "notice" and "output schema" in e["message"] for e in events)
    final = events[-1]
    assert final["type"] == "final" and final["status"] == "answered"
    assert final["structured_output"] == {"verdict": "fail", "score": 2}


def test_an_answer_never_valid_is_a_clean_coded_failure_with_exit_1(ws: Path, schema_file: Path) -> None:
    with ScriptedServer([finish("pass, 7"), finish('{"verdict": "pass", "score": -1}'),
                         finish("never asked")]) as server:
        result = headless(server, ws, schema_file, "--output-format", "json")
        asked = len(server.chat_requests)
    assert result.code == ExitCode.FAILURE == 1
    assert asked == 2  # one retry, never a third request
    shown = json.loads(result.stdout)
    assert (shown["status"], shown["success"], shown["error_code"]) == ("error", False, "output_schema_mismatch")
    assert shown["structured_output"] is None
    assert "-1 is less than the minimum of 0" in shown["result"] and '"score": -1' in shown["result"]
    assert "[output_schema_mismatch]" in result.stderr and "Traceback" not in result.stderr


def test_text_output_prints_the_valid_answer_as_plain_json(ws: Path, schema_file: Path) -> None:
    with ScriptedServer([finish('```json\n{"verdict": "pass",\n "score": 1}\n```')]) as server:
        result = headless(server, ws, schema_file)
    assert result.code == 0, result.stderr
    assert result.stdout == '{"verdict": "pass", "score": 1}\n'  # ready for a pipe into jq


@pytest.mark.parametrize(("content", "said"), [
    ('{"type": "object", "required": "verdict"}', "is not a valid JSON Schema"),
    ("{not json", "is not JSON"),
    ('["an", "array"]', "must be a JSON object"),
    (None, "cannot be read"),
])
def test_an_unusable_schema_is_a_usage_error_before_any_request(ws: Path, tmp_path: Path, content: str | None,
                                                                said: str) -> None:
    schema = tmp_path / "bad.json"
    if content is not None:
        schema.write_text(content)
    with ScriptedServer([finish("{}")]) as server:
        result = headless(server, ws, schema, "--output-format", "json")
        sent = server.requests
    assert result.code == ExitCode.USAGE == 2
    assert sent == []  # nothing reached the server, not even a model listing
    assert said in result.stderr and "--output-schema" not in result.stdout and "Traceback" not in result.stderr


def test_a_schema_ref_to_a_url_or_a_file_is_refused_before_any_request(ws: Path, tmp_path: Path) -> None:
    """Hardening round three, class 5: an output schema's `$ref` fetches nothing. A URL (a private address
    here) is never requested and a `file://` ref never reads the file, whose text would reach the model in the
    retry message; the run stops before any request with a coded usage error naming the ref."""
    secret = tmp_path / "secret.txt"
    secret.write_text('"TOP-SECRET-TOKEN"')
    with ScriptedServer([]) as target, ScriptedServer([finish('{"a": 1}'), finish('{"a": 2}')]) as server:
        for ref in (f"{target.base_url}/schema.json", secret.as_uri()):
            schema = tmp_path / "ref.json"
            schema.write_text(json.dumps({"type": "object", "properties": {"a": {"$ref": ref}}}))
            result = headless(server, ws, schema, "--output-format", "json")
            assert result.code == ExitCode.USAGE, result.stdout
            assert "[output_schema_invalid]" in result.stderr and repr(ref) in result.stderr
            assert "Traceback" not in result.stderr
        assert target.requests == [] and server.requests == []


def test_a_catastrophic_pattern_is_matched_in_linear_time(ws: Path, tmp_path: Path) -> None:
    """Hardening round three, class 5: a schema pattern that backtracks exponentially in Python's `re` runs on
    RE2, so checking the answer takes no time and the run keeps to its timeout."""
    schema = tmp_path / "pattern.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"name": {"pattern": "^(a+)+$"}},
                                  "patternProperties": {"^(x+x+)+y$": {"type": "string"}},
                                  "additionalProperties": False}))
    evil = "a" * 40 + "!"
    with ScriptedServer([finish(json.dumps({"name": evil})), finish(json.dumps({"x" * 40: "z"}))]) as server:
        result = run_cli("-p", "Name it", "--base-url", server.base_url, "--model", "scripted-model",
                         "--workspace", str(ws), "--output-schema", str(schema), "--output-format", "json",
                         "--timeout", "20", env=LOOPBACK, timeout=40)
        requests = server.chat_requests
    assert result.code == ExitCode.FAILURE, result.stderr
    shown = json.loads(result.stdout)
    assert shown["error_code"] == "output_schema_mismatch" and "does not match any of the regexes" in shown["result"]
    assert f"'{evil}' does not match '^(a+)+$'" in requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize(("schema", "said"), [
    ("[" * 5000 + "]" * 5000, "nests deeper than 64 levels"),
    ('{"properties": {"a": ' * 100 + "{}" + "}}" * 100, "nests deeper than 64 levels"),
    ('{"pattern": "^(?!admin)"}', "does not accept"),
    ('{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}', "in a loop"),
])
def test_a_schema_too_deep_or_with_a_pattern_re2_refuses_is_a_coded_usage_error(ws: Path, tmp_path: Path,
                                                                                 schema: str, said: str) -> None:
    """Hardening round three, class 5: a deeply nested (or self-looping) schema gives a coded error, not a
    RecursionError traceback; a pattern the linear-time engine does not run is refused up front."""
    path = tmp_path / "bad.json"
    path.write_text(schema)
    with ScriptedServer([finish("{}")]) as server:
        result = headless(server, ws, path)
        sent = server.requests
    assert result.code == ExitCode.USAGE and sent == []
    assert "[output_schema_invalid]" in result.stderr and said in result.stderr
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
