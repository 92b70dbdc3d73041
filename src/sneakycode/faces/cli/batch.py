"""`sneakycode batch TASKS.jsonl --out DIR`: many headless runs, one command (see batch/ and docs/batch.md).

Thin: parse, load the tasks (every bad line is reported and nothing starts), show a progress bar, turn the
first Ctrl-C into a clean stop (no new task starts; running agents end their turn, their transcripts stay
valid; the summary is written), print the summary table. A second Ctrl-C stops at once.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings

if TYPE_CHECKING:
    from sneakycode.batch.engine import BatchConfig
    from sneakycode.batch.spec import TaskSpec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Run many tasks, each in its own copy of its repository (see docs/batch.md)."
    parser.add_argument("tasks", nargs="?", type=Path, metavar="TASKS.jsonl", help="one JSON task per line")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="results, task copies and sessions")
    parser.add_argument("--workers", type=int, default=4, metavar="N", help="tasks at once (default: 4)")
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--resume", action="store_true", help="skip the tasks DIR/results.jsonl already holds")
    parser.add_argument("--ray-address", metavar="ADDRESS", help="join this Ray cluster (default: RAY_ADDRESS)")
    parser.add_argument("--no-sandbox", action="store_true", help="run the agents without bubblewrap")
    parser.add_argument("--from-swebench", type=Path, metavar="FILE", help="tasks from SWE-bench-style instances")
    parser.add_argument("--repos-dir", type=Path, metavar="DIR", help="local mirrors for --from-swebench")


def run(args: argparse.Namespace) -> int:
    from sneakycode.batch.engine import BatchConfig
    from sneakycode.batch.spec import from_swebench, load_tasks  # lazy: `sneakycode --help` stays light

    err = Console(stderr=True)
    try:
        if args.from_swebench is not None:
            tasks = from_swebench(args.from_swebench, args.repos_dir)
        elif args.tasks is not None:
            tasks = load_tasks(args.tasks)
        else:
            raise ConfigError("give a task file (TASKS.jsonl) or --from-swebench FILE")
        if args.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {args.workers}")
        settings = workspace_settings(args.workspace).settings.batch
    except ConfigError as exc:
        return config_error_exit("batch", exc)
    config = BatchConfig(out_dir=args.out, workers=args.workers, executor=args.executor, resume=args.resume,
                         ray_address=args.ray_address, sandbox=not args.no_sandbox, settings=settings)  # fmt: skip
    return _run(tasks, config, err)


def _run(tasks: list[TaskSpec], config: BatchConfig, err: Console) -> int:
    from sneakycode.batch.engine import BatchProgress, run_batch

    stop = threading.Event()

    def on_sigint(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        err.print("sneakycode batch: stopping: no new task starts, running ones end cleanly (Ctrl-C again: at once)")

    previous = signal.signal(signal.SIGINT, on_sigint)
    bar = Progress(TextColumn("batch"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[state]}"),
                   TimeElapsedColumn(), console=err, transient=False)  # fmt: skip
    row = bar.add_task("batch", total=len(tasks), state="")

    def on_change(progress: BatchProgress) -> None:
        with progress.lock:
            state = (f"running {progress.running}  failed {progress.failed}  cost ${progress.cost_usd:.4f}"
                     + (f"  skipped {progress.skipped}" if progress.skipped else ""))  # fmt: skip
            bar.update(row, completed=progress.done, state=state)

    try:
        with bar:
            outcome = run_batch(tasks, config, stop, on_change)
    except ConfigError as exc:
        return config_error_exit("batch", exc)
    except KeyboardInterrupt:
        err.print("sneakycode batch: interrupted")
        return ExitCode.INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous)
    _print_summary(outcome.summary, outcome.summary_path, err)
    if stop.is_set():
        return ExitCode.INTERRUPTED
    return ExitCode.OK if outcome.summary["failed"] + outcome.summary["errored"] == 0 else ExitCode.FAILURE


def _print_summary(summary: dict[str, Any], path: Path, err: Console) -> None:
    table = Table(title=f"batch summary ({path})")
    for name in ("tasks", "passed", "failed", "errored", "cancelled", "not_started", "tokens", "cost_usd",
                 "duration_p50", "duration_p95"):  # fmt: skip
        table.add_column(name.replace("_", " "), justify="right")
    cost = summary["cost_usd"]
    table.add_row(*(str(summary[key]) for key in ("tasks", "passed", "failed", "errored", "cancelled", "not_started",
                                                  "tokens")),
                  "-" if cost is None else f"${cost:.4f}",
                  *(f"{summary[key]:.1f} s" if summary[key] is not None else "-"
                    for key in ("duration_p50", "duration_p95")))  # fmt: skip
    Console(file=sys.stdout, width=160).print(table)
    err.print(f"results: {path.parent / 'results.jsonl'}")
