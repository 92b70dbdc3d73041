"""The bundled suite is honest: every task's hidden test fails on the untouched repository and passes with the
reference solution, the hidden test and the solution are not in what the model gets, and a model that only
answers "Done." solves nothing."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from sneakycode.evals.check import check_task
from sneakycode.evals.suite import KINDS, EvalTask, load_suite, task_files
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.process.test_sandbox import require_bwrap

CORE = load_suite("core")
FAST = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def test_the_core_suite_is_versioned_and_covers_what_it_promises() -> None:
    """At least 30 tasks, five languages, every kind, several changes across two or more files; the hidden
    test and the reference solution are kept out of the repository the model starts from."""
    assert CORE.name == "core" and CORE.version
    assert len(CORE.tasks) >= 30
    languages = Counter(task.language for task in CORE.tasks)
    assert {"python", "javascript", "shell", "c", "perl"} <= set(languages)
    assert set(KINDS) == {task.kind for task in CORE.tasks}
    multi_file = [task.id for task in CORE.tasks if len(_solution_files(task)) >= 2]
    assert len(multi_file) >= 5, multi_file
    for task in CORE.tasks:
        assert not set(task.hidden) & set(task.files), task.id
        for path in _solution_files(task):
            original = task.repo_dir / path
            assert not original.exists() or original.read_text() != (task.solution_dir / path).read_text(), task.id


def _solution_files(task: EvalTask) -> list[str]:
    return [file.relative for file in task_files(task.solution_dir, task.suite_folder)]


@pytest.mark.slow
@pytest.mark.parametrize("task", CORE.tasks, ids=[task.id for task in CORE.tasks])
def test_every_hidden_test_fails_before_and_passes_with_the_reference_solution(task: EvalTask) -> None:
    result = check_task(task)
    assert result.fails_before, f"{task.id} passes untouched:\n{result.before_output}"
    assert result.passes_after, f"{task.id} fails with its solution:\n{result.after_output}"


@pytest.mark.slow
def test_a_model_that_only_says_done_scores_zero(tmp_path: Path) -> None:
    """The whole suite through the real CLI, every reply "Done.": nothing is solved, every hidden test ran
    (each task has a verdict) and failed."""
    require_bwrap(tmp_path)  # the agents and hidden tests run under bubblewrap
    steps = [{"content": "Done.", "usage": {"prompt_tokens": 4000, "completion_tokens": 2}}] * (len(CORE.tasks) + 5)
    out = tmp_path / "done"
    with ScriptedServer({"steps": steps}) as server:
        result = run_cli("eval", "--workers", "2", "--out", str(out), "--base-url", server.base_url, "--model",
                         "scripted-model", env=FAST, timeout=900)  # fmt: skip
        assert len(server.chat_requests) == len(CORE.tasks)
    assert result.code == 0, result.stderr
    card = json.loads((out / "scorecard.json").read_text())
    assert (card["totals"]["tasks"], card["totals"]["solved"]) == (len(CORE.tasks), 0)
    results = [json.loads(line) for line in (out / "attempt-1" / "results.jsonl").read_text().splitlines()]
    assert len(results) == len(CORE.tasks)
    assert all(r["verdict"] is not None and r["verdict"]["passed"] is False for r in results), results
