"""`sneakycode -p TASK` (or `-p -` to read the task from stdin): one run, no questions asked.

Without --yes a call that would need approval is denied, and both the model and the user are told how to
allow it (the flag, or an allow rule). Output: `text` prints the final message; `json` prints one object
(result, success, status, turns, tool_calls, usage, session_id, files_changed); `stream-json` prints one
JSON event per line as the run goes and a `final` event with the same fields. Progress, denials and
errors go to stderr. Exit codes: 0 finished, 1 error, 2 usage or configuration error, 3 turn limit,
130 interrupted (SIGINT; a second SIGINT stops at once).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from sneakycode.agent.events import Event
from sneakycode.cli.main import ExitCode
from sneakycode.cli.startup import cancel_on_sigint, settings_from_args
from sneakycode.cli.text import printable
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError, SneakyError, ToolError

if TYPE_CHECKING:
    from sneakycode.tools.base import ImagePart

EXIT_BY_STATUS = {
    "finished": ExitCode.OK,
    "answered": ExitCode.OK,
    "error": ExitCode.FAILURE,
    "turn_limit": ExitCode.TURN_LIMIT,
    "cancelled": ExitCode.INTERRUPTED,
}
STREAMED_EVENTS = frozenset(
    {"assistant", "reasoning", "tool_call", "permission", "tool_result", "usage", "tasks", "notice"}
)


class ApproveAll:
    """--yes: every `ask` is approved (deny rules and plan mode still deny before anyone is asked)."""

    def approve(self, tool_name: str, arguments: dict[str, Any], reason: str) -> bool:
        return True


class HeadlessSink:
    """Writes events: stream-json lines to stdout; denials and notices (all of it with --verbose) to stderr."""

    def __init__(self, output_format: str, verbose: bool, out: TextIO, err: TextIO) -> None:
        self.stream = output_format == "stream-json"
        self.verbose = verbose
        self.out = out
        self.err = err

    def emit(self, event: Event) -> None:
        if self.stream and event["type"] in STREAMED_EVENTS:
            self.line(dict(event))
        message = self.describe(event)
        if message:
            print(f"sneakycode: {printable(message)}", file=self.err, flush=True)

    def line(self, event: Mapping[str, Any]) -> None:
        self.out.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.out.flush()

    def describe(self, event: Event) -> str:
        if event["type"] == "permission" and event["outcome"] == "denied":
            how = event.get("how_to_allow")
            return f"denied {event['name']}: {event['reason']}" + (f"\n{how}" if how else "")
        if event["type"] == "notice":
            return event["message"]
        if not self.verbose:
            return ""
        if event["type"] == "tool_call":
            return f"-> {event['name']} {event['arguments']}"
        if event["type"] == "tool_result":
            first = event["content"].splitlines()[0] if event["content"] else ""
            return f"<- {event['name']} {'ok' if event['success'] else 'failed'}: {first[:200]}"
        if event["type"] == "usage":
            return f"tokens: {event['prompt_tokens']} in, {event['completion_tokens']} out"
        if event["type"] in ("assistant", "reasoning") and event["text"]:
            return f"{event['type']}: {event['text'][:500]}"
        return ""


def run_headless(args: argparse.Namespace) -> int:
    try:
        task = _read_task(args.prompt)
        loaded = settings_from_args(args)
    except ConfigError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    return _run(args, task, loaded)


def _read_task(prompt: str) -> str:
    task = sys.stdin.read() if prompt == "-" else prompt
    if not task.strip():
        raise ConfigError("the task is empty: give it as -p 'TASK', or pipe it in with -p -")
    return task


def _run(args: argparse.Namespace, task: str, loaded: LoadedSettings) -> int:
    from sneakycode.cli.startup import prepare_run
    from sneakycode.session.journal import Journal

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
        session.transcript.close()
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if sink.stream:
        sink.line({"type": "start", "session_id": ctx.session_id, "resumed": session.saved is not None,
                   "workspace": str(ctx.workspace.root), "provider": config.provider, "model": config.model})
    journal = Journal(ctx.session_dir)
    changes_before = len(journal.entries())
    try:
        with cancel_on_sigint(agent.cancel.set):
            result = agent.run_turn(task, images)
    except SneakyError as exc:
        print(f"sneakycode: {exc}", file=sys.stderr)
        return ExitCode.FAILURE
    except KeyboardInterrupt:
        print("sneakycode: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    finally:
        session.transcript.close()
    changed = list(dict.fromkeys(ctx.workspace.display(e.path) for e in journal.entries()[changes_before:]))
    summary = {
        "result": result.message,
        "success": result.status in ("finished", "answered"),
        "status": result.status,
        "turns": result.turns,
        "tool_calls": result.tool_calls,
        "usage": {
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
            "total_tokens": result.prompt_tokens + result.completion_tokens,
            "estimated": result.usage_estimated,
        },
        "session_id": ctx.session_id,
        "files_changed": changed,
    }
    _report(args.output_format, sink, summary)
    return EXIT_BY_STATUS[result.status]


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
        raise ConfigError(f"--image: {err.error}") from None


def _debug_log(line: str) -> None:
    print(f"sneakycode: {line}", file=sys.stderr, flush=True)


def _report(output_format: str, sink: HeadlessSink, summary: dict[str, Any]) -> None:
    status = summary["status"]
    if output_format == "json":
        sink.line(summary)
    elif output_format == "stream-json":
        sink.line({"type": "final", **summary})
    elif summary["success"]:
        print(printable(summary["result"]), flush=True)
    if status == "turn_limit":
        print(
            f"sneakycode: {summary['result']} Continue with `sneakycode -p TASK --continue` "
            "or allow more with --max-turns N (max_turns in the config).",
            file=sys.stderr,
        )
    elif status == "error":
        print(f"sneakycode: {summary['result']}", file=sys.stderr)
    elif status == "cancelled":
        print(f"sneakycode: interrupted. {summary['result']} Resume with --resume {summary['session_id']}.",
              file=sys.stderr)
