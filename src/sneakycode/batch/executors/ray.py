"""The Ray executor (`pip install 'sneakycode[ray]'`): each task is a Ray task reserving `batch.num_cpus`,
the rate limiter is one Ray actor, and results come back as tasks finish.

`ray.init()` joins the cluster at `--ray-address` (or RAY_ADDRESS), else starts a local Ray. On a cluster,
every node needs sneakycode installed, and a task's `repo` must be a git URL (cloned on the worker) or a
path on a filesystem every node shares, like the output folder.

Each Ray task runs its own model proxy (see proxy.py) in the worker process, which books slots with the
actor, so the limiter is shared cluster-wide while requests go straight from the worker to the provider.

A local Ray listens on every address of the machine (its design) and runs whatever code a client sends
(CVE-2023-48022), so it is started only with Ray's token authentication: Ray 2.59 or later turns it on for a
local start, and the token is a fresh secret of this batch, given to Ray's processes in their environment
(not ~/.ray/auth_token, which outlives the batch). A cluster joined with --ray-address is its owner's to
secure.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
from pathlib import Path
from typing import Any

from sneakycode.batch.executors.common import ExecutorJob
from sneakycode.batch.proxy import ModelProxy
from sneakycode.batch.ratelimit import RateLimiter
from sneakycode.batch.runner import RunOptions, run_task
from sneakycode.batch.spec import TaskSpec
from sneakycode.errors import ConfigError

POLL_SECONDS = 0.2
TOKEN_AUTH_SINCE = (2, 59)  # the first Ray that turns token authentication on for a local ray.init()


class _ActorLimiter:
    """The proxy's Limiter, answered by the RateLimiter actor."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    def reserve(self, tokens: int) -> float:
        import ray

        return float(ray.get(self.actor.reserve.remote(tokens)))

    def observe(self, status: int, headers: dict[str, str]) -> float | None:
        import ray

        if status == 429 or any(name.startswith("x-ratelimit-remaining") for name in headers):
            paused = ray.get(self.actor.observe.remote(status, headers))
            return None if paused is None else float(paused)
        return None


def _ray_entry(task_data: dict[str, Any], out_dir: str, sandbox: bool, timeout: float, actor: Any) -> dict[str, Any]:
    """A Ray task's body. The task runs in a thread so that `ray.cancel` (a KeyboardInterrupt in this main
    thread) becomes a clean cancel of the agent rather than a kill."""
    task = TaskSpec.model_validate(task_data)
    cancel = threading.Event()
    box: list[dict[str, Any]] = []
    with ModelProxy(_ActorLimiter(actor)) as proxy:
        options = RunOptions(Path(out_dir), sandbox, timeout, proxy.route)
        worker = threading.Thread(target=lambda: box.append(run_task(task, options, cancel)), daemon=True)
        worker.start()
        while worker.is_alive():
            try:
                worker.join(POLL_SECONDS)
            except KeyboardInterrupt:
                cancel.set()
    if not box:
        return {"id": task.id, "outcome": "errored", "status": "error", "error": "the task's thread failed"}
    box[0]["ray_node"] = os.uname().nodename
    return box[0]


def start_local_ray(num_cpus: int) -> None:
    """Start a Ray on this machine that answers only clients holding this batch's token (a ConfigError when
    the installed Ray cannot, or token authentication was turned off)."""
    import ray  # the [ray] extra: only `batch --executor ray` gets here

    found = re.match(r"(\d+)\.(\d+)", ray.__version__)
    if found is None or (int(found[1]), int(found[2])) < TOKEN_AUTH_SINCE:
        raise ConfigError(
            f"--executor ray starts a local Ray only with token authentication, which Ray {ray.__version__} does "
            "not turn on by itself: pip install -U 'ray>=2.59', or join a cluster you secured with --ray-address"
        )
    if os.environ.get("RAY_AUTH_MODE", "token").lower() != "token":
        raise ConfigError(
            f"RAY_AUTH_MODE={os.environ['RAY_AUTH_MODE']} would start a local Ray that anyone who can reach this "
            "machine could run code on; unset it, or join a cluster you secured with --ray-address"
        )
    # RAY_AUTH_MODE stays unset: Ray then enables token mode itself, in this process too (set here, a Ray
    # already imported would keep its old mode and fail to reach its own servers).
    os.environ["RAY_AUTH_TOKEN"] = secrets.token_urlsafe(32)
    os.environ.pop("RAY_AUTH_TOKEN_PATH", None)
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)


def run_ray(job: ExecutorJob, address: str | None) -> dict[str, Any]:
    """Run the job's tasks on Ray, at most `job.workers` at a time; returns the limiter's counters."""
    try:
        import ray
    except ImportError:
        raise ConfigError("--executor ray needs Ray: pip install 'sneakycode[ray]'") from None
    address = address or os.environ.get("RAY_ADDRESS") or None
    cpus = job.settings.num_cpus
    if address:
        ray.init(address=address, log_to_driver=False, ignore_reinit_error=True)
    else:
        # Logical CPUs: a task mostly waits on the model, so `workers` tasks may share fewer cores.
        start_local_ray(max(1, round(job.workers * cpus)))
    try:
        actor = ray.remote(RateLimiter).options(num_cpus=0).remote(
            job.settings.requests_per_minute, job.settings.tokens_per_minute
        )
        remote = ray.remote(_ray_entry).options(num_cpus=cpus, max_retries=0)
        waiting = list(job.tasks)
        running: dict[Any, str] = {}
        cancelled = False
        while waiting or running:
            while waiting and len(running) < job.workers and not job.stop.is_set():
                task = waiting.pop(0)
                job.on_start(task.id)
                ref = remote.remote(task.model_dump(), str(job.out_dir), job.sandbox, job.settings.task_timeout, actor)
                running[ref] = task.id
            if job.stop.is_set() and not cancelled:
                cancelled = True
                waiting.clear()
                for ref in running:
                    ray.cancel(ref)
            if not running:
                break
            ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL_SECONDS)
            for ref in ready:
                task_id = running.pop(ref)
                try:
                    job.on_result(ray.get(ref))
                except (ray.exceptions.TaskCancelledError, ray.exceptions.RayTaskError) as exc:
                    if not job.stop.is_set():
                        job.on_result({"id": task_id, "outcome": "errored", "status": "error", "error": str(exc)})
        stats: Any = actor.stats
        return dict(ray.get(stats.remote()))
    finally:
        ray.shutdown()  # on a cluster: disconnects this driver; locally: stops the Ray it started
