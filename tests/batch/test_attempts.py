"""Several attempts of one task (issue 40): each in its own worktree through the batch engine, the passing one
kept and applied, every attempt reported, and nothing left behind (worktrees, processes) even when cancelled."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.batch.attempts import leftover_worktrees, run_attempts
from sneakycode.testing.server import ScriptedServer
from tests.batch.scenario import git, make_repo

CALC = "def add(a, b):\n    return a - b\n"
FIXED = CALC.replace("a - b", "a + b")
CHECK = "python3 check_calc.py"
FILES = {"calc.py": CALC, "check_calc.py": "from calc import add\nassert add(2, 3) == 5\n"}
ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def finish(message: str) -> dict[str, Any]:
    return call("finish", message=message)


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)


def options(server: ScriptedServer, repo: Path, **more: Any) -> sneakycode.Options:
    chosen: dict[str, Any] = {"until": CHECK, "attempts": 3, "max_turns": 3, "model": "scripted-model", **more}
    return sneakycode.Options(workspace=repo, base_url=server.base_url, **chosen)


def test_three_attempts_keep_the_passing_one_with_the_smallest_diff_and_apply_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "app", FILES)
    # One worker: the attempts run one after another, so the script's steps go to them in order.
    steps = [finish("done"), finish("done now"), finish("surely"),  # 1: never fixes it
             call("read_file", file_path="calc.py"),  # 2: a one-line fix
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("ok"),
             call("read_file", file_path="calc.py"),
             call("write_file", file_path="calc.py", content="# adds\n\n\ndef add(a, b):\n    return b + a\n"),
             finish("rewritten")]  # 3: passes too, with a bigger change
    with ScriptedServer({"steps": steps}) as server:
        result = run_attempts(options(server, repo), "make add right", confirm=lambda _found: True)
    assert result.status == "finished" and result.chosen_attempt == 2, result.message
    assert [row["check_passed"] for row in result.attempts] == [False, True, True]
    assert [row["turns"] for row in result.attempts] == [3, 3, 3]
    assert result.attempts[1]["diff_lines"] < result.attempts[2]["diff_lines"]
    assert (repo / "calc.py").read_text() == FIXED and result.files_changed == ["calc.py"]
    assert result.check is not None and result.check["passed"] and "applied to the workspace" in result.message
    assert leftover_worktrees(repo) == []
    assert not Path(result.cost["attempts_dir"], "main", "tasks", "attempt-1").exists()


def test_attempts_are_not_applied_without_consent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "app", FILES)
    steps = [call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("ok")]
    with ScriptedServer({"steps": steps}) as server:
        result = run_attempts(options(server, repo, attempts=1), "make add right")
    assert result.chosen_attempt == 1 and "not applied" in result.message and "--yes" in result.message
    assert (repo / "calc.py").read_text() == CALC and git(repo, "status", "--porcelain") == ""


def test_cancelling_attempts_leaves_no_worktree_and_no_process(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "app", FILES)
    stop = threading.Event()
    # Each attempt's command hangs (a token marks its processes): cancelling must end them and remove the worktrees.
    steps = [call("run_command", command=f"sleep {HANG}", timeout=600)] * 2
    with ScriptedServer({"steps": steps}) as server:
        watcher = threading.Thread(target=_stop_when_running, args=(stop,), daemon=True)
        watcher.start()
        result = run_attempts(options(server, repo, attempts=2, until=None, max_turns=2), "hang", stop=stop,
                              workers=2)
    assert result.status == "cancelled" and leftover_worktrees(repo) == []
    assert not any(Path(result.cost["attempts_dir"], "main", "tasks").glob("attempt-*"))
    assert _hanging() == []


HANG = "297.123"


def _hanging() -> list[str]:
    """The processes whose command line holds the test's token (read from /proc, no other process started)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"sleep {HANG}" in text and "run_command" not in text and "pytest" not in text:
            found.append(text)
    return found


def _stop_when_running(stop: threading.Event) -> None:
    """Cancel once both attempts' commands run (waiting on them, not on a clock)."""
    while len(_hanging()) < 2:
        threading.Event().wait(0.05)
    stop.set()


def test_attempts_need_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(sneakycode.ConfigError, match="needs a git repository"):
        run_attempts(sneakycode.Options(workspace=tmp_path, until="true", attempts=2), "x")


