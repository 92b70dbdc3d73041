"""Hardening round three, class 8: the 50 MiB line limit of `sneakycode acp` holds while a line is read. A line
over it is dropped as it arrives (never held: peak memory grows by about the limit, not by the line) and
answered with an Invalid Request naming its id; the connection goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest
from acp import text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import EditorWithFiles, agent_env, call, finish, initialized, run, running_agent

LIMIT = 50 << 20
LINE_MB = 200
PROMPT_HEAD = (b'{"jsonrpc":"2.0","id":2,"method":"session/prompt",'
               b'"params":{"sessionId":"x","prompt":[{"type":"text","text":"')
PROMPT_TAIL = b'"}]}}\n'


def request(request_id: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize",
                       "params": {"protocolVersion": 1}}).encode() + b"\n"


def peak_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM:")).split()[1])


def answer(stdout: IO[bytes]) -> dict[str, Any]:
    return dict(json.loads(stdout.readline()))


@pytest.mark.slow  # the real process: its pipes, its lifetime, its memory
def test_a_line_over_the_limit_on_a_pipe_is_dropped_as_it_arrives_and_answered(server: ScriptedServer) -> None:
    agent = subprocess.Popen([sys.executable, "-m", "sneakycode.faces.cli.main", "acp"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=agent_env(server))
    assert agent.stdin is not None and agent.stdout is not None
    try:
        agent.stdin.write(request(1))
        agent.stdin.flush()
        assert answer(agent.stdout)["id"] == 1
        before = peak_kib(agent.pid)
        # 200 MB written a megabyte at a time: the test holds one megabyte, the agent should hold about 50.
        agent.stdin.write(PROMPT_HEAD)
        megabyte = b"A" * (1 << 20)
        for _ in range(LINE_MB):
            agent.stdin.write(megabyte)
        agent.stdin.write(PROMPT_TAIL + request(3))
        agent.stdin.flush()
        dropped, after = answer(agent.stdout), answer(agent.stdout)
        grown_mib = (peak_kib(agent.pid) - before) / 1024
    finally:
        agent.stdin.close()
        agent.wait(60)
    assert dropped["id"] == 2 and dropped["error"]["code"] == -32600
    assert "over the limit of 52428800 bytes (50 MiB)" in dropped["error"]["message"]
    assert after["id"] == 3 and after["result"]["protocolVersion"] == 1  # the connection went on
    assert grown_mib < 80, f"peak memory grew by {grown_mib:.0f} MiB for a {LINE_MB} MB line"  # main: ~600
    assert agent.returncode == 0


@pytest.mark.slow  # the real process: its pipes, its lifetime, its memory
def test_a_line_over_the_limit_in_a_file_is_dropped_too(server: ScriptedServer, tmp_path: Path) -> None:
    """Input from a file is read by a thread: it reads ahead only a few chunks, so the file's line is not
    held either (a sparse file: 200 MB of NUL bytes that take no disk)."""
    requests, answers = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    with requests.open("wb") as out:
        out.write(request(1) + PROMPT_HEAD)
        out.seek(LINE_MB << 20, 1)
        out.write(PROMPT_TAIL + request(3))
    # A parent of its own, so ru_maxrss of its children is the agent's peak alone.
    measure = ("import resource, subprocess, sys\n"
               "with open(sys.argv[1], 'rb') as given, open(sys.argv[2], 'wb') as taken:\n"
               "    code = subprocess.run(sys.argv[3:], stdin=given, stdout=taken).returncode\n"
               "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    done = subprocess.run([sys.executable, "-c", measure, str(requests), str(answers), sys.executable, "-m",
                           "sneakycode.faces.cli.main", "acp"], capture_output=True, text=True, timeout=120,
                          env=agent_env(server))
    code, peak_kib_ = (int(word) for word in done.stdout.split())
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    assert code == 0 and [line.get("id") for line in lines] == [1, 2, 3], (done.stderr, lines)
    assert "over the limit" in lines[1]["error"]["message"]
    assert peak_kib_ / 1024 < 200, f"peak memory {peak_kib_ / 1024:.0f} MiB for a {LINE_MB} MB line"  # main: ~700


class EditorWithHugeFiles(EditorWithFiles):
    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **_: Any) -> Any:
        from acp import schema

        self.read_paths.append(path)
        return schema.ReadTextFileResponse(content="X" * (LIMIT + 1))


def test_an_editor_answer_over_the_limit_fails_our_request_at_once_and_the_disk_is_read(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "a.txt").write_text("on disk\n")
    server.add_steps([call("read_file", file_path="a.txt"), finish("Read.")])
    editor = EditorWithHugeFiles()

    async def go() -> Any:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn, fs=True)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=[text_block("read a.txt")])

    assert run(go, timeout=60).stop_reason == "end_turn"
    assert editor.read_paths  # the editor was asked, and its answer was too long to take
    [told] = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert "on disk" in told and "XXXX" not in told


@pytest.mark.slow  # the real process: its pipes, its lifetime, its memory
def test_the_editor_protocol_listens_on_no_socket_only_its_pipes(ws: Path, server: ScriptedServer) -> None:
    """Hardening round three, advisory class: `sneakycode acp` opens no local listener (no port, no socket a
    stranger could connect to); the editor that started it is the only one that can speak to it."""
    from tests.faces.acp.conftest import Editor, spawned_agent
    from tests.faces.acp.listeners import listening

    async def go() -> list[str]:
        async with spawned_agent(Editor(), server) as (conn, process):
            await initialized(conn)
            await conn.new_session(cwd=str(ws), mcp_servers=[])
            return listening(process.pid)

    assert run(go) == []
