"""`sneakycode eval`: run a suite of small coding tasks through batch and score the model (see evals/ and
docs/models.md#eval); `eval compare A B` shows two runs side by side; `eval check` proves a suite honest.

Thin: parse, load and check the suite (every problem named, nothing started), one progress line per finished
task on stderr (readable in a CI log, no terminal needed), the scorecard on stdout.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import add_flags, add_model_flags
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings
from sneakycode.faces.shared.text import loggable

USAGE = ("sneakycode eval [--suite NAME|DIR] [--tasks ID,...] [--workers N] [--out DIR] [--attempts K] ...\n"
         "       sneakycode eval --list [--suite NAME|DIR]\n"
         "       sneakycode eval compare A B\n"
         "       sneakycode eval check [--suite NAME|DIR] [--tasks ID,...]")  # fmt: skip


# Not SNEAKYCODE_*: those are settings. Ends in _API_KEY, so commands are never given it (is_credential).
EVAL_KEY_VARIABLE = "EVAL_ENDPOINT_API_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = USAGE
    parser.description = ("Measure a model on a suite of small coding tasks, each run by the agent in its own "
                          "sandboxed copy and judged by a hidden test (see docs/models.md#eval).")  # fmt: skip
    parser.add_argument("words", nargs="*", metavar="compare A B | check",
                        help="compare two runs (their --out folders or scorecard.json), or check a suite")
    parser.add_argument("--suite", default="core", metavar="NAME|DIR",
                        help="a bundled suite or a folder (default: core)")
    parser.add_argument("--tasks", metavar="ID,...", help="only these tasks")
    parser.add_argument("--list", action="store_true", help="list the suite's tasks (id, language, kind) and stop")
    parser.add_argument("--workers", type=int, default=2, metavar="N", help="tasks at once (default: 2)")
    parser.add_argument("--out", type=Path, metavar="DIR", help="default: sneakycode-eval/SUITE-TIME")
    parser.add_argument("--attempts", type=int, default=1, metavar="K", help="tries per unsolved task (default: 1)")
    add_model_flags(parser)
    add_flags(parser, "--max-turns", "--timeout", help={"--max-turns": "every task's turn budget (default: the task's)",
                                                         "--timeout": "every task's time (default: the task's)"})
    parser.add_argument("--no-sandbox", action="store_true", help="run the agents without bubblewrap")
    parser.add_argument("--from-swebench", type=Path, metavar="FILE", help="SWE-bench-style instances as the suite")
    parser.add_argument("--repos-dir", type=Path, metavar="DIR", help="local mirrors for --from-swebench")


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.startup import wipe_arguments

    wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
    words = list(args.words)
    try:
        if words[:1] == ["compare"]:
            if len(words) != 3:
                raise ConfigError("usage: sneakycode eval compare A B (two --out folders or scorecard.json files)")
            return _compare(Path(words[1]), Path(words[2]))
        if words[:1] == ["check"] and len(words) == 1:
            return _check(args)
        if words:
            raise ConfigError(f"unknown eval action {' '.join(words)!r}; usage:\n{USAGE}")
        if args.list:
            return _list(args)
        if args.api_key:
            _key_for_tasks(args.api_key)
        return _run(args)
    except ConfigError as exc:
        return config_error_exit("eval", exc)


def _task_ids(args: argparse.Namespace) -> list[str] | None:
    return [part.strip() for part in args.tasks.split(",") if part.strip()] if args.tasks else None


def _list(args: argparse.Namespace) -> int:
    from sneakycode.evals.suite import load_suite

    suite = load_suite(args.suite)
    tasks = suite.select(_task_ids(args))
    width = max((len(task.id) for task in tasks), default=2)
    print(f"{'ID':<{width}}  {'LANGUAGE':<10}  KIND")
    for task in tasks:
        print(f"{task.id:<{width}}  {task.language:<10}  {task.kind}")
    print(f"\nsuite {suite.name} {suite.version}: {len(tasks)} task(s); run some with --tasks ID,...")
    return ExitCode.OK


def _key_for_tasks(key: str) -> None:
    """--api-key: every task's agent is a process of its own, so the key goes to them as the variable the model
    key is read from (`api_key_env`); commands the agents run never see it (it is a model key variable)."""
    os.environ[EVAL_KEY_VARIABLE] = key
    os.environ["SNEAKYCODE_API_KEY_ENV"] = EVAL_KEY_VARIABLE


def _compare(a: Path, b: Path) -> int:
    from sneakycode.evals.report import compare_markdown
    from sneakycode.evals.scorecard import read_scorecard

    sys.stdout.write(compare_markdown(read_scorecard(a), read_scorecard(b), (str(a), str(b))))
    return ExitCode.OK


def _check(args: argparse.Namespace) -> int:
    from sneakycode.evals.check import CheckResult, check_tasks
    from sneakycode.evals.suite import load_suite

    suite = load_suite(args.suite)
    tasks = suite.select(_task_ids(args))

    def show(result: CheckResult) -> None:
        if result.honest:
            print(f"ok   {result.id}: the hidden test fails before and passes with the solution", flush=True)
            return
        print(f"BAD  {result.id}: " + ("passes untouched" if not result.fails_before else "fails with the solution"),
              flush=True)  # fmt: skip
        shown = loggable((result.before_output if not result.fails_before else result.after_output).strip())
        print("     " + shown.replace("\n", "\n     "), flush=True)  # the task's test output

    results = check_tasks(tasks, show)
    bad = sum(not r.honest for r in results)
    print(f"suite {suite.name} {suite.version}: {len(results) - bad} of {len(results)} task(s) honest")
    return ExitCode.OK if not bad else ExitCode.FAILURE


def _model(args: argparse.Namespace) -> dict[str, str | None]:
    """The endpoint every task's agent uses, resolved once, so the scorecard names what was measured."""
    from sneakycode.api.model_facts import resolve_endpoint

    flags = {key: value for key, value in (("provider", args.provider), ("model", args.model),
                                           ("base_url", args.base_url)) if value is not None}  # fmt: skip
    config = resolve_endpoint(workspace_settings(args.workspace, flags))
    return {"provider": config.provider, "model": config.model, "base_url": config.base_url}