def test_without_a_check_the_small_models_vote_picks_the_attempt(tmp_path: Path) -> None:
    """attempt_rule "vote": the small model reads both diffs and names one (here the second, not the first)."""
    repo = make_repo(tmp_path, "app", FILES)
    steps = [call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return b - a"), finish("1"),
             call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("2"),
             {"content": "Attempt 2"}]  # the ballot's answer
    with ScriptedServer({"steps": steps}) as server:
        result = run_attempts(options(server, repo, attempts=2, until=None, attempt_rule="vote", isolated=True),
                              "make add right", confirm=lambda _found: True)
        ballot = server.chat_requests[-1]["messages"][-1]["content"]
    assert result.chosen_attempt == 2 and "chosen by the rule `vote`" in result.message
    assert "## Attempt 1" in ballot and "## Attempt 2" in ballot and "Answer with its number alone" in ballot
    assert (repo / "calc.py").read_text() == FIXED and result.check is None


def test_attempts_start_from_the_working_tree_with_its_uncommitted_and_untracked_files(tmp_path: Path) -> None:
    """The attempts see the user's uncommitted change and untracked file (not an ignored one), and applying the
    chosen one keeps both: its diff is against a snapshot of the working tree, not HEAD. Hardening round three,
    class 40: the snapshot leaves the user's index and stash as they were, and an ignored file stays out."""
    repo = make_repo(tmp_path, "app", {"calc.py": CALC, ".gitignore": "secret.txt\n"})
    (repo / "calc.py").write_text(CALC + "\n\ndef double(x):\n    return 2 * x\n")  # uncommitted
    (repo / "check_calc.py").write_text(FILES["check_calc.py"])  # untracked: the check itself
    (repo / "secret.txt").write_text("ignored\n")
    index_before = (repo / ".git" / "index").read_bytes()
    steps = [call("read_file", file_path="secret.txt"), call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("ok")]
    with ScriptedServer({"steps": steps}) as server:
        result = run_attempts(options(server, repo, attempts=1, max_turns=4), "make add right",
                              confirm=lambda _found: True)
        seen = [m["content"] for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert result.status == "finished" and result.chosen_attempt == 1, result.message
    assert "ignored" not in seen[0] and "def double" in seen[1]
    assert result.attempts[0]["files_changed"] == ["calc.py"] and result.attempts[0]["diff_lines"] == 2
    assert (repo / "calc.py").read_text() == FIXED + "\n\ndef double(x):\n    return 2 * x\n"
    assert (repo / "check_calc.py").read_text() == FILES["check_calc.py"] and (repo / "secret.txt").exists()
    assert git(repo, "status", "--porcelain").splitlines() == [" M calc.py", "?? check_calc.py"]
    assert (repo / ".git" / "index").read_bytes() == index_before and git(repo, "stash", "list") == ""
    assert leftover_worktrees(repo) == []


def test_the_fallback_model_takes_over_after_every_attempt_of_the_main_one_failed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[models] fallback` with --attempts: the main model's attempts never escalate on their own; once all of
    them failed the check, the fallback runs its attempt under its own cost cap, and both costs are counted."""
    repo = make_repo(tmp_path, "app", FILES)
    monkeypatch.setenv("SNEAKYCODE_MODELS__FALLBACK", '{model = "big-coder", max_cost = 5.0}')
    monkeypatch.setenv("SNEAKYCODE_PRICING", '{main-coder = {input = 1.0, output = 2.0}, '
                                             'big-coder = {input = 10.0, output = 20.0}}')
    steps = [finish("done"), finish("done now"), finish("really"),  # attempt 1 (main): never fixes it
             finish("done"), finish("done now"), finish("really"),  # attempt 2 (main): nor does this one
             call("read_file", file_path="calc.py"),  # attempt 3: the fallback fixes it
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("ok")]
    with ScriptedServer({"steps": steps}) as server:
        result = run_attempts(options(server, repo, attempts=2, model="main-coder", max_cost=10.0), "make add right",
                              confirm=lambda _found: True)
        asked = [request["model"] for request in server.chat_requests]
    assert asked == [*["main-coder"] * 6, *["big-coder"] * 3]
    assert result.status == "finished" and result.chosen_attempt == 3 and result.solved_by == "big-coder"
    assert [(row["role"], row["check_passed"]) for row in result.attempts] == [
        ("main", False), ("main", False), ("fallback", True)]
    assert "fallback model big-coder took over after all 2 attempts" in result.message
    assert set(result.models) == {"main-coder", "big-coder"}
    assert result.models["big-coder"]["usd"] > result.models["main-coder"]["usd"] > 0
    assert result.cost["usd"] == round(result.models["big-coder"]["usd"] + result.models["main-coder"]["usd"], 6)
    assert (repo / "calc.py").read_text() == FIXED and leftover_worktrees(repo) == []

