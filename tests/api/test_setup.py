"""Issue 36, all or nothing: a session whose setup fails leaves no session folder, open file, process or
thread behind, whatever failed."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer


@sneakycode.tool(name="read_file")
def clashing(args: sneakycode.ToolArgs, ctx: sneakycode.ToolContext) -> sneakycode.ToolResult:
    """A program's tool named like a built-in one."""
    return sneakycode.ToolResult.ok("never")


def clashing_tool(repo: Path) -> dict[str, object]:
    return {"tools": [clashing]}


def bad_mcp_server(repo: Path) -> dict[str, object]:
    (repo / ".mcp.json").write_text('{"mcpServers": {"broken": "not an object"}}')
    return {"trust_project": True}


def bad_output_schema(repo: Path) -> dict[str, object]:
    return {"output_schema": {"type": 12}}


def open_files() -> set[str]:
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, gone already
            found.add(os.readlink(f"/proc/self/fd/{fd}"))
    return found


def child_processes() -> set[int]:
    me = str(os.getpid())
    children = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me and fields[0] != "Z":
                children.add(int(entry))
    return children


@pytest.mark.parametrize("failing", [clashing_tool, bad_mcp_server, bad_output_schema])
def test_a_failed_setup_leaves_no_folder_file_process_or_thread(
    server: ScriptedServer, repo: Path, tmp_path: Path, failing: Callable[[Path], dict[str, object]]
) -> None:
    """Regression (issue 36): with a program's tool named `read_file` the transcript stayed open and a session
    folder was left on disk."""
    state = tmp_path / "state"
    more = failing(repo)
    threads, files, children = set(threading.enumerate()), open_files(), child_processes()
    with pytest.raises(sneakycode.ConfigError):
        sneakycode.Session(sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k",
                                              isolated=True, state_dir=state, **more))  # type: ignore[arg-type]
    sessions = state / "sessions"
    assert not sessions.exists() or list(sessions.iterdir()) == []
    assert {f for f in open_files() - files if str(tmp_path) in f} == set()
    # The scripted server answers each request on a thread of its own, which may still be winding down after
    # its answer was read (the window probe); those threads are the server's, not the session's.
    assert {t for t in threading.enumerate() if "process_request_thread" not in t.name} <= threads
    assert child_processes() <= children
    assert server.chat_requests == []
