"""run_command through the registry, as the model calls it: the survey's peer treated the timeout as
milliseconds, dropped the output of failing commands and never killed runaway children; these tests pin
the opposite of each, plus bounded output, secret-free environments and the working folder rules."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.registry import get_tool
from tests.conftest import call, run_cli
from tests.process.test_supervise import marker, running_with


@pytest.fixture
def sctx(ws: Path) -> ToolContext:
    """A session with the sandbox off, so these tests mean the same on machines without bubblewrap."""
    return open_tool_context(load_settings(ws, flags={"tools.shell.sandbox": "off"}))


def test_success_shows_output_exit_code_and_duration(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command="echo hello")
    assert result.success
    assert result.content == "hello\n"
    assert re.fullmatch(r"exit code 0 in \d+\.\d\d s", result.message)


def test_regression_nonzero_exit_keeps_stdout_stderr_and_code(sctx: ToolContext) -> None:
    """The survey's peer dropped stdout, stderr and the exit code when a command failed."""
    result = call(sctx, "run_command", command="echo to-stdout; echo to-stderr >&2; exit 3")
    assert not result.success and result.code == "nonzero_exit"
    rendered = result.render()
    assert "exited with code 3" in rendered
    assert "to-stdout\nto-stderr\n" in rendered
    assert result.data["exit_code"] == 3 and result.data["stderr"] == "to-stderr\n"


def test_regression_timeout_is_seconds_and_returns_output_so_far(sctx: ToolContext) -> None:
    """The survey's peer passed the timeout to an API that counts milliseconds."""
    tag = marker()
    result = call(sctx, "run_command", command=f"echo started; sleep {tag} & sleep {tag}", timeout=1)
    assert result.code == "timed_out"
    assert "timed out after 1 s" in result.render() and "started" in result.content
    assert 1 <= result.data["duration"] < 10
    assert running_with(tag) == [], "the command's children must not survive the timeout"


@pytest.mark.parametrize("timeout", [0, -5, 601, 30000])
def test_timeout_outside_the_allowed_range_states_the_range(sctx: ToolContext, timeout: int) -> None:
    result = call(sctx, "run_command", command="true", timeout=timeout)
    assert result.code == "invalid_arguments"
    assert "between 1 and 600 seconds" in result.render() and "not milliseconds" in result.render()


def test_stdin_is_closed(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command="read answer; echo read-status=$?")
    assert result.content == "read-status=1\n"


def test_background_processes_are_stopped_and_the_model_is_told(sctx: ToolContext) -> None:
    tag = marker()
    result = call(sctx, "run_command", command=f"sleep {tag} > /dev/null & echo started")
    assert result.success and result.content == "started\n"
    assert "left running in the background were stopped" in result.message
    assert running_with(tag) == []


def test_cancel_kills_the_command(sctx: ToolContext) -> None:
    tag = marker()
    threading.Timer(0.3, sctx.cancel.set).start()
    result = call(sctx, "run_command", command=f"echo working; sleep {tag}")
    assert result.code == "cancelled" and "working" in result.content
    assert running_with(tag) == []


def test_killed_by_signal_names_it(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command="echo partial; kill -KILL $$")
    assert result.code == "killed_by_signal" and "SIGKILL" in result.render() and "partial" in result.content


def test_exit_code_above_128_explains_the_signal(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command="sh -c 'kill -TERM $$'; exit $?")
    assert result.code == "nonzero_exit" and "128+15" in result.render() and "SIGTERM" in result.render()


def test_output_is_decoded_with_replacement(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command=r"printf 'ok \377\376 end\n'")
    assert result.success and result.content == "ok \ufffd\ufffd end\n"


def test_large_output_shows_head_and_tail_with_exact_cut_and_saves_everything(sctx: ToolContext) -> None:
    result = call(sctx, "run_command", command="seq 1 100000")
    assert result.success
    assert len(result.content.encode()) <= sctx.settings.max_output_bytes
    found = re.search(r"\[\.\.\. ([\d,]+) of ([\d,]+) bytes cut here, lines ([\d,]+)-([\d,]+); .* saved in (\S+);",
                      result.content)
    assert found, result.content[:200]
    first_cut, last_cut = int(found[3].replace(",", "")), int(found[4].replace(",", ""))
    before, after = result.content.split(found[0])
    assert before.splitlines()[-1] == str(first_cut - 1)
    assert after.split("\n", 2)[1] == str(last_cut + 1)
    assert before.splitlines()[0] == "1" and after.splitlines()[-1] == "100000"
    saved = Path(found[5])
    assert saved.parent == sctx.session_dir / "outputs"
    assert saved.read_text() == "".join(f"{n}\n" for n in range(1, 100001))
    assert result.data["output_path"] == str(saved)


