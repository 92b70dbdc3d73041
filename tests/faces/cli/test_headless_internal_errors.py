"""Internal errors through the real `sneakycode -p` (issue 24): a tool with a bug (list_dir made to raise,
by a sitecustomize the subprocess loads) gives the model the short coded message; the user gets a notice,
the transcript the traceback, and only --verbose prints the traceback (stderr, and stream-json's notice)."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

import jsonschema
import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results

BROKEN_LIST_DIR = '''
import sneakycode.permissions.gate as gate

_run = gate.run


def run(found, args, ctx):
    if found.name == "list_dir":
        raise ValueError("the listing cache is corrupt")
    return _run(found, args, ctx)


gate.run = run
'''


@pytest.fixture
def broken_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a subprocess whose list_dir tool raises ValueError, as a bug in it would."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BROKEN_LIST_DIR, encoding="utf-8")
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**ENV, "PYTHONPATH": os.pathsep.join(paths)}


def broken_run(ws: Path, env: dict[str, str], *flags: str) -> tuple[CliResult, ScriptedServer]:
    with ScriptedServer({"models": ["m"], "steps": [call("list_dir"), finish("Listed nothing.")]}) as server:
        result = run_cli("-p", "List the files", "--base-url", server.base_url, "--model", "m", "--workspace",
                         str(ws), *flags, env=env)
    return result, server


def transcript_of(home: Path, session_id: str) -> str:
    path = next(home.glob(f".local/state/sneakycode/sessions/{session_id}/transcript.jsonl"))
    return path.read_text(encoding="utf-8")


def test_verbose_prints_a_tool_bugs_traceback_and_the_model_gets_only_the_coded_error(
    ws: Path, broken_env: dict[str, str], isolated_home: Path
) -> None:
    result, server = broken_run(ws, broken_env, "--verbose", "--output-format", "json")
    assert result.code == 0, result.stderr
    sent = tool_results(server.chat_requests[1])[0]
    assert sent.startswith("Error [internal_error]: list_dir failed unexpectedly: ValueError: the listing cache")
    assert "Traceback" not in json.dumps(server.chat_requests[1])
    assert "internal error (a bug in SneakyCode) in the list_dir tool" in result.stderr
    assert "Traceback (most recent call last)" in result.stderr and "sitecustomize.py" in result.stderr
    transcript = transcript_of(isolated_home, json.loads(result.stdout)["session_id"])
    [record] = [r for r in map(json.loads, transcript.splitlines()) if r["type"] == "internal_error"]
    assert "ValueError: the listing cache is corrupt" in record["traceback"]
    assert record["traceback"].startswith("Traceback (most recent call last)")


def test_without_verbose_the_user_gets_the_notice_but_no_traceback(ws: Path, broken_env: dict[str, str]) -> None:
    """Hardening: no traceback reaches a user who did not ask for one, on stderr or in stream-json."""
    result, _ = broken_run(ws, broken_env, "--output-format", "stream-json")
    assert result.code == 0, result.stderr
    assert "internal error (a bug in SneakyCode) in the list_dir tool" in result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    verbose, _ = broken_run(ws, broken_env, "--output-format", "stream-json", "--verbose")
    schema = json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    events = [json.loads(line) for line in verbose.stdout.splitlines()]
    for event in events:
        validator.validate(event)
    [notice] = [e for e in events if e["type"] == "notice" and "traceback" in e]
    assert "ValueError: the listing cache is corrupt" in notice["traceback"]
