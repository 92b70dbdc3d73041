"""Goals (issue 40): a request that ends when a check command passes, through the SDK against the scripted server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC, call, finish, tool_messages

CHECK_FILE = "check_calc.py"
CHECK = f"python3 {CHECK_FILE}"
FIXED = CALC.replace("a - b", "a + b")


def goal_repo(ws: Path) -> Path:
    (ws / "calc.py").write_text(CALC)
    (ws / CHECK_FILE).write_text("from calc import add\nassert add(2, 3) == 5, f'add(2, 3) is {add(2, 3)}'\n")
    return ws


def options(server: ScriptedServer, repo: Path, **more: Any) -> sneakycode.Options:
    settings = {"retry_backoff": 0.01, **more.pop("settings", {})}
    chosen: dict[str, Any] = {"mode": "auto-edit", "until": CHECK, "model": "qwen2.5-coder-7b", **more}
    return sneakycode.Options(workspace=repo, base_url=server.base_url, api_key="k", isolated=True, settings=settings,
                              **chosen)


def fix() -> list[dict[str, Any]]:
    return [call("read_file", file_path="calc.py"),
            call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"),
            finish("Fixed add.")]


def test_a_goal_sends_the_failing_check_back_and_ends_when_it_passes(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("Looks done to me."), *fix()])
    result = sneakycode.run("make add right", options(server, repo))
    assert result.status == "finished" and (repo / "calc.py").read_text() == FIXED
    assert result.check is not None and result.check["passed"] and result.check["rounds"] == 2
    assert result.check["files"] == [CHECK_FILE] and result.solved_by == "qwen2.5-coder-7b"
    assert result.turns == 4 and len(server.chat_requests) == 4
    # The second request is the check's failure, its output included.
    users = [m["content"] for m in server.chat_requests[1]["messages"] if m["role"] == "user"]
    assert "exited with code 1" in users[-1] and "add(2, 3) is -1" in users[-1]
    assert result.usage["total_tokens"] > 0 and result.models["qwen2.5-coder-7b"]["prompt_tokens"] > 0


def test_a_check_that_already_passes_asks_nothing_of_the_model(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    (repo / "calc.py").write_text(FIXED)
    result = sneakycode.run("make add right", options(server, repo))
    assert result.status == "finished" and "Already passing" in result.message
    assert result.check is not None and result.check["already_passing"] and server.chat_requests == []


def test_the_goal_stops_at_max_turns_with_the_check_still_failing(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done"), finish("done again"), finish("surely done")])
    result = sneakycode.run("make add right", options(server, repo, max_turns=2))
    assert (result.status, result.budget) == ("turn_limit", "max_turns") and "still fails" in result.message
    assert result.check is not None and not result.check["passed"] and result.check["exit_code"] == 1
    assert len(server.chat_requests) == 2 and result.resume is not None


def test_the_goal_stops_at_the_token_budget(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done"), finish("done again")])
    result = sneakycode.run("make add right", options(server, repo, max_tokens=1))
    assert (result.status, result.budget) == ("budget", "max_tokens")
    assert result.check is not None and not result.check["passed"] and len(server.chat_requests) == 1


def test_a_check_that_hangs_is_killed_at_its_timeout(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done")])
    hang = "python3 -c 'import time; time.sleep(60)'"
    result = sneakycode.run("make add right", options(server, repo, until=hang, check_timeout=1, max_turns=1))
    assert result.check is not None and result.check["timed_out"] and not result.check["passed"]
    assert "timed out after 1 s" in result.check["output"]


def test_the_model_cannot_edit_or_delete_the_checks_files(server: ScriptedServer, ws: Path) -> None:
    """Hardening round three, class 40: a goal's check files are held like .git/hooks for the run."""
    repo = goal_repo(ws)
    original = (repo / CHECK_FILE).read_text()
    server.add_steps([
        call("read_file", file_path=CHECK_FILE),
        call("write_file", file_path=CHECK_FILE, content="pass\n"),
        call("run_command", command=f"echo pass > {CHECK_FILE}; rm -f {CHECK_FILE}"),
        finish("done"),
    ])
    result = sneakycode.run("make add right", options(server, repo, max_turns=4, mode="yolo"))
    results = tool_messages(server.chat_requests[-1])
    assert "Error [protected_path]" in results[1] and "file of the goal's check" in results[1]
    assert (repo / CHECK_FILE).read_text() == original
    assert result.check is not None and not result.check["passed"]


def test_bad_goal_options_are_refused_before_anything_starts(ws: Path) -> None:
    import pytest

    for bad in ({"until": " "}, {"until_files": ["x"]}, {"until": "true", "check_timeout": 0}, {"attempts": 0},
                {"until": "true", "attempt_rule": "best"}, {"until": "true", "escalate": "maybe"}):
        with pytest.raises(sneakycode.ConfigError):
            sneakycode.Session(sneakycode.Options(workspace=ws, isolated=True, **bad))  # type: ignore[arg-type]



