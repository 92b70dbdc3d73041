"""Worker processes for CPU-bound work that holds the GIL (tree-sitter's parse), where threads would not help.

`run_batches` hands batches to a concurrent.futures ProcessPoolExecutor started with 'spawn' (a fresh
interpreter: never a fork of a process that has threads) and ends every worker before it returns, whether
the work is done, its deadline passed, a worker died or the caller was interrupted. What did not finish is
left out of the answer, and the caller does it (or leaves it for later) itself. (multiprocessing also
starts its resource tracker, one small process that holds no work and ends with this one.)

A spawned worker imports the caller's main script again (multiprocessing's "safe importing of main
module"): `main_is_importable` tells whether that is harmless, a script without an
`if __name__ == "__main__":` guard would run a second time in every worker.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

Batch = TypeVar("Batch")
Result = TypeVar("Result")

MAX_WORKERS = 8  # each worker holds its own interpreter and grammars (~50 MB)
STOP_POLL = 0.05  # seconds between looks at a caller's stop event
_END_SECONDS = 2.0  # how long a terminated worker may take to exit before it is killed
_GUARD = re.compile(r"""__name__\s*==\s*['"]__main__['"]""")


def usable_cpus() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def main_is_importable() -> bool:
    """Whether a spawned worker can import the main module again without running the program a second time:
    started with `-c`, interactively, as a package's `__main__`, or from a file with the usual guard."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and (spec.name == "__main__" or spec.name.endswith(".__main__")):
        return True  # multiprocessing does not import a package's __main__ in the worker
    path = getattr(spec, "origin", None) or getattr(main, "__file__", None)
    if not path:
        return True
    try:
        source = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(_GUARD.search(source))


def run_batches(
    function: Callable[[Batch], Result], batches: Sequence[Batch], workers: int, deadline: float | None,
    stop: threading.Event | None = None,
) -> tuple[dict[int, Result], bool]:
    """`function(batch)` for each batch, in `workers` processes, the earlier batches started first; stops at
    `deadline` (time.monotonic()) or when `stop` is set (checked every STOP_POLL seconds). Returns the results
    by batch number (those that finished) and whether the pool worked: False when processes could not start or
    one died, the rest of the work being the caller's."""
    results: dict[int, Result] = {}
    try:
        executor = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_ignore_interrupts)
    except (OSError, ValueError, NotImplementedError):  # no semaphores (a sandbox without /dev/shm)
        return results, False
    finished = False
    try:
        pending: dict[Future[Result], int] = {executor.submit(function, b): i for i, b in enumerate(batches)}
        while pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if stop is not None:
                if stop.is_set():
                    break
                left = STOP_POLL if left is None else min(left, STOP_POLL)
            done, _ = wait(pending, timeout=left, return_when=FIRST_COMPLETED)
            if not done and (deadline is None or time.monotonic() < deadline):
                continue  # only the poll of `stop`
            if not done:
                break  # the deadline: what is still running is ended below
            for future in done:
                results[pending.pop(future)] = future.result()
        finished = not pending
        return results, True
    except Exception:  # a worker that could not start or died (BrokenProcessPool), a result that would not pickle
        return results, False
    finally:
        _end(executor, graceful=finished)


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C reaches the whole process group, and the caller ends the workers itself; a worker
    that took it would print a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _end(executor: ProcessPoolExecutor, *, graceful: bool) -> None:
    """Shut the pool down and make sure no worker outlives it: a worker still busy (the deadline came first)
    is terminated, then killed if it does not exit."""
    # The executor keeps its processes in a private dict (Python 3.14 adds terminate_workers() for this);
    # it is read before shutdown, which drops it.
    processes: list[Any] = list((getattr(executor, "_processes", None) or {}).values())
    if graceful:
        executor.shutdown(wait=True)
    else:
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with suppress(Exception):
                process.terminate()
    for process in processes:
        with suppress(Exception):
            process.join(_END_SECONDS)
            if process.is_alive():
                process.kill()
                process.join(_END_SECONDS)

