"""`sneakycode tool`: several calls in one session, model-facing text or --json, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def test_read_then_write_in_one_session_satisfies_the_read_gate(ws: Path) -> None:
    (ws / "notes.txt").write_text("old\n")
    result = run_cli(
        "tool", "read_file", '{"file_path": "notes.txt"}', "write_file",
        '{"file_path": "notes.txt", "content": "new\\n"}', "--workspace", str(ws),
    )
    assert result.code == 0, result.stderr
    assert "     1\told" in result.stdout and "Overwrote notes.txt" in result.stdout
    assert (ws / "notes.txt").read_text() == "new\n"


def test_json_output_is_one_structured_result_per_call(ws: Path) -> None:
    (ws / "a.txt").write_text("x\n")
    result = run_cli("tool", "read_file", '{"file_path": "a.txt"}', "read_file", '{"file_path": "zz"}',
                     "--workspace", str(ws), "--json")
    assert result.code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["success"] for r in rows] == [True, False]
    assert rows[1]["code"] == "not_found" and set(rows[0]) >= {"success", "content", "message", "error", "code"}


def test_failed_tool_exits_1_and_prints_the_error(ws: Path) -> None:
    result = run_cli("tool", "read_file", '{"file_path": "../etc/passwd"}', cwd=ws)
    assert result.code == 1 and "Error [outside_workspace]" in result.stdout


def test_usage_errors_exit_2(ws: Path) -> None:
    assert run_cli("tool", "read_file", cwd=ws).code == 2
    assert run_cli("tool", cwd=ws).code == 2
    assert run_cli("tool", "read_file", "{}", "--workspace", str(ws / "missing")).code == 2
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text("bogus = 1\n")
    bad_config = run_cli("tool", "list_dir", "{}", cwd=ws)
    assert bad_config.code == 2 and "unknown key 'bogus'" in bad_config.stderr


def test_tool_command_does_not_import_the_model_client_or_ui(ws: Path) -> None:
    probe = (
        "import sys; from sneakycode.faces.cli.main import main;"
        " main(['tool','list_dir','{}','--workspace',sys.argv[1]]);"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('openai','prompt_toolkit','rich','mcp','httpx')];"
        "print('LOADED', bad)"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", probe, str(ws)], capture_output=True, text=True, check=True)
    assert "LOADED []" in out.stdout


def test_an_outside_change_between_read_and_edit_is_merged_in_one_session(ws: Path) -> None:
    """Issue 13: read_file, then a command changes line 1 behind the model's back, then str_replace of
    line 4 (matched against what was read) keeps both changes and shows the outside one."""
    import sys

    (ws / "app.py").write_text("import os\n\n\ndef main():\n    return 1\n")
    script = "import pathlib; p = pathlib.Path('app.py'); p.write_text('import sys\\n' + p.read_text())"
    change = f'{sys.executable} -c "{script}"'
    result = run_cli(
        "tool", "read_file", json.dumps({"file_path": "app.py"}),
        "run_command", json.dumps({"command": change}),
        "str_replace", json.dumps({"file_path": "app.py", "old_str": "    return 1", "new_str": "    return 2"}),
        "--workspace", str(ws), "--json", cwd=ws,
    )
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.code == 0, result.stdout + result.stderr
    assert rows[2]["data"]["merged"] is True and "+import sys" in rows[2]["content"]
    assert (ws / "app.py").read_text() == "import sys\nimport os\n\n\ndef main():\n    return 2\n"


def test_an_edit_that_breaks_the_syntax_says_so_and_still_succeeds(ws: Path) -> None:
    (ws / "app.py").write_text("def main():\n    return 1\n")
    result = run_cli(
        "tool", "read_file", '{"file_path": "app.py"}', "str_replace",
        '{"file_path": "app.py", "old_str": "return 1", "new_str": "return (1"}', "--workspace", str(ws),
    )
    assert result.code == 0, result.stderr
    assert "Edited app.py: 1 replacement" in result.stdout
    assert "1 new syntax error: line 2: '(' was never closed\n     2\t    return (1" in result.stdout
    assert (ws / "app.py").read_text() == "def main():\n    return (1\n"
