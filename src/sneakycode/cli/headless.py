"""`sneakycode -p TASK` (or `-p -` to read the task from stdin): one run, no questions asked.

Without --yes a call that would need approval is denied, and both the model and the user are told how to
allow it (the flag, or an allow rule). Nothing reads stdin unless `-p -` or `--input-format stream-json`
asked for it, so a run never waits for a person, terminal attached or not. Output: `text` prints the final
message; `json` prints one object (see docs/headless.md); `stream-json` prints one JSON event per line as
the run goes (schema: cli/stream_schema.json) and a `final` event with the same fields as `json`. With
`--input-format stream-json` each JSON line on stdin is one user message of the same session. Budgets
(`--max-turns`, `--max-tokens`, `--max-cost`, `--timeout`) end a run cleanly with exit code 3. Exit codes:
0 finished, 1 error, 2 usage or configuration error, 3 a budget ran out, 130 interrupted (SIGINT; a second
SIGINT stops at once). Every job is killed when the run ends.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sneakycode.cli.headless_output import STREAM_SCHEMA_VERSION, HeadlessSink, report, summarise
from sneakycode.cli.main import ExitCode
from sneakycode.cli.startup import cancel_on_sigint, settings_from_args
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError, SneakyError, ToolError

if TYPE_CHECKING:
    from sneakycode.tools.base import ImagePart

if TYPE_CHECKING:
    from sneakycode.agent.loop import RunResult

EXIT_BY_STATUS = {
    "finished": ExitCode.OK,
    "answered": ExitCode.OK,
    "error": ExitCode.FAILURE,
    "turn_limit": ExitCode.BUDGET,
    "budget": ExitCode.BUDGET,
    "cancelled": ExitCode.INTERRUPTED,
}
STOPPING = ("budget", "cancelled", "error")


class ApproveAll:
    """--yes: every `ask` is approved (deny rules and plan mode still deny before anyone is asked)."""

    def approve(self, tool_name: str, arguments: dict[str, Any], reason: str) -> bool:
        return True


def run_headless(args: argparse.Namespace) -> int:
    streamed_input = args.input_format == "stream-json"
    try:
        _check_budgets(args)  # before the settings, so the message names the flag
        task = _read_task(args.prompt or "", streamed_input)
        loaded = settings_from_args(args)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    return _run(args, task, loaded)


def _read_task(prompt: str, streamed_input: bool) -> str:
    """The task from -p; with --input-format stream-json it may be empty (the messages come on stdin)."""
    if prompt == "-" and streamed_input:
        raise ConfigError("-p - and --input-format stream-json both read stdin; give the task on stdin as JSON")
    task = sys.stdin.read() if prompt == "-" else prompt
    if not task.strip() and not streamed_input:
        raise ConfigError("the task is empty: give it as -p 'TASK', or pipe it in with -p -")
    return task


def _check_budgets(args: argparse.Namespace) -> None:
    for flag, value in (("--max-tokens", args.max_tokens), ("--max-cost", args.max_cost), ("--timeout", args.timeout)):
        if value is not None and value <= 0:
            raise ConfigError(f"{flag} must be above 0, got {value}")


def user_messages(lines: TextIO, err: TextIO) -> Iterator[str]:
    """User messages from JSON lines, the Claude Code convention: {"type": "user", "message": {"role":
    "user", "content": "..." or [{"type": "text", "text": "..."}]}}. A line that is not one is reported on
    stderr and skipped, so one bad line does not end a session a program drives."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            message = data["message"] if data.get("type") == "user" else None
            content = message["content"] if isinstance(message, dict) else None
        except (ValueError, KeyError, TypeError, AttributeError):
            content = None
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        if not isinstance(content, str) or not content.strip():
            print(f'sneakycode: stdin line {number} is not a user message ({{"type": "user", "message": '
                  '{"role": "user", "content": "..."}}); skipped', file=err, flush=True)
            continue
        yield content


def _run(args: argparse.Namespace, task: str, loaded: LoadedSettings) -> int:
    from sneakycode.cli.invocations import expand, in_effect, parse_slash, with_resources
    from sneakycode.cli.startup import prepare_run
    from sneakycode.session.changes import ChangeTracker

    sink = HeadlessSink(args.output_format, args.verbose, sys.stdout, sys.stderr)
    approver = ApproveAll() if args.yes else None
    try:
        run = prepare_run(args, loaded, sink, lambda _ctx: approver, _debug_log if args.verbose else None)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    config, session, agent = run.config, run.session, run.agent
    ctx = session.ctx
    try:
        images = _attached_images(args.image, config.supports_images, config.model)
    except ConfigError as exc:
        ctx.close()
        run.close()
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    invocation = None
    if parse_slash(task) is not None:  # `/review src/app.py`: a custom command or skill, expanded first
        try:
            invocation = expand(run, task)
        except ConfigError as exc:
            ctx.close()
            run.close()
            print(f"sneakycode: {exc}", file=sys.stderr)
            return ExitCode.USAGE
        for notice in invocation.notices:
            sink.emit({"type": "notice", "message": notice})
        task = invocation.prompt
    task, resource_images = with_resources(run, task, lambda notice: sink.emit({"type": "notice", "message": notice}))
    images += resource_images
    if sink.stream:
        sink.line({"type": "start", "schema": STREAM_SCHEMA_VERSION, "session_id": ctx.session_id,
                   "resumed": session.saved is not None, "workspace": str(ctx.workspace.root),
                   "provider": config.provider, "model": config.model})
    changes = ChangeTracker(ctx.session_dir, ctx.workspace.root)
    tasks = [task] if task.strip() else []
    messages = user_messages(sys.stdin, sys.stderr) if args.input_format == "stream-json" else iter(())
    result: RunResult | None = None
    code = ExitCode.OK
    try:
        invoked = in_effect(run, invocation) if invocation else nullcontext()
        with cancel_on_sigint(agent.cancel.set, sigterm=True), invoked:
            agent.start_session("resume" if session.saved else "startup")
            attach = images  # --image and resource images go with the first message only
            for request in _chain(tasks, messages):
                result = agent.run_turn(request, attach)
                attach = []
                code = EXIT_BY_STATUS[result.status]
                if result.status in STOPPING:
                    break
                if args.input_format == "stream-json":  # one `final` per message; the last one is printed below
                    sink.line({"type": "final", **summarise(result, agent, ctx, sink, changes, ctx.jobs.jobs)})
    except SneakyError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.FAILURE
    except KeyboardInterrupt:
        print("sneakycode: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    finally:
        killed = ctx.close()
        run.close()
    if result is None:
        print("sneakycode: no user message arrived on stdin", file=sys.stderr)
        return ExitCode.USAGE
    if args.input_format != "stream-json" or result.status in STOPPING:
        summary = summarise(result, agent, ctx, sink, changes, ctx.jobs.jobs)
        report(args.output_format, sink, summary, killed)
    return code


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    yield from rest


def _attached_images(paths: list[str], supported: bool, model: str) -> list[ImagePart]:
    """The --image files, scaled for the model; a ConfigError when one cannot be read or the model takes none."""
    if not paths:
        return []
    if not supported:
        raise ConfigError(
            f"--image needs a model that accepts images, and {model} is not known to (set supports_images = true "
            "if it does, or choose a vision model with --model)"
        )
    from sneakycode.tools.images import load_image_file

    try:
        return [load_image_file(Path(path)) for path in paths]
    except ToolError as err:
        raise ConfigError(f"--image: [{err.code}] {err.error}") from None


def _debug_log(line: str) -> None:
    print(f"sneakycode: {line}", file=sys.stderr, flush=True)
