"""A language server beside the edit tools, and servers that fail (issue 29): a running server's errors join the
new-errors-only report after an edit (reported after the edit, not before it; an error the file already had
stays quiet), an edit never waits for a server to start, and a server that crashes or hangs is a coded error,
the session goes on, and no process of it is left, nor of any server once the session closes."""

from __future__ import annotations

import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, project_config
from tests.tools.lsp.servers import gone, project, use_fake, use_jedi
from tests.tools.lsp.test_session_headless import servers_in


def open_ctx(ws: Path) -> ToolContext:
    return open_tool_context(load_settings(ws))


def test_an_error_only_the_server_sees_is_reported_after_the_edit_and_not_before(ws: Path) -> None:
    """`def area(width=1, height)` parses for tree-sitter (no syntax error of ours) but not for Python: jedi's
    compile check reports it. Not before the edit (the file was clean), and not again after an unrelated edit
    while it is still there; gone once fixed."""
    use_jedi()
    project(ws)
    ctx = open_ctx(ws)
    try:
        clean = call(ctx, "code", op="symbols", path="shapes/geometry.py")  # the server is up
        assert clean.success
        call(ctx, "read_file", file_path="shapes/geometry.py")
        broken = call(ctx, "str_replace", file_path="shapes/geometry.py", old_str="def area(width, height):",
                      new_str="def area(width=1, height):")
        assert broken.success
        assert "1 new finding from jedi: line 1: SyntaxError: non-default argument follows default argument" in (
            broken.render())
        assert broken.data["diagnostics"][0]["source"] == "jedi"
        unrelated = call(ctx, "str_replace", file_path="shapes/geometry.py", old_str="return width * height",
                         new_str="return height * width")
        assert unrelated.success and "diagnostics" not in unrelated.data, unrelated.render()
        fixed = call(ctx, "str_replace", file_path="shapes/geometry.py", old_str="def area(width=1, height):",
                     new_str="def area(width, height=1):")
        assert fixed.success and "diagnostics" not in fixed.data
        # The server saw every edit: its outline and answers are about the file on disk.
        hover = call(ctx, "code", op="hover", path="main.py", line=3, symbol="area")
        assert "def area(width, height=1)" in hover.render()
    finally:
        ctx.close()


def test_an_edit_never_waits_for_a_server_to_start(ws: Path) -> None:
    """No server is up: the edit reports at once (the syntax check only) and starts one for the next edit."""
    use_jedi()
    project(ws)
    ctx = open_ctx(ws)
    try:
        call(ctx, "read_file", file_path="main.py")
        result = call(ctx, "str_replace", file_path="main.py", old_str="print(area(2, 3))", new_str="area(1, 1)")
        # Returned while the server was still starting: the edit did not wait for it.
        assert result.success and ctx.language_servers.running() == []
        assert "diagnostic_notes" not in result.data
        deadline = time.monotonic() + 20
        while not ctx.language_servers.running() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ctx.language_servers.running(), "the edit started the server in the background"
    finally:
        ctx.close()


def test_a_server_that_crashes_is_a_coded_error_and_leaves_no_process(ws: Path) -> None:
    use_fake("crash")
    (ws / "a.py").write_text("x = 1\n")
    ctx = open_ctx(ws)
    try:
        result = call(ctx, "code", op="definition", path="a.py", line=1, symbol="x")
        assert result.code == "language_server_failed", result.render()
        assert "exited during definition" in result.render() and "something broke inside" in result.render()
        pids = [c.process.pid for c in ctx.language_servers._clients.values() if c.process]
        assert pids and all(gone(pid) for pid in pids)
        # The session goes on: other tools work, and the next call starts the server again (and says so again).
        assert call(ctx, "read_file", file_path="a.py").success
        assert call(ctx, "code", op="definition", path="a.py", line=1, symbol="x").code == "language_server_failed"
    finally:
        ctx.close()


