"""`sneakycode eval --list` and `--api-key` (issue 37: a suite's tasks could not be listed, and eval alone had no
--api-key, so a key had to be exported before an eval against an endpoint that needs one)."""

from __future__ import annotations

import json
from pathlib import Path

from sneakycode.evals.suite import load_suite
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli

FAST = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def test_list_shows_every_task_of_the_suite_and_runs_nothing(tmp_path: Path) -> None:
    result = run_cli("eval", "--list", cwd=tmp_path)
    assert result.code == 0, result.stderr
    core = load_suite("core")
    rows = [line.split() for line in result.stdout.splitlines()[1:] if line and not line.startswith("suite ")]
    assert [(row[0], row[1], row[2]) for row in rows] == [(t.id, t.language, t.kind) for t in core.tasks]
    assert f"suite core {core.version}: {len(core.tasks)} task(s)" in result.stdout
    assert list(tmp_path.iterdir()) == [tmp_path / "home"]  # no sneakycode-eval/ folder: nothing ran


def test_api_key_reaches_every_task_agent(tmp_path: Path) -> None:
    script = {"api_key": "sk-eval-secret", "steps": [{"content": "Done."}]}
    with ScriptedServer(script) as server:
        result = run_cli("eval", "--tasks", "py-slugify", "--workers", "1", "--out", str(tmp_path / "out"),
                         "--base-url", server.base_url, "--model", "m", "--api-key", "sk-eval-secret", "--no-sandbox",
                         env=FAST, timeout=240, cwd=tmp_path)
        asked = [r for r in server.requests if r.path.rstrip("/").endswith("/chat/completions")]
    assert result.code == 0, result.stderr
    assert asked and all(r.status == 200 for r in asked)  # the scripted server answers 401 to any other key
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["tasks"][0]["status"] == "answered", card["tasks"][0]
