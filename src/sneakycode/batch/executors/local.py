"""The local executor: N threads in this process, each driving one task's subprocesses at a time.

Threads, not processes: a task's work happens in its subprocesses (git, setup, the agent, test), so a
worker thread only waits on pipes; they share the one rate limiter and proxy without any IPC.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from sneakycode.batch.executors.common import ExecutorJob
from sneakycode.batch.proxy import ModelProxy
from sneakycode.batch.ratelimit import RateLimiter
from sneakycode.batch.runner import RunOptions, run_task
from sneakycode.batch.spec import TaskSpec


def run_local(job: ExecutorJob) -> dict[str, Any]:
    """Run the job's tasks, `job.workers` at a time; returns the rate limiter's and proxy's counters."""
    limiter = RateLimiter(job.settings.requests_per_minute, job.settings.tokens_per_minute)
    with ModelProxy(limiter) as proxy:
        options = RunOptions(job.out_dir, job.sandbox, job.settings.task_timeout, proxy.route)

        def one(task: TaskSpec) -> dict[str, Any] | None:
            if job.stop.is_set():
                return None  # Ctrl-C came before this task started: it stays for --resume
            job.on_start(task.id)
            return run_task(task, options, job.stop)

        with ThreadPoolExecutor(max_workers=job.workers, thread_name_prefix="batch-worker") as pool:
            pending: set[Future[dict[str, Any] | None]] = {pool.submit(one, task) for task in job.tasks}
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    if result is not None:
                        job.on_result(result)
        return {**limiter.stats(), **proxy.counters}
