"""One eval: every task through the batch engine (a worktree per task, the agent sandboxed, the task's
budgets), then its hidden test; up to `attempts` rounds, each round running again only the tasks no round
has solved yet. Each round is a batch of its own in OUT/attempt-K (results.jsonl, tasks/, sessions/), so
everything batch writes is there to inspect; the scorecard adds them up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sneakycode.batch.engine import BatchConfig, BatchProgress, run_batch
from sneakycode.batch.results import read_results
from sneakycode.batch.spec import TaskSpec
from sneakycode.config.settings import BatchSettings
from sneakycode.errors import ConfigError
from sneakycode.evals.materialise import batch_task, make_repository
from sneakycode.evals.scorecard import FORMAT, SCORECARD_JSON, task_row, totals, write_scorecard
from sneakycode.evals.suite import EvalTask


@dataclass(frozen=True)
class EvalConfig:
    out_dir: Path
    model: dict[str, str | None]
    """provider, model and base_url every task's agent uses (None: the configured one)."""
    workers: int = 2
    attempts: int = 1
    sandbox: bool = True
    max_turns: int | None = None
    timeout: float | None = None
    settings: BatchSettings = field(default_factory=BatchSettings)


@dataclass(frozen=True)
class EvalJob:
    """One task of the eval as batch runs it; `source` is the suite's task whose repo/ folder becomes the git
    repository `spec.repo` names (None: the repository exists already, as for SWE-bench instances)."""

    spec: TaskSpec
    language: str
    kind: str
    source: EvalTask | None = None


@dataclass(frozen=True)
class Finished:
    """A task attempt that ended, for the progress line."""

    result: dict[str, Any]
    attempt: int
    done: int
    total: int
    solved: int


@dataclass(frozen=True)
class EvalOutcome:
    card: dict[str, Any]
    json_path: Path
    md_path: Path


def _check_out_dir(out_dir: Path) -> None:
    if (out_dir / SCORECARD_JSON).exists() or (out_dir / "attempt-1").exists():
        raise ConfigError(f"{out_dir} already holds an eval run; choose another --out")


def _attempt_folders(config: EvalConfig) -> list[Path]:
    """Every round's folder: once a task's test ran, its copy there holds the hidden test, and its results
    and transcripts quote it; another task's agent, or a later attempt's, must not find them."""
    return [config.out_dir.resolve() / f"attempt-{attempt}" for attempt in range(1, config.attempts + 1)]


def suite_jobs(tasks: list[EvalTask], config: EvalConfig, hide: list[Path]) -> list[EvalJob]:
    """The suite's tasks as jobs; each one's repository is made under OUT/repos/ID when the eval starts.
    `hide`: what the agents' sandbox covers (the suite's folders, see Suite.sandbox_hide)."""
    repos = config.out_dir.resolve() / "repos"
    if inside := [path for path in hide if path == repos.parent or path in repos.parents]:
        # The sandbox would cover the task copies' git data along with the suite: git would fail in them.
        raise ConfigError(f"--out {config.out_dir} lies inside {inside[0]}, which the tasks' sandbox hides; "
                          "choose an --out outside the suite folder")  # fmt: skip
    hidden = [*hide, *_attempt_folders(config)]
    return [EvalJob(batch_task(task, repos / task.id, model=config.model, max_turns=config.max_turns,
                               timeout=config.timeout, hide=hidden), task.language, task.kind, task)
            for task in tasks]  # fmt: skip


def swebench_jobs(specs: list[TaskSpec], config: EvalConfig, instances: Path | None = None) -> list[EvalJob]:
    """Tasks from batch's SWE-bench converter as jobs: the instance's own test command is the hidden test
    (it runs only after the agent), its repository the mirror or clone batch makes anyway."""
    jobs = []
    for spec in specs:
        if not spec.test:
            raise ConfigError(f"SWE-bench instance {spec.id!r} has no test_cmd: without one nothing decides it")
        update: dict[str, Any] = {key: value for key, value in config.model.items() if value is not None}
        update.update({key: value for key, value in (("max_turns", config.max_turns), ("timeout", config.timeout))
                       if value is not None})  # fmt: skip
        hidden = [*([instances.resolve()] if instances is not None else []), *_attempt_folders(config)]
        update["sandbox_hide"] = (*spec.sandbox_hide, *map(str, hidden))  # the instances hold every test_cmd
        jobs.append(EvalJob(spec.model_copy(update=update), "swebench", "bug"))
    return jobs


def run_eval(suite: dict[str, Any], jobs: list[EvalJob], config: EvalConfig, stop: threading.Event,
             on_finished: Callable[[Finished], None] = lambda _f: None) -> EvalOutcome:  # fmt: skip
    """Run the eval and write scorecard.json and scorecard.md into the output folder. `suite`: its name,
    version, task count and folder, as the scorecard records them."""
    if config.attempts < 1 or config.workers < 1:
        raise ConfigError("--attempts and --workers must be at least 1")
    out_dir = config.out_dir.resolve()
    _check_out_dir(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    for job in jobs:
        if job.source is not None:
            make_repository(job.source, Path(job.spec.repo))
    tasks = [job.spec for job in jobs]
    attempts: dict[str, list[dict[str, Any]]] = {task.id: [] for task in tasks}
    solved: set[str] = set()
    lock = threading.Lock()
    for attempt in range(1, config.attempts + 1):
        todo = [task for task in tasks if task.id not in solved]
        if not todo or stop.is_set():
            break
        round_dir = out_dir / f"attempt-{attempt}"
        seen: set[str] = set()

        def on_change(_progress: BatchProgress, round_dir: Path = round_dir, seen: set[str] = seen,
                      attempt: int = attempt) -> None:  # fmt: skip
            with lock:  # called from the executor's threads; each finished line is reported once
                for result in read_results(round_dir):
                    if result["id"] in seen:
                        continue
                    seen.add(result["id"])
                    attempts[result["id"]].append(result)
                    if result.get("outcome") == "passed":
                        solved.add(result["id"])
                    done = sum(1 for task in tasks if task.id in solved or len(attempts[task.id]) >= attempt)
                    on_finished(Finished(result, attempt, done, len(tasks), len(solved)))

        batch = BatchConfig(out_dir=round_dir, workers=config.workers, sandbox=config.sandbox,
                            settings=config.settings)  # fmt: skip
        run_batch(todo, batch, stop, on_change)
        on_change(BatchProgress(total=0, skipped=0))  # a line appended after the last callback is not lost
    rows = [task_row(job.spec.id, job.language, job.kind, attempts[job.spec.id]) for job in jobs]
    card = {
        "format": FORMAT,
        "suite": suite,
        "model": config.model, "attempts_allowed": config.attempts, "workers": config.workers,
        "sandbox": config.sandbox, "started_at": started_at, "interrupted": stop.is_set(),
        "totals": totals(rows, time.monotonic() - clock), "tasks": rows,
    }  # fmt: skip
    json_path, md_path = write_scorecard(out_dir, card)
    return EvalOutcome(card, json_path, md_path)
