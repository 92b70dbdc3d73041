"""`sneakycode permissions check|list` and the deny gate of `sneakycode tool`, on a real workspace with a
project config, a user config and an environment variable, through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import project_config, run_cli


@pytest.fixture
def configured(ws: Path, isolated_home: Path) -> dict[str, Path]:
    user = isolated_home / ".config" / "sneakycode" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[tools.shell]\ndenied_commands = ["rm", "sudo"]\nallowed_commands = ["ls", "git status"]\n')
    project = project_config(
        ws,
        '[permissions]\nallow = ["run_command(pytest:*)", "write_file(src/**)"]\n'
        'deny = ["delete_file", "read_file(secrets/**)"]\nask = ["run_command(git push:*)"]\n',
    )
    return {"user": user, "project": project}


def check(ws: Path, tool: str, args: dict[str, object], *extra: str) -> tuple[int, str, str]:
    result = run_cli("permissions", "check", tool, json.dumps(args), "--workspace", str(ws), *extra)
    return result.code, result.stdout, result.stderr


def test_check_prints_the_decision_the_rule_its_origin_and_the_parsed_commands(
    ws: Path, configured: dict[str, Path]
) -> None:
    code, out, _ = check(ws, "run_command", {"command": "git status && sudo rm -rf build"})
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "deny"
    assert (
        f"`sudo rm -rf build` matches deny rule `sudo` (tools.shell.denied_commands in {configured['user']})"
        in lines[1]
    )
    assert lines[2] == "  rule: tools.shell.denied_commands: sudo"
    assert lines[3:] == ["  commands:", "    git status", "    sudo rm -rf build"]


def test_check_applies_project_rules_and_explains_an_ask(ws: Path, configured: dict[str, Path]) -> None:
    code, out, _ = check(ws, "run_command", {"command": "pytest -q && git push origin main"})
    assert code == 0 and out.startswith("ask\n")
    rule = f"`run_command(git push:*)` (permissions.ask in {configured['project']})"
    assert f"`git push origin main` matches ask rule {rule}" in out
    code, out, _ = check(ws, "write_file", {"file_path": "src/app.py", "content": ""})
    assert out.startswith("allow\n") and "matches allow rule `write_file(src/**)`" in out
    assert "commands:" not in out


def test_check_json_has_exactly_the_four_fields(ws: Path, configured: dict[str, Path]) -> None:
    code, out, _ = check(ws, "run_command", {"command": "ls -la | wc -l"}, "--json")
    payload = json.loads(out)
    assert code == 0 and set(payload) == {"decision", "reason", "rule", "commands"}
    assert payload["decision"] == "ask" and payload["commands"] == ["ls -la", "wc -l"]
    assert payload["reason"] == "run_command needs confirmation: `wc -l` matches no allowed command"


def test_check_mode_flag_and_environment_rules(ws: Path, configured: dict[str, Path]) -> None:
    _, out, _ = check(ws, "read_file", {"file_path": "README.md"}, "--mode", "plan", "--json")
    assert json.loads(out)["decision"] == "allow"
    _, out, _ = check(ws, "write_file", {"file_path": "src/app.py", "content": ""}, "--mode", "plan", "--json")
    assert json.loads(out)["decision"] == "deny" and json.loads(out)["rule"] == "mode: plan"
    env = {"SNEAKYCODE_PERMISSIONS__MODE": '"yolo"'}
    result = run_cli("permissions", "check", "run_command", '{"command": "make all"}', "--workspace", str(ws),
                     "--json", env=env)
    assert json.loads(result.stdout)["decision"] == "allow"


def test_workspace_given_before_the_action_is_kept(ws: Path, configured: dict[str, Path]) -> None:
    """Regression: argparse let the `check` subparser's default reset `permissions --workspace DIR check`."""
    result = run_cli("permissions", "--workspace", str(ws), "check", "delete_file", '{"file_path": "a"}')
    assert result.stdout.startswith("deny\n"), result.stdout


def test_check_usage_errors_exit_2(ws: Path) -> None:
    assert check(ws, "read_file", {})[0] == 0
    bad_json = run_cli("permissions", "check", "read_file", "{nope", "--workspace", str(ws))
    assert bad_json.code == 2 and "JSON-ARGS is not valid JSON" in bad_json.stderr
    not_object = run_cli("permissions", "check", "read_file", "[1]", "--workspace", str(ws))
    assert not_object.code == 2 and "must be a JSON object" in not_object.stderr
    assert run_cli("permissions", "check", "read_file", "{}", "--workspace", str(ws / "missing")).code == 2
    assert run_cli("permissions", "check", "read_file", "{}", "--mode", "reckless").code == 2
    typo = run_cli("permissions", "check", "red_file", "{}", "--workspace", str(ws))
    assert typo.code == 0 and "closest: read_file" in typo.stderr