def test_the_fallback_model_solves_what_the_main_one_could_not_and_both_costs_count(server: ScriptedServer,
                                                                                    ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done"), finish("done now"), finish("really"), *fix()])
    prices = {"pricing": {"main-coder": {"input": 1.0, "output": 2.0}, "big-coder": {"input": 10.0, "output": 20.0}},
              "models.fallback": {"model": "big-coder", "max_cost": 5.0}}
    result = sneakycode.run("make add right", options(server, repo, model="main-coder", max_turns=3, max_cost=10.0,
                                                      settings=prices))
    assert [request["model"] for request in server.chat_requests] == [*["main-coder"] * 3, *["big-coder"] * 3]
    assert result.status == "finished" and result.solved_by == "big-coder" and (repo / "calc.py").read_text() == FIXED
    assert set(result.models) == {"main-coder", "big-coder"}
    assert result.models["big-coder"]["usd"] > result.models["main-coder"]["usd"] > 0
    assert result.cost["usd"] == round(result.models["big-coder"]["usd"] + result.models["main-coder"]["usd"], 6)
    # The main model is back for the next request.
    server.add_steps([{"content": "ok"}])
    with sneakycode.Session(options(server, repo, model="main-coder", settings=prices, until=None)) as session:
        session.run("hi")
    assert server.chat_requests[-1]["model"] == "main-coder"


def test_the_fallbacks_own_cost_cap_ends_its_rounds(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done"), finish("still done"), finish("and again")])
    settings = {"pricing": {"main-coder": {"input": 0.0, "output": 0.0},
                            "big-coder": {"input": 1000.0, "output": 1000.0}},
                "models.fallback": {"model": "big-coder", "max_cost": 0.01}}
    result = sneakycode.run("make add right", options(server, repo, model="main-coder", max_turns=1, settings=settings))
    assert (result.status, result.budget) == ("budget", "max_cost") and result.solved_by is None
    assert [request["model"] for request in server.chat_requests] == ["main-coder", "big-coder"]


def test_the_goal_stops_at_the_cost_budget(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done"), finish("done again")])
    prices = {"pricing": {"main-coder": {"input": 1000.0, "output": 1000.0}}}
    result = sneakycode.run("make add right", options(server, repo, model="main-coder", max_cost=0.01,
                                                      settings=prices))
    assert (result.status, result.budget) == ("budget", "max_cost") and len(server.chat_requests) == 1


def test_the_goal_stops_at_the_time_budget(server: ScriptedServer, ws: Path) -> None:
    """The check itself outlasts --timeout: the next round never starts."""
    repo = goal_repo(ws)
    server.add_steps([finish("done")])
    slow = "python3 -c 'import time; time.sleep(1.5); raise SystemExit(1)'"
    result = sneakycode.run("make add right", options(server, repo, until=slow, timeout=1.0))
    assert (result.status, result.budget) == ("budget", "timeout") and result.check is not None
    assert not result.check["passed"]


def test_a_check_that_prints_megabytes_is_bounded(server: ScriptedServer, ws: Path) -> None:
    repo = goal_repo(ws)
    server.add_steps([finish("done")])
    loud = "python3 -c 'print(\"x\" * 5_000_000); raise SystemExit(1)'"
    result = sneakycode.run("make add right", options(server, repo, until=loud, max_turns=1))
    assert result.check is not None and len(result.check["output"]) <= 65_536
    sent = [m["content"] for m in server.chat_requests[0]["messages"] if m["role"] == "user"][-1]
    assert len(sent) < 70_000


def test_cancelling_a_goal_during_its_check_ends_the_checks_processes(server: ScriptedServer, ws: Path) -> None:
    import threading

    from tests.batch.test_attempts import _hanging

    repo = goal_repo(ws)
    hang = "sleep 297.123"  # the token tests/batch/test_attempts.py looks for in /proc
    with sneakycode.Session(options(server, repo, until=hang)) as session:
        session.cancel()  # a cancel before the request is not the goal's: its check still runs
        seen = threading.Event()
        watcher = threading.Thread(target=lambda: (_wait_for(lambda: bool(_hanging())), seen.set(), session.cancel()),
                                   daemon=True)
        watcher.start()
        result = session.run("make add right")
    assert seen.is_set() and result.status == "cancelled" and server.chat_requests == []
    assert _hanging() == []


def _wait_for(condition: Any) -> None:
    import threading

    while not condition():
        threading.Event().wait(0.05)


def test_escalate_never_keeps_the_main_model_and_now_starts_on_the_fallback(server: ScriptedServer,
                                                                           ws: Path) -> None:
    """`Options.escalate` (--escalate): what attempts run their children with (batch/attempts.py)."""
    repo = goal_repo(ws)
    fallback = {"models.fallback": {"model": "big-coder"}}
    server.add_steps([finish("done"), finish("done now")])
    never = sneakycode.run("make add right", options(server, repo, model="main-coder", max_turns=2, escalate="never",
                                                     settings=fallback))
    assert never.status == "turn_limit" and set(never.models) == {"main-coder"}
    server.add_steps(fix())
    now = sneakycode.run("make add right", options(server, repo, model="main-coder", max_turns=3, escalate="now",
                                                   settings=fallback))
    assert [request["model"] for request in server.chat_requests] == [*["main-coder"] * 2, *["big-coder"] * 3]
    assert now.status == "finished" and now.solved_by == "big-coder" and set(now.models) == {"big-coder"}


def test_a_session_given_several_attempts_says_how_to_run_them_instead_of_running_one(tmp_path: Path) -> None:
    """Options.attempts is for run_attempts and `-p --attempts`: a Session given attempts=3 used to run one
    attempt without a word."""
    with pytest.raises(sneakycode.ConfigError, match="run_attempts"):
        sneakycode.Session(sneakycode.Options(workspace=tmp_path, attempts=3, isolated=True,
                                              state_dir=tmp_path / "state"))
    assert not (tmp_path / "state" / "sessions").exists()
