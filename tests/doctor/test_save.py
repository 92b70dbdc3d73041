"""`doctor --save` writes the settings that worked for that model to the user's config, keeping the file's
comments, and the next session with that model uses them; `--json` has the documented shape."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sneakycode.config import load_settings, user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.doctor.helpers import MODEL, ORDER, doctor, doctor_json, script


def test_save_writes_the_model_entry_and_the_next_session_uses_it(ws: Path, isolated_home: Path) -> None:
    config = user_config_path()
    assert str(config).startswith(str(isolated_home))
    config.parent.mkdir(parents=True)
    config.write_text('# my settings\nmax_turns = 30\n\n[model_settings."other"]\ntool_calls = "native"\n')
    hermes = script(server_kind="ollama", context_window=8192, quirks={"tool_calls_as_text": "tagged"})
    with ScriptedServer(hermes) as server:
        result = doctor(server, ws, "--save")
    assert result.code == 0, result.stdout + result.stderr
    assert f"written to {config}" in result.stdout
    text = config.read_text()
    assert text.startswith("# my settings\nmax_turns = 30\n")
    saved = tomllib.loads(text)
    assert saved["model_settings"][MODEL] == {"tool_calls": "text", "context_window": 8192, "edit_format": "replace"}
    assert saved["model_settings"]["other"] == {"tool_calls": "native"}
    assert f'[model_settings."{MODEL}"]' in text and "[model_settings]\n" not in text

    used = load_settings(ws, {"model": MODEL}).settings
    assert (used.tool_calls, used.context_window, used.tools.edit_format) == ("text", 8192, "replace")
    assert load_settings(ws, {"model": "another"}).settings.tool_calls == "auto"


def test_without_save_the_config_is_not_touched(ws: Path) -> None:
    with ScriptedServer(script()) as server:
        result = doctor(server, ws)
    assert result.code == 0, result.stdout
    assert not user_config_path().exists()


def test_json_has_one_entry_per_check_with_verdict_layer_and_fix(ws: Path) -> None:
    with ScriptedServer(script(server_kind="llamacpp", context_window=8192)) as server:
        code, report = doctor_json(server, ws)
    assert code == 0
    assert set(report) == {"provider", "base_url", "model", "server_kind", "ok", "counts", "checks", "settings",
                           "saved_to"}
    assert (report["provider"], report["base_url"], report["model"]) == ("custom", server.base_url, MODEL)
    assert [c["name"] for c in report["checks"]] == ORDER
    for entry in report["checks"]:
        assert set(entry) == {"name", "verdict", "measured", "layer", "fix", "data"}
        assert entry["verdict"] in ("pass", "warn", "fail", "skip") and entry["measured"]
    assert sum(report["counts"].values()) == len(ORDER)
    assert report["saved_to"] is None