def test_list_shows_every_rule_with_its_origin(ws: Path, configured: dict[str, Path]) -> None:
    env = {"SNEAKYCODE_TOOLS__SHELL__DENIED_COMMANDS": '["curl"]'}
    result = run_cli("permissions", "list", "--workspace", str(ws), env=env)
    assert result.code == 0, result.stderr
    out = result.stdout
    assert "mode: default (from default)" in out
    user, project = configured["user"], configured["project"]
    for rule, origin in (
        ("delete_file", project),
        ("read_file(secrets/**)", project),
        ("run_command(git push:*)", project),
        ("run_command(pytest:*)", project),
        ("rm", user),
        ("git status", user),
        ("curl", "environment variable SNEAKYCODE_TOOLS__SHELL__DENIED_COMMANDS"),
    ):
        assert any(line.strip().startswith(f"{rule}  ") and line.endswith(f"from {origin}")
                   for line in out.splitlines()), rule
    assert "auto: read_file, list_dir, grep_files, find_files, job, web_search, update_tasks, finish" in out


def test_list_warns_about_rules_that_can_never_match(ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('[permissions]\ndeny = ["write_fil(src/**)", "finish(x)", "(x)"]\n')
    out = run_cli("permissions", "list", "--workspace", str(ws)).stdout
    assert "'write_fil(src/**)'" in out and "did you mean write_file?" in out
    assert "finish takes no path, so the pattern never matches" in out
    assert "'(x)'" in out and "is not TOOL or TOOL(PATTERN); it is ignored" in out


def test_tool_command_refuses_a_denied_call_and_runs_one_that_would_ask(ws: Path, configured: dict[str, Path]) -> None:
    (ws / "keep.txt").write_text("keep\n")
    denied = run_cli("tool", "delete_file", '{"file_path": "keep.txt"}', "--workspace", str(ws), "--json")
    row = json.loads(denied.stdout)
    assert denied.code == 1 and row["code"] == "permission_denied"
    assert row["error"].startswith("delete_file was not run: deny rule `delete_file` (permissions.deny in ")
    assert ".sneakycode/config.toml) covers every delete_file call" in row["error"]
    assert (ws / "keep.txt").read_text() == "keep\n"
    command = run_cli("tool", "run_command", '{"command": "rm keep.txt"}', "--workspace", str(ws), "--json")
    assert json.loads(command.stdout)["code"] == "permission_denied" and (ws / "keep.txt").exists()
    asked = run_cli("tool", "write_file", '{"file_path": "new.txt", "content": "hi\\n"}', "--workspace", str(ws))
    assert asked.code == 0, asked.stdout
    assert (ws / "new.txt").read_text() == "hi\n"


def test_permissions_check_does_not_import_the_model_client_or_ui(ws: Path) -> None:
    probe = (
        "import sys; from sneakycode.faces.cli.main import main;"
        "main(['permissions','check','run_command','{\"command\": \"ls\"}','--workspace',sys.argv[1]]);"
        "bad=[m for m in sys.modules if m.split('.')[0] in ('openai','prompt_toolkit','rich','mcp','httpx')];"
        "print('LOADED', bad)"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(ws)], capture_output=True, text=True, check=True,
                         env=os.environ.copy())
    assert "LOADED []" in out.stdout


def test_list_shows_the_sandbox_network_mode_and_its_hosts(ws: Path) -> None:
    """Hardening round three, class 41: the effective network of sandboxed commands is visible, presets
    expanded, with where it was set."""
    env = {"SNEAKYCODE_TOOLS__SHELL__ALLOWED_HOSTS": '["python", "github.com"]'}
    out = run_cli("permissions", "list", "--workspace", str(ws), env=env).stdout
    assert "sandbox network: allowlist (allowed_hosts from environment variable" in out
    assert "  hosts: pypi.org, files.pythonhosted.org, github.com" in out and "  ports: 443, 80" in out
    plain = run_cli("permissions", "list", "--workspace", str(ws)).stdout
    assert "sandbox network: on (default)" in plain
