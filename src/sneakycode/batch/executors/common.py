"""What every executor is given and calls back: the tasks, how to run them, and the batch's listeners."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sneakycode.batch.spec import TaskSpec
from sneakycode.config.settings import BatchSettings


@dataclass(frozen=True)
class ExecutorJob:
    """One batch for an executor: the tasks still to run and everything they share."""

    tasks: list[TaskSpec]
    out_dir: Path
    workers: int
    sandbox: bool
    settings: BatchSettings
    stop: threading.Event
    """Set by Ctrl-C: no task starts after it, and running ones are cancelled cleanly."""
    on_start: Callable[[str], None]
    on_result: Callable[[dict[str, Any]], None]
    """Called once per task that ran, from the executor's own thread (in task completion order)."""
