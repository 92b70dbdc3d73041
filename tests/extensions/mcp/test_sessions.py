"""End to end: `sneakycode -p` with the scripted model and real MCP servers. The model calls server tools and
the next request carries their results; rules decide them like built-ins; servers that fail in every way
leave the session working; 200 tools become `mcp_search`; no server process outlives the session."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, project_config, run_main
from tests.extensions.mcp.servers import alive, fixture_server, gone, pid_in, servers_toml, user_servers
from tests.faces.cli.test_headless import ENV, call, finish, tool_results


def headless(ws: Path, steps: list[dict[str, Any]], *flags: str) -> tuple[CliResult, ScriptedServer]:
    with ScriptedServer({"models": ["scripted-model"], "steps": steps}) as server:
        result = run_main(
            "-p", "Use the servers", "--base-url", server.base_url, "--model", "scripted-model",
            "--workspace", str(ws), *flags, env=ENV, timeout=120,
        )
    return result, server


def last_result(request: dict[str, Any]) -> str:
    return tool_results(request)[-1]


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]


def test_the_model_calls_a_server_tool_and_gets_its_result(ws: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "fx.pid"
    user_servers({"fx": fixture_server("--pid-file", str(pid_file))}, '[permissions]\nallow = ["mcp__fx__*"]\n')
    result, server = headless(ws, [call("mcp__fx__echo", text="hello"), finish("done")])
    assert result.code == 0, result.stderr
    first = server.chat_requests[0]
    assert "mcp__fx__echo" in offered(first) and "read_file" in offered(first)
    assert tool_results(server.chat_requests[1]) == ["echo: hello"]
    assert gone(pid_in(pid_file)), "the server process outlived the session"


def test_a_denied_server_tool_is_refused_with_the_rule_named(ws: Path) -> None:
    user_servers({"fx": fixture_server()}, '[permissions]\ndeny = ["mcp__fx__delete_*"]\n')
    result, server = headless(ws, [call("mcp__fx__delete_note", note="n1"), finish("ok")], "--yes")
    assert result.code == 0, result.stderr
    [answer] = tool_results(server.chat_requests[1])
    assert answer.startswith("Error [permission_denied]") and "mcp__fx__delete_*" in answer
    assert "deleted" not in answer
    checked = run_main("permissions", "check", "mcp__fx__delete_note", "--workspace", str(ws))
    assert checked.stdout.startswith("deny") and "mcp__fx__delete_*" in checked.stdout


def test_faults_leave_the_session_working(ws: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "fx.pid"
    user_servers({
        "fx": fixture_server("--pid-file", str(pid_file), tool_timeout=3),
        "never": fixture_server("--never-start", startup_timeout=3),
        "broken": fixture_server("--exit-at-start"),
    })
    steps = [
        call("mcp__fx__big", size=10_000_000),
        call("mcp__fx__hang", seconds=60),
        call("mcp__fx__echo", text="after the hang"),
        call("mcp__fx__crash"),
        call("mcp__fx__echo", text="after the crash"),
        finish("survived"),
    ]
    result, server = headless(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    requests = server.chat_requests
    big = last_result(requests[1])
    assert len(big.encode()) <= 65_536 and "bytes cut here" in big and "10,000,000 bytes" in big
    assert last_result(requests[2]).startswith("Error [timed_out]")
    assert last_result(requests[3]) == "echo: after the hang"
    crashed = last_result(requests[4])
    assert crashed.startswith("Error [mcp_error]") and "exited with code 3" in crashed
    assert "crashing on purpose" in crashed  # its stderr tail
    assert last_result(requests[5]).startswith("Error [unknown_tool]")  # withdrawn
    assert not any(name.startswith("mcp__fx__") for name in offered(requests[5]))
    assert "MCP server never did not start" in result.stderr and "startup_timeout of 3 s" in result.stderr
    assert "MCP server broken did not start" in result.stderr and "cannot open the database" in result.stderr
    assert result.stderr.count("MCP server fx stopped") == 1
    assert not alive(pid_in(pid_file))


def test_two_hundred_tools_are_searched_not_sent(ws: Path) -> None:
    user_servers({"fx": fixture_server("--extra-tools", "190")})
    steps = [
        call("mcp_search", query="ticket topic 7", limit=2),
        call("mcp__fx__extra_7", title="Broken login", body="b", labels=[], priority=1),
        finish("filed"),
    ]
    result, server = headless(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    first, second, third = server.chat_requests
    assert "mcp_search" in offered(first) and not any(n.startswith("mcp__") for n in offered(first))
    found = last_result(second)
    assert "mcp__fx__extra_7:" in found and '"priority"' in found
    assert "mcp__fx__extra_7" in offered(second)
    assert last_result(third) == "mcp__fx__extra_7 filed: Broken login".removeprefix("mcp__fx__")
    assert len(json.dumps(first["tools"])) < len(json.dumps(second["tools"])) < 20_000


def test_untrusted_repository_servers_wait_for_trust(ws: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "repo.pid"
    (ws / ".mcp.json").write_text(json.dumps(
        {"mcpServers": {"repo": {"command": sys.executable, "args": [fixture_server()["args"][0], "--pid-file",
                                                                       str(pid_file)]}}}))
    project_config(ws, servers_toml({"proj": fixture_server()}), trusted=False)
    result, server = headless(ws, [finish("ok")], "--yes")
    assert result.code == 0, result.stderr
    assert not any(n.startswith("mcp__") for n in offered(server.chat_requests[0]))
    assert "not trusted" in result.stderr and "repo (" in result.stderr and "proj (" in result.stderr
    assert not pid_file.exists()
    granted = run_main("trust", "--workspace", str(ws))
    assert granted.code == 0 and "MCP server repo" in granted.stdout and "MCP server proj" in granted.stdout
    result, server = headless(ws, [finish("ok")], "--yes")
    assert {"mcp__repo__echo", "mcp__proj__echo"} <= set(offered(server.chat_requests[0]))
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": fixture_server()}}))
    result, server = headless(ws, [finish("ok")], "--yes")
    assert not any(n.startswith("mcp__") for n in offered(server.chat_requests[0]))  # changed: asks again


def test_ctrl_c_stops_the_servers(ws: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "fx.pid"
    user_servers({"fx": fixture_server("--pid-file", str(pid_file))})
    with ScriptedServer({"models": ["scripted-model"], "steps": [call("mcp__fx__hang", seconds=120)]}) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "hang", "--base-url", server.base_url, "--model",
             "scripted-model", "--workspace", str(ws), "--yes"],
            env={**os.environ, **ENV}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        pid = pid_in(pid_file, timeout=60)
        deadline = time.monotonic() + 60
        while not server.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the call is under way
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert gone(pid), "the server process outlived Ctrl-C"


def test_sneakycode_serves_a_second_sneakycode(ws: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("from the other workspace\n")
    user_servers({"sc": {"command": sys.executable,
                         "args": ["-m", "sneakycode.faces.cli.main", "mcp", "serve", "--workspace", str(other)]}})
    result, server = headless(ws, [call("mcp__sc__read_file", file_path="notes.txt"), finish("read")], "--yes")
    assert result.code == 0, result.stderr
    assert "from the other workspace" in last_result(server.chat_requests[1])
    assert "mcp__sc__finish" not in offered(server.chat_requests[0])


def test_no_server_survives_a_sigkill_of_sneakycode(ws: Path, tmp_path: Path) -> None:
    """SIGKILL runs no exit hook: the server sees its stdin close and exits, but what it started in its group
    (a browser, say) would live on if the watchdog did not end the group."""
    pid_file, helper_file = tmp_path / "fx.pid", tmp_path / "helper.pid"
    user_servers({"fx": fixture_server("--pid-file", str(pid_file), "--helper-pid-file", str(helper_file))})
    with ScriptedServer({"models": ["scripted-model"], "steps": [call("mcp__fx__hang", seconds=120)]}) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "hang", "--base-url", server.base_url, "--model",
             "scripted-model", "--workspace", str(ws), "--yes"],
            env={**os.environ, **ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            pid, helper = pid_in(pid_file, timeout=60), pid_in(helper_file, timeout=60)
            deadline = time.monotonic() + 60
            while not server.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # the call is under way
            assert alive(pid) and alive(helper)
            proc.kill()
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert gone(pid, timeout=5), "the server process outlived a SIGKILL of SneakyCode"
    assert gone(helper, timeout=5), "the server's helper process outlived a SIGKILL of SneakyCode"

