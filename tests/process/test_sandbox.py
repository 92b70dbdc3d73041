"""The bubblewrap sandbox, through run_command: writes outside the workspace fail, /tmp is private, the
network can be cut off, and `bwrap` mode refuses to run unconfined. Tests that need a working bwrap skip
with the probe's reason; the fail-closed and say-once tests run everywhere."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.process.sandbox import probe
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call
from tests.process.test_supervise import marker, running_with


def require_bwrap(ws: Path, *, network: bool = True) -> None:
    """Skip, with the probe's reason, only when bwrap itself cannot run here."""
    found = probe(ws, network=network)
    if not found.available:
        pytest.skip(f"bwrap sandbox cannot run here: {found.reason}")


def sandboxed_ctx(ws: Path, *, network: bool = True) -> ToolContext:
    require_bwrap(ws, network=network)
    settings = {"tools.shell.sandbox": "bwrap", "tools.shell.sandbox_network": network}
    return open_tool_context(load_settings(ws, flags=settings))


def test_writes_inside_the_workspace_succeed_and_outside_fail(ws: Path) -> None:
    ctx = sandboxed_ctx(ws)
    outside = Path("/var/tmp") / f"sneakycode-escape-{marker()}"
    result = call(ctx, "run_command", command=f"echo inside > made.txt && echo outside > {outside}")
    escaped = outside.exists()
    outside.unlink(missing_ok=True)
    assert not escaped
    assert result.code == "nonzero_exit" and "Read-only file system" in result.content
    assert (ws / "made.txt").read_text() == "inside\n"
    assert result.data["sandbox"] == "bwrap"


def test_tmp_is_private(ws: Path, tmp_path: Path) -> None:
    ctx = sandboxed_ctx(ws)
    neighbour = tmp_path / "neighbour.txt"  # under the real /tmp, outside the workspace
    neighbour.write_text("host file")
    result = call(ctx, "run_command", command=f"echo scratch > /tmp/{ws.parent.name}-x && cat {neighbour}")
    assert result.code == "nonzero_exit" and "No such file or directory" in result.content
    assert not Path(f"/tmp/{ws.parent.name}-x").exists()


def test_network_off_blocks_a_loopback_server_that_network_on_reaches(ws: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))  # the kernel completes handshakes into the backlog
    port = server.getsockname()[1]
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 3); print('connected')"
    connect = f'{sys.executable} -c "{code}"'
    try:
        reached = call(sandboxed_ctx(ws, network=True), "run_command", command=connect)
        blocked = call(sandboxed_ctx(ws, network=False), "run_command", command=connect)
    finally:
        server.close()
    assert reached.success and reached.content == "connected\n"
    assert blocked.code == "nonzero_exit" and "connected\n" not in blocked.content


def test_timeout_kills_everything_inside_the_sandbox(ws: Path) -> None:
    ctx = sandboxed_ctx(ws)
    tag = marker()
    result = call(ctx, "run_command", command=f"sleep {tag} & sleep {tag}", timeout=1)
    assert result.code == "timed_out"
    assert running_with(tag) == []


def test_exit_code_and_output_pass_through_the_sandbox(ws: Path) -> None:
    ctx = sandboxed_ctx(ws)
    result = call(ctx, "run_command", command="echo out; echo err >&2; exit 4")
    assert result.code == "nonzero_exit" and result.data["exit_code"] == 4
    assert "out\nerr\n" in result.content and result.data["stderr"] == "err\n"


def test_saved_output_is_readable_from_inside_the_sandbox(ws: Path) -> None:
    ctx = sandboxed_ctx(ws)
    flood = call(ctx, "run_command", command="seq 1 50000")
    saved = flood.data["output_path"]
    assert saved is not None
    assert call(ctx, "run_command", command=f"sed -n '40000p' {saved}").content == "40000\n"


def test_bwrap_mode_fails_closed_when_bwrap_cannot_run(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(ws / "no-tools-here"))
    ctx = open_tool_context(load_settings(ws, flags={"tools.shell.sandbox": "bwrap"}))
    result = call(ctx, "run_command", command="echo ran > proof.txt")
    assert result.code == "sandbox_unavailable"
    assert "bwrap is not installed" in result.render()
    assert not (ws / "proof.txt").exists()


def test_auto_mode_says_once_why_it_runs_unsandboxed(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(ws / "no-tools-here"))
    ctx = open_tool_context(load_settings(ws, flags={"tools.shell.sandbox": "auto"}))
    first = call(ctx, "run_command", command="echo one")
    second = call(ctx, "run_command", command="echo two")
    assert first.success and "without a sandbox because bwrap is not installed" in first.message
    assert first.message.splitlines()[0] == first.message.split(" s")[0] + " s"  # the exit line stands alone
    assert first.message.splitlines()[1].startswith("Note: commands run without a sandbox")
    assert second.success and "sandbox" not in second.message
    assert first.data["sandbox"] == "unavailable"


def test_bwrap_mode_quotes_the_probes_error_when_bwrap_fails(ws: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    fake = fake_bin / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:/usr/bin:/bin")
    ctx = open_tool_context(load_settings(ws, flags={"tools.shell.sandbox": "bwrap"}))
    result = call(ctx, "run_command", command="echo ran > proof.txt")
    assert result.code == "sandbox_unavailable"
    assert "No permissions to create a new namespace" in result.render()
    assert not (ws / "proof.txt").exists()


def test_a_virtualenv_on_path_under_tmp_stays_usable(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a checkout under /tmp (as in CI) lost its own .venv inside the private /tmp."""
    venv = tmp_path / "checkout" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "lib").mkdir()
    (venv / "lib" / "data.txt").write_text("from the venv\n")
    tool = venv / "bin" / "venvtool"
    tool.write_text(f"#!/bin/sh\ncat {venv / 'lib' / 'data.txt'}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:{os.environ['PATH']}")
    result = call(sandboxed_ctx(ws), "run_command", command="venvtool")
    assert result.success and result.content == "from the venv\n"
    escaped = call(sandboxed_ctx(ws), "run_command", command=f"touch {venv / 'lib' / 'new'}")
    assert escaped.code == "nonzero_exit" and not (venv / "lib" / "new").exists()
