"""What a headless run prints: stream-json events, the JSON result, and the lines on stderr.

The stream-json events are a public contract, versioned by `STREAM_SCHEMA_VERSION` (in the `start` event)
and described by `faces/cli/stream_schema.json`; docs/headless.md explains them and a test checks
every event of a scripted run against the schema.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from sneakycode.api.errors import ErrorCode
from sneakycode.api.fanout import STREAMED_EVENTS
from sneakycode.api.workflow_text import inert_json
from sneakycode.faces.shared.stream_input import EXPECTED_LINE, BadLine
from sneakycode.faces.shared.text import loggable, plural

if TYPE_CHECKING:
    from sneakycode.api.vocabulary import Event, Job

STREAM_SCHEMA_VERSION = 1


class HeadlessSink:
    """Writes events: stream-json lines to stdout; denials and notices (all of it with --verbose) to stderr."""

    def __init__(self, output_format: str, verbose: bool, out: TextIO, err: TextIO) -> None:
        self.stream = output_format == "stream-json"
        self.verbose = verbose
        self.out = out
        self.err = err
        self.reader_gone = False
        """stdout's reader went away (`sneakycode -p ... | head`): nothing more is written to it."""
        self.on_reader_gone: Callable[[], None] | None = None
        """Called once when that happens: the headless run stops its session (nobody reads the result)."""

    def emit(self, event: Event) -> None:
        if self.stream and event["type"] in STREAMED_EVENTS:
            shown = dict(event)
            if not self.verbose:  # a bug's traceback is for diagnosis: only with --verbose
                shown.pop("traceback", None)
            self.line(shown)
        message = self.describe(event)
        if message:
            who = f"[{event['agent']}] " if "agent" in event and event["type"] != "subagent" else ""
            print(f"sneakycode: {who}{loggable(message)}", file=self.err, flush=True)

    def bad_input(self, bad: BadLine) -> None:
        """A stdin line that is not a user message: an `error` event (stream-json) and a line on stderr."""
        message = f"stdin line {bad.number} is not a user message: {bad.problem}; skipped"
        if self.stream:
            self.line({"type": "error", "code": ErrorCode.INVALID_INPUT.value, "line": bad.number, "message": message})
        print(f"sneakycode: {loggable(message)} [{ErrorCode.INVALID_INPUT.value}]. Each line must be {EXPECTED_LINE}",
              file=self.err, flush=True)

    def line(self, event: Mapping[str, Any]) -> None:
        self.write(inert_json(json.dumps(event, ensure_ascii=False)) + "\n")  # a CI log obeys `##[`

    def write(self, text: str) -> None:
        """Write to stdout; a closed pipe ends the output quietly (issue 37: `| head` ended in two BrokenPipeError
        tracebacks, the second from the loop reporting the first as its own failure)."""
        if self.reader_gone:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self._lose_reader()

    def _lose_reader(self) -> None:
        self.reader_gone = True
        try:  # stdout now writes to /dev/null, so the interpreter's last flush at exit does not raise again
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.out.fileno())
            os.close(devnull)
        except (OSError, ValueError):  # not a real descriptor (a test's StringIO)
            pass
        if self.on_reader_gone is not None:
            self.on_reader_gone()

    def describe(self, event: Event) -> str:
        if event["type"] == "permission" and event["outcome"] == "denied":
            how = event.get("how_to_allow")
            return f"denied {event['name']}: {event['reason']}" + (f"\n{how}" if how else "")
        if event["type"] == "notice":
            trace = event.get("traceback") if self.verbose else None
            return f"{event['message']}\n{trace.rstrip()}" if trace else event["message"]
        if event["type"] == "stall":  # never silently stuck: said whatever the verbosity
            return f"waiting: {event['message']}"
        if not self.verbose:
            return ""
        if event["type"] == "progress":
            last = f": {event['last_line']}" if event["last_line"] else ""
            return f"{event['name']} running for {event['elapsed']} s{last}"
        if event["type"] == "tool_call":
            return f"-> {event['name']} {event['arguments']}"
        if event["type"] == "tool_result":
            first = event["content"].splitlines()[0] if event["content"] else ""
            return f"<- {event['name']} {'ok' if event['success'] else 'failed'}: {first[:200]}"
        if event["type"] == "subagent":
            ended = f" ({event.get('status')}, {event.get('turns')} turns)" if event["phase"] == "end" else ""
            return f"subagent {event['agent']} {'started' if event['phase'] == 'start' else 'ended'}{ended}"
        if event["type"] == "usage":
            return f"tokens: {event['prompt_tokens']} in, {event['completion_tokens']} out"
        if event["type"] in ("assistant", "reasoning") and event["text"]:
            return f"{event['type']}: {event['text'][:500]}"
        return ""


def report(output_format: str, sink: HeadlessSink, summary: dict[str, Any], killed: list[Job]) -> None:
    if sink.reader_gone:  # the reader stopped the run by leaving; it asked for nothing more
        return
    status = summary["status"]
    if output_format == "json":
        sink.line(summary)
    elif output_format == "stream-json":
        sink.line({"type": "final", **summary})
    elif summary["success"]:
        structured = summary.get("structured_output")  # with --output-schema: the JSON alone, fences gone
        shown = summary["result"] if structured is None else json.dumps(structured, ensure_ascii=False)
        sink.write(loggable(shown) + "\n")
    if killed:
        listed = ", ".join(f"{job.id} ({job.command[:60]})" for job in killed)
        print(f"sneakycode: the run ended, so its running jobs were killed: {loggable(listed)}", file=sys_err(sink))
    resume = f"`sneakycode -p TASK {summary['resume']}`" if summary.get("resume") else "`sneakycode -p TASK --continue`"
    if status in ("turn_limit", "budget"):
        done = f"Done: {plural(summary['turns'], 'turn')}, {plural(summary['tool_calls'], 'tool call')}"
        changed = summary["files_changed"]
        done += f", files changed: {', '.join(changed)}." if changed else ", no files changed."
        more = ("allow more with --max-turns N (max_turns in the config)" if status == "turn_limit"
                else f"raise the {summary['budget'].replace('_', '-')} budget")
        print(loggable(f"sneakycode: {summary['result']} {done} Continue with {resume} or {more}."),
              file=sys_err(sink))
    elif status == "error":
        print(f"sneakycode: {loggable(summary['result'])}", file=sys_err(sink))
        print(loggable(f"sneakycode: the session is saved; resume it with {resume}."), file=sys_err(sink))
    elif status == "cancelled":
        print(loggable(f"sneakycode: interrupted. {summary['result']} Resume with {resume}."), file=sys_err(sink))


def sys_err(sink: HeadlessSink) -> TextIO:
    return sink.err
