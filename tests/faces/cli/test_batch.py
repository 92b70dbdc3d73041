"""`sneakycode batch` end to end on the local executor: real repositories, real agents in the sandbox,
scripted servers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.batch.scenario import check_six, done, make_repo, results, six_tasks, write_tasks
from tests.conftest import run_cli
from tests.process.test_sandbox import require_bwrap


@pytest.fixture
def sandbox(tmp_path: Path) -> None:
    """Batch runs each agent under bubblewrap by default: without it these tests skip and say so (issue 37:
    they failed, and the README says `make test` needs nothing beside the clone)."""
    require_bwrap(tmp_path)


@pytest.mark.usefixtures("sandbox")
def test_six_tasks_give_their_diffs_and_verdicts(tmp_path: Path) -> None:
    with six_tasks(tmp_path) as scenario:
        out = tmp_path / "out"
        run = run_cli("batch", str(scenario.task_file), "--out", str(out), "--workers", "3", timeout=180)
        check_six(scenario, out)
    assert run.code == 1, run.stderr  # one task failed its test, one could not be set up
    assert "passed" in run.stdout and "errored" in run.stdout  # the summary table
    # Each task worked in its own copy at its ref; the source repositories are untouched.
    assert (out / "tasks" / "on-branch" / "feature.txt").is_file()
    assert not (tmp_path / "r1" / "b.py").exists()


def test_bad_task_lines_are_reported_by_number_and_nothing_starts(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    with ScriptedServer([done()]) as server:
        good = {"id": "ok", "repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}
        tasks = tmp_path / "tasks.jsonl"
        tasks.write_text("\n".join([
            json.dumps(good),
            "{not json",
            json.dumps({**good, "id": "two", "prompt": ""}),
            json.dumps({**good, "colour": "red"}),
            json.dumps(good),
            json.dumps({**good, "id": "gone", "repo": str(tmp_path / "missing")}),
        ]) + "\n", encoding="utf-8")  # fmt: skip
        run = run_cli("batch", str(tasks), "--out", str(tmp_path / "out"))
        assert server.chat_requests == []
    assert run.code == 2
    for expected in ("line 2: not JSON", "line 3: prompt", "line 4: colour", "line 5: id 'ok' is already used on "
                     "line 1", "line 6: repo"):  # fmt: skip
        assert expected in run.stderr
    assert "line 1" not in run.stderr.replace("on line 1", "")
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_refuses_to_run_without_the_sandbox_unless_told(tmp_path: Path) -> None:
    # A PATH with git but no bwrap: the sandbox cannot work.
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("git", "bash", "sh"):
        found = subprocess.run(["which", name], capture_output=True, text=True).stdout.strip()
        (tools / name).symlink_to(found)
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    with ScriptedServer([done()]) as server:
        tasks = write_tasks(tmp_path / "tasks.jsonl", [
            {"id": "t", "repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}])  # fmt: skip
        refused = run_cli("batch", str(tasks), "--out", str(tmp_path / "out"), env={"PATH": str(tools)})
        assert refused.code == 2 and "--no-sandbox" in refused.stderr and "bwrap" in refused.stderr
        assert server.chat_requests == []
        allowed = run_cli("batch", str(tasks), "--out", str(tmp_path / "out"), "--no-sandbox",
                          env={"PATH": str(tools)})  # fmt: skip
    assert allowed.code == 0, allowed.stderr
    assert results(tmp_path / "out")[0]["outcome"] == "passed"


@pytest.mark.usefixtures("sandbox")
def test_kill_9_then_resume_finishes_without_repeating_tasks(tmp_path: Path) -> None:
    with six_tasks(tmp_path, delay=0.3, only_done=True) as scenario:
        out = tmp_path / "out"
        argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "batch", str(scenario.task_file), "--out", str(out),
                "--workers", "1"]  # fmt: skip
        runner = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
        deadline = time.monotonic() + 120
        while len(results(out)) < 2 and time.monotonic() < deadline and runner.poll() is None:
            time.sleep(0.05)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        before = results(out)
        assert 2 <= len(before) < 6
        asked = {task_id: len(server.chat_requests) for task_id, server in scenario.servers.items()}
        resumed = run_cli("batch", str(scenario.task_file), "--out", str(out), "--resume", timeout=180)
        after = results(out)
        assert "skipped 2" in resumed.stderr or len(before) != 2
        # The finished ones were not run again: same lines first, no new request to their servers.
        assert after[: len(before)] == before
        for line in before:
            assert len(scenario.servers[line["id"]].chat_requests) == asked[line["id"]]
    assert sorted(r["id"] for r in after) == sorted(scenario.expected)  # each task once, none lost
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["tasks"] == 6 and summary["errored"] == 1  # bad-setup


@pytest.mark.usefixtures("sandbox")
def test_without_resume_an_output_folder_with_results_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    with ScriptedServer([done(), done()]) as server:
        tasks = write_tasks(tmp_path / "tasks.jsonl", [
            {"id": "t", "repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}])  # fmt: skip
        assert run_cli("batch", str(tasks), "--out", str(tmp_path / "out")).code == 0
        again = run_cli("batch", str(tasks), "--out", str(tmp_path / "out"))
        assert again.code == 2 and "--resume" in again.stderr
        assert len(server.chat_requests) == 1


@pytest.mark.usefixtures("sandbox")
def test_the_rate_limiter_holds_429s_and_slows_every_task(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    script = {"steps": [{"fault": "status", "status": 429, "retry_after": "1.5"}, done(), done(), done()]}
    with ScriptedServer(script) as server:
        tasks = write_tasks(tmp_path / "tasks.jsonl", [
            {"id": f"t{n}", "repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}
            for n in range(3)])  # fmt: skip
        run = run_cli("batch", str(tasks), "--out", str(tmp_path / "out"), "--workers", "3", timeout=120)
        chat = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert run.code == 0, run.stderr
    # No agent saw the 429 (none spent a retry or failed); the proxy held it and tried again.
    assert [r.status for r in chat].count(429) == 1 and len(chat) == 4
    assert all(line["outcome"] == "passed" for line in results(tmp_path / "out"))
    throttled_at = next(r.received_at for r in chat if r.status == 429)
    # Everyone waited: no request reached the server in the 1.5 s after the 429, except one already on its way.
    later = [r.received_at - throttled_at for r in chat if r.received_at > throttled_at + 0.05]
    assert later and all(gap >= 1.4 for gap in later), later
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["rate_limit"]["held_429"] == 1 and summary["rate_limit"]["throttled"] >= 1


@pytest.mark.usefixtures("sandbox")
def test_ctrl_c_stops_new_tasks_ends_running_ones_cleanly_and_writes_the_summary(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    script = {"steps": [{"fault": "hang", "seconds": 60}, done(), done()]}
    with ScriptedServer(script) as server:
        tasks = write_tasks(tmp_path / "tasks.jsonl", [
            {"id": f"t{n}", "repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}
            for n in range(3)])  # fmt: skip
        out = tmp_path / "out"
        argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "batch", str(tasks), "--out", str(out),
                "--workers", "1"]
        runner = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not server.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        runner.send_signal(signal.SIGINT)
        _, stderr = runner.communicate(timeout=60)
    assert runner.returncode == 130, stderr
    assert results(out) == []  # the cancelled task has no line, so --resume runs it again
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["cancelled"], summary["not_started"]) == (1, 2)
    transcript = next((out / "sessions" / "t0" / "sessions").glob("*/transcript.jsonl"))
    assert all(json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines())
