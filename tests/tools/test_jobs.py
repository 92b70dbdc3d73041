"""Issue 16: a dev server started as a job, found through its output, queried by a second command and
killed; the job tool's limits and how its kill is decided."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.permissions.decide import Decision
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, project_config

# A dev server in miniature: picks a free port and says which, like `vite` or `flask run` do.
SERVER = (
    f"{sys.executable} -u -c \"import http.server as h; s = h.HTTPServer(('127.0.0.1', 0), h.SimpleHTTPRequestHandler);"
    " print('listening on http://127.0.0.1:%d/' % s.server_port); s.serve_forever()\""
)


@pytest.fixture
def jobs_ctx(ctx: ToolContext) -> Iterator[ToolContext]:
    yield ctx
    ctx.close()


def fetch_command(port: str) -> str:
    if shutil.which("curl"):
        return f"curl -s http://127.0.0.1:{port}/hello.txt"
    return f"{sys.executable} -c \"import urllib.request as u; print(u.urlopen('http://127.0.0.1:{port}/hello.txt').read().decode())\""


def test_dev_server_job_is_found_by_its_output_queried_and_killed(jobs_ctx: ToolContext, ws: Path) -> None:
    (ws / "hello.txt").write_text("hello from the job\n")
    started = call(jobs_ctx, "run_command", command=SERVER, background=True)
    assert started.success, started.render()
    job_id = started.data["job_id"]
    assert started.data["status"] == "running" and "job 1 running" in started.message

    ready = call(jobs_ctx, "job", job_id=job_id, pattern=r"listening on http://127\.0\.0\.1:(\d+)/", wait_seconds=20)
    assert ready.success, ready.render()
    port = ready.data["groups"][0]

    fetched = call(jobs_ctx, "run_command", command=fetch_command(port))
    assert fetched.success and "hello from the job" in fetched.content

    log = call(jobs_ctx, "job", job_id=job_id, wait_seconds=5)
    assert "GET /hello.txt" in log.content  # the server's access log line, new since the last read

    killed = call(jobs_ctx, "job", job_id=job_id, action="kill")
    assert killed.success and killed.data["status"] == "killed"
    again = call(jobs_ctx, "run_command", command=fetch_command(port))
    assert not again.success  # nothing listens there any more


def test_a_pattern_that_never_appears_fails_with_the_output_when_the_job_ends(jobs_ctx: ToolContext) -> None:
    call(jobs_ctx, "run_command", command="echo compiling; echo 'error: bad thing'; exit 2", background=True)
    result = call(jobs_ctx, "job", job_id=1, pattern="ready", wait_seconds=10)
    assert not result.success and result.code == "pattern_not_seen"
    assert "error: bad thing" in result.content and "exited with exit code 2" in result.content


def test_an_invalid_pattern_and_an_unknown_job_are_explained(jobs_ctx: ToolContext) -> None:
    call(jobs_ctx, "run_command", command="sleep 5", background=True)
    assert call(jobs_ctx, "job", job_id=1, pattern="(unclosed").code == "invalid_pattern"
    missing = call(jobs_ctx, "job", job_id=7)
    assert missing.code == "no_such_job" and "1 (running: sleep 5)" in missing.content


def test_max_jobs_refuses_one_more_and_lists_the_running_ones(ws: Path) -> None:
    project_config(ws, "[tools.shell]\nmax_jobs = 1\n")
    ctx = open_tool_context(load_settings(ws))
    try:
        assert call(ctx, "run_command", command="sleep 30", background=True).success
        refused = call(ctx, "run_command", command="sleep 31", background=True)
        assert refused.code == "job_limit" and "sleep 30" in refused.content
    finally:
        ctx.close()
    assert ctx.jobs.running() == []  # the session's end killed it


def test_reading_is_auto_approved_and_kill_is_decided_as_the_jobs_command(jobs_ctx: ToolContext, ws: Path) -> None:
    project_config(ws, '[permissions]\nallow = ["run_command(sleep *)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        call(ctx, "run_command", command="sleep 30", background=True)
        call(ctx, "run_command", command="python3 -c 'import time; time.sleep(30)'", background=True)
        gate = Gate(ctx)
        assert gate.prepare("job", {"job_id": 2}).decision.decision is Decision.ALLOW  # type: ignore[union-attr]
        allowed = gate.prepare("job", {"job_id": 1, "action": "kill"})
        assert allowed.decision is not None and allowed.decision.decision is Decision.ALLOW
        asked = gate.prepare("job", {"job_id": 2, "action": "kill"})
        assert asked.decision is not None and asked.decision.decision is Decision.ASK
        refusal = gate.check(asked)  # headless, no approver: refused, naming the rule for the command
        assert refusal is not None and refusal.how_to_allow is not None
        assert "run_command(python3 -c 'import time; time.sleep(30)')" in refusal.how_to_allow
    finally:
        ctx.close()