@pytest.mark.slow  # 2 GB through a pipe, read by the tool: CPU-bound, 5-20 s
def test_a_flood_of_gigabytes_keeps_memory_bounded(ws: Path) -> None:
    script = """
import json, resource, sys
from pathlib import Path
from sneakycode.config import load_settings
from sneakycode.tools.context import open_tool_context
from sneakycode.permissions.gate import Gate
ctx = open_tool_context(load_settings(Path(sys.argv[1]), flags={"tools.shell.sandbox": "off"}))
Gate(ctx).run_direct("run_command", {"command": "true"})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = Gate(ctx).run_direct("run_command", {"command": "yes | head -c 2G", "timeout": 300})
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"grew_kib": after - before, "result": result.to_dict()}))
"""
    proc = subprocess.run([sys.executable, "-c", script, str(ws)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    result = report["result"]
    assert result["success"], result
    assert result["data"]["output_bytes"] == 2 << 30
    assert report["grew_kib"] < 64 * 1024, f"peak memory grew by {report['grew_kib']} KiB"
    assert "y\ny\n" in result["content"] and "the first 268,435,456 bytes are saved in" in result["content"]
    assert Path(result["data"]["output_path"]).stat().st_size == 256 << 20


def test_secrets_are_not_visible_to_the_command(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "OPENAI_API_KEY": "sk-openai-secret",
        "GROQ_API_KEY": "gsk-groq-secret",
        "ANTHROPIC_AUTH": "anthropic-secret",
        "DEPLOY_TOKEN": "deploy-token-secret",
        "CLOUD_SECRET_KEY": "cloud-secret",
        "MY_PROVIDER_CRED": "configured-key-secret",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible-value")
    sctx = open_tool_context(
        load_settings(ws, flags={"tools.shell.sandbox": "off", "api_key_env": "MY_PROVIDER_CRED"})
    )
    result = call(sctx, "run_command", command="env")
    assert result.success
    for value in secrets.values():
        assert value not in result.content
    for line in ("HARMLESS_SETTING=visible-value", "SNEAKYCODE=1", "PAGER=cat", "GIT_PAGER=cat", "TERM=dumb"):
        assert line in result.content.splitlines()


def test_cwd_is_the_workspace_or_a_folder_inside_it(sctx: ToolContext, ws: Path) -> None:
    (ws / "sub").mkdir()
    (ws / "file.txt").write_text("x")
    assert call(sctx, "run_command", command="pwd").content == f"{ws}\n"
    assert call(sctx, "run_command", command="pwd", cwd="sub").content == f"{ws / 'sub'}\n"
    assert call(sctx, "run_command", command="pwd", cwd="..").code == "outside_workspace"
    assert call(sctx, "run_command", command="pwd", cwd="file.txt").code == "not_a_directory"
    assert call(sctx, "run_command", command="pwd", cwd="nope").code == "not_found"


def test_empty_command_is_invalid(sctx: ToolContext) -> None:
    assert call(sctx, "run_command", command="  ").code == "invalid_arguments"


def test_description_is_short_and_says_the_timeout_is_seconds() -> None:
    found = get_tool("run_command")
    assert found is not None
    assert len(found.description) < 600 and "in seconds" in found.description


def test_cli_runs_the_command_and_exits_by_its_result(ws: Path) -> None:
    env = {"SNEAKYCODE_TOOLS__SHELL__SANDBOX": "off"}
    ok = run_cli("tool", "run_command", '{"command": "echo from-cli"}', "--workspace", str(ws), env=env)
    assert ok.code == 0 and "from-cli" in ok.stdout and "exit code 0" in ok.stdout
    failed = run_cli("tool", "run_command", '{"command": "echo oops >&2; exit 7"}', "--workspace", str(ws), env=env)
    assert failed.code == 1 and "Error [nonzero_exit]" in failed.stdout and "oops" in failed.stdout