def test_a_server_that_hangs_is_stopped_after_the_request_timeout(ws: Path) -> None:
    """The fake server ignores SIGTERM while it hangs: only the SIGKILL to its group ends it."""
    use_fake("hang", "[lsp]\nrequest_timeout = 1.0\n")
    (ws / "a.py").write_text("x = 1\n")
    ctx = open_ctx(ws)
    try:
        started = time.monotonic()
        result = call(ctx, "code", op="hover", path="a.py", line=1, symbol="x")
        assert result.code == "language_server_timeout", result.render()
        assert "did not answer hover within 1 s; it was stopped" in result.render()
        assert time.monotonic() - started < 10
        pids = [c.process.pid for c in ctx.language_servers._clients.values() if c.process]
        assert pids and all(gone(pid) for pid in pids)
        assert call(ctx, "read_file", file_path="a.py").success
    finally:
        ctx.close()


def test_no_server_process_outlives_the_session(ws: Path) -> None:
    use_jedi()
    project(ws)
    ctx = open_ctx(ws)
    assert call(ctx, "code", op="definition", path="main.py", line=3, symbol="area").success
    pids = [client.process.pid for client in ctx.language_servers.running() if client.process]
    assert pids
    ctx.close()
    assert all(gone(pid) for pid in pids)
    assert call(ctx, "code", op="definition", path="main.py", line=3, symbol="area").code == "language_server_failed"


def test_an_untrusted_repository_cannot_name_a_server(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    project_config(ws, '[lsp.servers.evil]\ncommand = "/bin/sh"\nargs = ["-c", "touch pwned"]\n'
                   'languages = ["python"]\n', trusted=False)
    loaded = load_settings(ws)
    assert "evil" not in loaded.settings.lsp.servers
    assert any(line.startswith("lsp.servers.evil.command") for line in loaded.ignored)


def test_a_server_still_starting_when_the_session_closes_is_stopped(ws: Path) -> None:
    """An edit starts a server in the background; the session closes before it is up: its start is cancelled
    and what it had started is stopped (test_session_headless.py checks the same through -p, stderr too)."""
    use_jedi()
    project(ws)
    ctx = open_ctx(ws)
    call(ctx, "read_file", file_path="main.py")
    assert call(ctx, "str_replace", file_path="main.py", old_str="print(area(2, 3))", new_str="area(1, 1)").success
    time.sleep(0.2)  # the process is starting
    ctx.close()
    time.sleep(0.5)
    assert servers_in(ws) == []


def test_a_server_that_dies_on_an_edit_never_makes_the_edit_look_failed(ws: Path) -> None:
    """The server is up; it exits when shown the edited file: the edit is applied and reported as applied,
    with a note that the server did not report, and the next `code` call says the server failed."""
    use_fake("die-on-open", "[lsp]\ndiagnostics_wait = 0.5\n")
    (ws / "a.py").write_text("x = 1\n")
    ctx = open_ctx(ws)
    try:
        call(ctx, "read_file", file_path="a.py")
        assert call(ctx, "str_replace", file_path="a.py", old_str="x = 1", new_str="x = 2").success
        deadline = time.monotonic() + 10
        while not ctx.language_servers.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        edited = call(ctx, "str_replace", file_path="a.py", old_str="x = 2", new_str="x = 3")
        assert edited.success, edited.render()
        assert (ws / "a.py").read_text() == "x = 3\n"
        assert "Note: language server fake exited while checking the edit" in edited.render()
        pids = [c.process.pid for c in ctx.language_servers._clients.values() if c.process]
        assert pids and all(gone(pid) for pid in pids)
        after = call(ctx, "code", op="definition", path="a.py", line=1, symbol="x")
        assert after.code == "language_server_failed"  # started again, shown the file, died again
    finally:
        ctx.close()


def test_a_server_that_never_finishes_starting_is_stopped_after_the_startup_timeout(ws: Path) -> None:
    use_fake("mute", "[lsp]\nstartup_timeout = 1.0\n")
    (ws / "a.py").write_text("x = 1\n")
    ctx = open_ctx(ws)
    try:
        result = call(ctx, "code", op="symbols", path="a.py")
        assert result.code == "language_server_timeout"
        assert "did not answer initialize within 1 s; it was stopped" in result.render()
        assert ctx.language_servers.running() == []
    finally:
        ctx.close()
    assert servers_in(ws) == []