def _run(args: argparse.Namespace) -> int:
    from sneakycode.evals.run import EvalConfig, EvalJob, Finished, run_eval, suite_jobs, swebench_jobs

    if args.workers < 1 or args.attempts < 1:
        raise ConfigError("--workers and --attempts must be at least 1")
    if (args.max_turns is not None and args.max_turns < 1) or (args.timeout is not None and args.timeout <= 0):
        raise ConfigError("--max-turns and --timeout must be positive")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    suite_info: dict[str, Any]
    jobs: list[EvalJob]
    settings = workspace_settings(args.workspace, notify=False).settings.batch
    if args.from_swebench is not None:
        from sneakycode.batch.spec import from_swebench

        specs = from_swebench(args.from_swebench, args.repos_dir)
        wanted = set(_task_ids(args) or [spec.id for spec in specs])
        if unknown := sorted(wanted - {spec.id for spec in specs}):
            raise ConfigError(f"--tasks: no instance {', '.join(map(repr, unknown))} in {args.from_swebench}")
        specs = [spec for spec in specs if spec.id in wanted]
        suite_info = {"name": args.from_swebench.stem, "version": "swebench", "tasks": len(specs),
                      "folder": str(args.from_swebench.resolve())}  # fmt: skip
        out = args.out or Path("sneakycode-eval") / f"{args.from_swebench.stem}-{stamp}"
        config = EvalConfig(out, _model(args), args.workers, args.attempts, not args.no_sandbox, args.max_turns,
                            args.timeout, settings)  # fmt: skip
        jobs = swebench_jobs(specs, config, args.from_swebench)
    else:
        from sneakycode.evals.suite import load_suite

        suite = load_suite(args.suite)
        tasks = suite.select(_task_ids(args))
        suite_info = {"name": suite.name, "version": suite.version, "tasks": len(suite.tasks),
                      "folder": str(suite.folder)}  # fmt: skip
        out = args.out or Path("sneakycode-eval") / f"{suite.name}-{stamp}"
        config = EvalConfig(out, _model(args), args.workers, args.attempts, not args.no_sandbox, args.max_turns,
                            args.timeout, settings)  # fmt: skip
        jobs = suite_jobs(tasks, config, suite.sandbox_hide)
    stop = threading.Event()

    def on_sigint(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print("sneakycode eval: stopping: no new task starts (Ctrl-C again: at once)", file=sys.stderr, flush=True)

    def progress(done: Finished) -> None:
        result = done.result
        verdict = "solved" if result.get("outcome") == "passed" else (
            "errored" if result.get("outcome") == "errored" else "unsolved")  # fmt: skip
        why = f", {loggable(result['error'][:120])}" if verdict == "errored" and result.get("error") else ""
        print(f"eval [{done.done}/{done.total}] {result['id']}: {verdict} (attempt {done.attempt}, "
              f"{result.get('turns', 0)} turns, {float(result.get('duration') or 0):.1f} s{why})  "
              f"solved {done.solved}", file=sys.stderr, flush=True)  # fmt: skip

    previous = signal.signal(signal.SIGINT, on_sigint)
    print(f"eval: {len(jobs)} task(s) of {suite_info['name']} {suite_info['version']} on "
          f"{config.model['model']} ({config.model['base_url']}), {args.workers} at once", file=sys.stderr, flush=True)
    try:
        outcome = run_eval(suite_info, jobs, config, stop, progress)
    except KeyboardInterrupt:
        print("sneakycode eval: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    finally:
        signal.signal(signal.SIGINT, previous)
    sys.stdout.write(outcome.md_path.read_text(encoding="utf-8"))
    print(f"scorecard: {outcome.json_path} and {outcome.md_path.name}", file=sys.stderr)
    return ExitCode.INTERRUPTED if stop.is_set() else ExitCode.OK
