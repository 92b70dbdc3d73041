"""The suite's honesty check: for each task, the hidden test fails on the untouched repository and passes
once the reference solution is laid over it. A task that passes untouched measures nothing; one whose
solution fails cannot be solved. `sneakycode eval check` runs it, and so does the suite's own test.

The tests run here without the sandbox: they are the suite's own code (the bundled suite, or the user's own
folder), not anything a model wrote.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sneakycode.evals.content import copy_suite_folder
from sneakycode.evals.suite import EvalTask
from sneakycode.process.environment import command_environment, shell_argv
from sneakycode.process.supervise import run_process

CHECK_TIMEOUT = 120.0
OUTPUT_TAIL = 2000


@dataclass(frozen=True)
class CheckResult:
    id: str
    fails_before: bool
    passes_after: bool
    before_output: str
    after_output: str

    @property
    def honest(self) -> bool:
        return self.fails_before and self.passes_after


def _write_hidden(task: EvalTask, root: Path) -> None:
    for relative, text in task.hidden.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _run_test(task: EvalTask, root: Path) -> tuple[bool, str]:
    try:
        result = run_process(shell_argv(task.test), cwd=root, env=command_environment(),
                             timeout=min(task.timeout, CHECK_TIMEOUT))  # fmt: skip
    except OSError as exc:
        return False, f"the test could not start: {exc.strerror}"
    text = (result.stdout + result.stderr).decode("utf-8", "replace")
    if result.ending.timed_out:
        text += f"\n(timed out after {min(task.timeout, CHECK_TIMEOUT):.0f} s)"
    return result.ending.exit_code == 0, text[-OUTPUT_TAIL:]


def check_task(task: EvalTask) -> CheckResult:
    with tempfile.TemporaryDirectory(prefix=f"sneakycode-eval-check-{task.id}-") as scratch:
        root = Path(scratch) / "repo"
        root.mkdir()
        copy_suite_folder(task.repo_dir, root, task.suite_folder)
        _write_hidden(task, root)
        passed_before, before = _run_test(task, root)
        if task.solution_dir.is_dir() or task.solution_dir.is_symlink():
            copy_suite_folder(task.solution_dir, root, task.suite_folder)
        _write_hidden(task, root)  # a solution never replaces the hidden test
        passed_after, after = _run_test(task, root)
    return CheckResult(task.id, not passed_before, passed_after, before, after)


def check_tasks(tasks: list[EvalTask], on_result: Callable[[CheckResult], None] = lambda _r: None,
                ) -> list[CheckResult]:  # fmt: skip
    results = []
    for task in tasks:
        result = check_task(task)
        on_result(result)
        results.append(result)
    return results
