"""`sneakycode -p TASK` (or `-p -` to read the task from stdin): one run, no questions asked.

Without --yes a call that would need approval is denied, and both the model and the user are told how to
allow it (the flag, or an allow rule). Nothing reads stdin unless `-p -` or `--input-format stream-json`
asked for it, so a run never waits for a person, terminal attached or not. Output: `text` prints the final
message; `json` prints one object (see docs/headless.md); `stream-json` prints one JSON event per line as
the run goes (schema: cli/stream_schema.json) and a `final` event with the same fields as `json`. With
`--input-format stream-json` each JSON line on stdin is one user message of the same session; a line that is
not one gets an `error` event (code invalid_input) and is skipped (see cli/stream_input.py). Budgets
(`--max-turns`, `--max-tokens`, `--max-cost`, `--timeout`) end a run cleanly with exit code 3. Exit codes:
0 finished, 1 error, 2 usage or configuration error, 3 a budget ran out, 4 the provider refused the key or
the model, 5 the model server stalled, 130 interrupted (SIGINT; a second SIGINT stops at once). Every job
is killed when the run ends, and a run that ends early says how to resume it (`--resume ID`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from sneakycode.api.options import Options
from sneakycode.api.vocabulary import ConfigError, PendingCall, SneakyError, Unattended
from sneakycode.faces.shared.exit_codes import ExitCode, exit_for_exception, exit_for_result
from sneakycode.faces.shared.flags import check_budgets
from sneakycode.faces.shared.headless_output import STREAM_SCHEMA_VERSION, HeadlessSink, report
from sneakycode.faces.shared.startup import cancel_on_sigint, debug_printer, options_from_args, protect_key
from sneakycode.faces.shared.stream_input import StdinUnusable, check_text, read_task, user_messages
from sneakycode.faces.shared.text import loggable

if TYPE_CHECKING:
    from sneakycode.api.result import Result

STOPPING = ("budget", "cancelled", "error")
# How a refusal for want of an approver is worded here: the command line's own way to approve.
UNATTENDED = Unattended("headless mode without --yes", "rerun with --yes (approves every call no deny rule blocks)")


class ApproveAll:
    """--yes: every `ask` is approved (deny rules and plan mode still deny before anyone is asked)."""

    def approve(self, call: PendingCall, reason: str) -> bool:
        return True


def run_headless(args: argparse.Namespace) -> int:
    streamed_input = args.input_format == "stream-json"
    try:
        # Before the settings, so the message names the flag (a turn budget of 0 is the settings' to refuse).
        check_budgets(args, "--max-tokens", "--max-cost", "--timeout")
        task = _read_task(args.prompt or "", streamed_input)
        options = options_from_args(args, debug_log=debug_printer(args.verbose))
    except ConfigError as exc:
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    if options.attempts > 1:
        return _run_attempts(args, task, options)
    return _run(args, task, options)


def _run_attempts(args: argparse.Namespace, task: str, options: Options) -> int:
    """--attempts N: N worktrees through the batch engine (batch/attempts.py); the chosen change is applied
    only with --yes. Ctrl-C or SIGTERM cancels every attempt and removes every worktree."""
    import threading

    from sneakycode.batch.attempts import run_attempts

    if args.input_format == "stream-json" or args.resume or args.continue_session:
        print("sneakycode: --attempts runs one task in fresh sessions: it takes no --input-format stream-json, "
              "--resume or --continue", file=sys.stderr)
        return ExitCode.USAGE
    stop = threading.Event()
    try:
        with cancel_on_sigint(stop.set, sigterm=True):
            result = run_attempts(options, task, workers=args.workers, executor=args.executor,
                                  confirm=lambda _found: bool(args.yes), stop=stop)
    except ConfigError as exc:
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    sink = HeadlessSink(args.output_format, args.verbose, sys.stdout, sys.stderr)
    if args.output_format == "text":
        for row in result.attempts:
            check = {True: "passed", False: "failed", None: "no check"}[row["check_passed"]]
            print(f"attempt {row['attempt']}: {row['status']}, check {check}, {row['turns']} turns, "
                  f"{row['tokens']} tokens, {row['diff_lines']} changed lines", file=sys.stderr)
    report(args.output_format, sink, result.to_dict(), [])
    return exit_for_result(result)


def _read_task(prompt: str, streamed_input: bool) -> str:
    """The task from -p; with --input-format stream-json it may be empty (the messages come on stdin)."""
    if prompt == "-" and streamed_input:
        raise ConfigError("-p - and --input-format stream-json both read stdin; give the task on stdin as JSON")
    if streamed_input and sys.stdin is None:
        raise ConfigError("--input-format stream-json reads messages from stdin, but stdin is closed")
    task = read_task(sys.stdin.buffer if sys.stdin is not None else None) if prompt == "-" else prompt
    check_text(task, "the task")
    if not task.strip() and not streamed_input:
        raise ConfigError("the task is empty: give it as -p 'TASK', or pipe it in with -p -")
    return task


def _run(args: argparse.Namespace, task: str, options: Options) -> int:
    from sneakycode.api.images import attach_images
    from sneakycode.api.session import Session

    sink = HeadlessSink(args.output_format, args.verbose, sys.stdout, sys.stderr)
    approver = ApproveAll() if args.yes else None
    try:
        session = Session(options, sink=sink, approver_for=lambda _ctx: approver, unattended=UNATTENDED)
    except ConfigError as exc:
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    sink.on_reader_gone = session.cancel
    protect_key(session.loaded)
    result: Result | None = None
    code = ExitCode.OK
    try:
        images = attach_images(session, args.image)
        if sink.stream:
            sink.line({"type": "start", "schema": STREAM_SCHEMA_VERSION, "session_id": session.session_id,
                       "resumed": session.resumed, "workspace": str(session.loaded.workspace),
                       "provider": session.config.provider, "model": session.model})
        tasks = [task] if task.strip() else []
        messages = user_messages(sys.stdin.buffer, sink.bad_input) if args.input_format == "stream-json" else iter(())
        with cancel_on_sigint(session.cancel, sigterm=True):
            session.start()
            attach = images  # --image goes with the first message only
            for request in _chain(tasks, messages):
                if sink.reader_gone:  # stdout closed before this request: nobody would read its answer
                    code = ExitCode.INTERRUPTED
                    break
                result = session.run(request, attach)
                attach = []
                code = exit_for_result(result)
                if result.status in STOPPING:
                    break
                if args.input_format == "stream-json":  # each message's result in the output format (stream-json:
                    # a `final` event); one that stops the session is reported below, with the jobs it killed
                    report(args.output_format, sink, result.to_dict(), [])
    except ConfigError as exc:  # an --image that cannot be sent, a /command that does not exist
        session.close()
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except StdinUnusable as exc:  # what was asked so far is answered; nothing more can arrive
        session.close()
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except SneakyError as exc:  # a model request outside the loop's own (compaction) failed
        session.close()
        print(f"sneakycode: {loggable(str(exc))}", file=sys.stderr)
        print(f"sneakycode: the session is saved; resume it with `sneakycode -p TASK --resume {session.session_id}`.",
              file=sys.stderr)
        return exit_for_exception(exc)
    except KeyboardInterrupt:
        session.close()
        print("sneakycode: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    killed = session.close()
    if sink.reader_gone:  # ended by the reader leaving (`| head`): quietly, like an interrupt
        return ExitCode.INTERRUPTED
    if result is None:
        print("sneakycode: no user message arrived on stdin", file=sys.stderr)
        return ExitCode.USAGE
    if args.input_format != "stream-json" or result.status in STOPPING:
        result.jobs = session.job_summaries()  # as the end of the session left them (killed)
        report(args.output_format, sink, result.to_dict(), killed)
    return ExitCode.INTERRUPTED if sink.reader_gone else code


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    yield from rest
