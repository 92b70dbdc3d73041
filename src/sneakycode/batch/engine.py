"""A whole batch: check what can be checked before anything starts, skip what a resumed batch finished,
hand the rest to an executor, append each result as it arrives, and write the summary."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sneakycode.batch.executors.common import ExecutorJob
from sneakycode.batch.results import ResultsFile, finished_ids, read_results, summarise, write_summary
from sneakycode.batch.spec import TaskSpec
from sneakycode.config.settings import BatchSettings
from sneakycode.errors import ConfigError
from sneakycode.process.sandbox import probe

Executor = Literal["local", "ray"]


@dataclass(frozen=True)
class BatchConfig:
    out_dir: Path
    workers: int = 4
    executor: Executor = "local"
    resume: bool = False
    ray_address: str | None = None
    sandbox: bool = True
    settings: BatchSettings = field(default_factory=BatchSettings)


@dataclass
class BatchProgress:
    """What the progress bar shows; updated from the executor's threads."""

    total: int
    skipped: int
    done: int = 0
    running: int = 0
    failed: int = 0
    cost_usd: float = 0.0
    cancelled: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class BatchOutcome:
    summary: dict[str, Any]
    counters: dict[str, Any]
    summary_path: Path


def check_sandbox(out_dir: Path) -> None:
    """A batch runs agents with --yes, so it refuses to run them unsandboxed unless told to."""
    found = probe(out_dir.resolve(), network=True)
    if not found.available:
        raise ConfigError(
            f"the agents would run without the bubblewrap sandbox ({found.reason}); install bubblewrap, or pass "
            "--no-sandbox to run them unsandboxed"
        )


def plan(tasks: list[TaskSpec], config: BatchConfig) -> tuple[list[TaskSpec], int]:
    """The tasks to run now and how many a previous run finished; a ConfigError for an output folder that
    holds results when --resume was not given (they would be mixed)."""
    done = finished_ids(config.out_dir)
    if done and not config.resume:
        raise ConfigError(
            f"{config.out_dir} already holds results of {len(done)} task(s); pass --resume to finish that batch, or "
            "choose another --out"
        )
    todo = [task for task in tasks if task.id not in done]
    return todo, len(tasks) - len(todo)


def run_batch(
    tasks: list[TaskSpec], config: BatchConfig, stop: threading.Event,
    on_change: Callable[[BatchProgress], None] = lambda _progress: None,
) -> BatchOutcome:  # fmt: skip
    """Run what is left of the batch; Ctrl-C (`stop`) ends it early with the summary written all the same."""
    config.out_dir.mkdir(parents=True, exist_ok=True)
    if config.sandbox:
        check_sandbox(config.out_dir)
    todo, skipped = plan(tasks, config)
    results = ResultsFile(config.out_dir)
    progress = BatchProgress(total=len(tasks), skipped=skipped, done=skipped)

    def started(_task_id: str) -> None:
        with progress.lock:
            progress.running += 1
        on_change(progress)

    def finished(result: dict[str, Any]) -> None:
        cancelled = result.get("status") == "cancelled"
        if not cancelled:  # a cancelled task has no result line, so --resume runs it again
            results.append(result)
        with progress.lock:
            progress.running -= 1
            progress.cancelled += cancelled
            progress.done += not cancelled
            progress.failed += result.get("outcome") in ("failed", "errored") and not cancelled
            progress.cost_usd += float(result.get("cost_usd") or 0.0)
        on_change(progress)

    job = ExecutorJob(todo, config.out_dir.resolve(), max(1, config.workers), config.sandbox, config.settings, stop,
                      started, finished)  # fmt: skip
    on_change(progress)
    if config.executor == "ray":
        from sneakycode.batch.executors.ray import run_ray

        counters = run_ray(job, config.ray_address)
    else:
        from sneakycode.batch.executors.local import run_local

        counters = run_local(job)
    ids = {task.id for task in tasks}
    lines = [result for result in read_results(config.out_dir) if result["id"] in ids]
    not_started = len(tasks) - len({r["id"] for r in lines}) - progress.cancelled
    summary = summarise(lines, cancelled=progress.cancelled, not_started=max(0, not_started))
    summary["rate_limit"] = counters
    return BatchOutcome(summary, counters, write_summary(config.out_dir, summary))
