"""`sneakycode sessions` shows how each run ended (issue 37: a run that ended with output_schema_mismatch was
listed as "finished", the loop's status before the answer was checked)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli

LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "SNEAKYCODE_RETRY_BACKOFF": "0.01"}
SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "minimum": 0}}, "required": ["score"]}


def finish(message: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "finish", "arguments": {"message": message}}]}


def test_a_run_ended_by_an_invalid_answer_is_listed_as_an_error(ws: Path, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    with ScriptedServer([finish('{"score": -1}'), finish('{"score": -2}')]) as server:
        ran = run_cli("-p", "Score it", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws),
                      "--output-schema", str(schema), env=LOOPBACK)
    assert ran.code == 1, ran.stderr
    listed = run_cli("sessions", "--workspace", str(ws))
    row = next(line for line in listed.stdout.splitlines() if "Score it" in line)
    assert " error " in row and "finished" not in row, listed.stdout
