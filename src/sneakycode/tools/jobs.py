"""job: read, wait on and kill the background jobs run_command(background=true) started in this session.

Reading is auto-approved: it shows output of a command that was already allowed to run. Killing is decided
as the job's own command line would be (see `decided_as`): whoever may run `npm run dev` may stop it, and a
deny or ask rule on that command applies to ending it too. A job's output is its ring buffer (see
process/jobs.py): a read returns what arrived since the last read, at most `MAX_READ_BYTES`, newest kept.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools import shell  # the module, not its tool: the registry takes every Tool a module holds
from sneakycode.tools.base import Tier, Tool, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.shell import job_report

if TYPE_CHECKING:
    from sneakycode.process.jobs import Job

MAX_READ_BYTES = 16_384
DEFAULT_PATTERN_WAIT = 30


class JobArgs(ToolArgs):
    job_id: int
    action: Literal["output", "kill"] = "output"
    since: int | None = Field(None, description="byte offset")
    wait_seconds: int = 0
    pattern: str | None = Field(None, description="regex")


def decided_as(arguments: dict[str, Any], ctx: ToolContext) -> tuple[Tool, dict[str, Any]] | None:
    """A kill is decided as running the job's command again would be; reading needs nothing more."""
    if arguments.get("action") != "kill":
        return None
    job = ctx.jobs.get(arguments.get("job_id", -1)) if isinstance(arguments.get("job_id"), int) else None
    return (shell.run_command, {"command": job.command}) if job is not None else None


@tool(
    name="job",
    claude_names=("BashOutput", "KillShell", "KillBash"),
    tier=Tier.AUTO,
    decided_as=decided_as,
    example={"job_id": 1, "pattern": "listening on .*:(\\d+)", "wait_seconds": 20},
    guidance="Start servers and watchers with run_command background=true; read or stop them with job.",
)
def job(args: JobArgs, ctx: ToolContext) -> ToolResult:
    """A background job's new output and status, after waiting up to wait_seconds (30 with pattern) for
    output, exit or a match of pattern. action=kill ends it."""
    found = ctx.jobs.get(args.job_id)
    if found is None:
        listed = ", ".join(f"{j.id} ({j.status}: {j.command[:40]})" for j in ctx.jobs.jobs.values()) or "none"
        detail = f"This session's jobs: {listed}"
        raise ToolError(ErrorCode.NO_SUCH_JOB, f"there is no job {args.job_id}", detail=detail)
    max_wait = ctx.settings.tools.shell.max_timeout
    wait = args.wait_seconds or (DEFAULT_PATTERN_WAIT if args.pattern else 0)
    if not 0 <= wait <= max_wait:
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"wait_seconds must be between 0 and {max_wait}, got {wait}")
    limit = min(MAX_READ_BYTES, max(ctx.output_limit - 1024, 256))
    if args.action == "kill":
        was_running = found.running
        ctx.jobs.kill(found)
        note = "it had already ended" if not was_running else "its process group was ended"
        return job_report(found, ctx, limit, since=args.since, notes=[note])
    if args.pattern is not None:
        return _wait_for_pattern(found, args, ctx, wait, limit)
    if wait:
        start = found.total if args.since is None and found.read_to >= found.total else -1
        found.wait(lambda: found.total > start or not found.running, time.monotonic() + wait, ctx.cancel)
    return job_report(found, ctx, limit, since=args.since)


def _wait_for_pattern(found: Job, args: JobArgs, ctx: ToolContext, wait: int, limit: int) -> ToolResult:
    """Wait until the output from `since` (default: the start of what is kept) has a line matching."""
    import re2  # the RE2 binding loads with the first wait on a pattern, not with the tools (issue 42)

    options = re2.Options()
    options.log_errors = False  # reported to the model as invalid_pattern, not on stderr
    try:
        regex = re2.compile(args.pattern or "", options)  # RE2: linear time whatever the model writes
    except re2.error as exc:
        raise ToolError(ErrorCode.INVALID_PATTERN, f"pattern is not a valid regular expression: {exc}") from None
    scanned = [args.since or 0]
    matched: list[Any] = []

    def seen() -> bool:
        kept, first = found.retained()
        begin = max(scanned[0], first)
        text = kept[begin - first :]
        cut = text.rfind(b"\n") + 1 if found.running else len(text)  # only whole lines, until the job ended
        for line in text[:cut].decode("utf-8", errors="replace").splitlines():
            hit = regex.search(line)
            if hit is not None:
                matched.append((line, hit))
                return True
        scanned[0] = begin + cut
        return not found.running

    found.wait(seen, time.monotonic() + wait, ctx.cancel)
    # A miss shows everything that was searched, a match only what is new since the last read.
    report = job_report(found, ctx, limit, since=args.since if matched else args.since or 0)
    if matched:
        line, hit = matched[0]
        report.data.update(matched=True, line=line, groups=list(hit.groups()))
        groups = f" groups {list(hit.groups())}" if hit.groups() else ""
        report.message = f"pattern matched: {line.strip()[:300]!r}{groups}. {report.message}"
        return report
    why = "the job ended" if not found.running else f"{wait} s passed"
    return ToolResult.fail(
        ErrorCode.PATTERN_NOT_SEEN, f"no output line matched {args.pattern!r} before {why}",
        detail=f"{report.message}\n{report.content}", hint="Read the output above: the job may have failed or "
        "print something else; wait longer or change the pattern.", **report.data,
    )  # fmt: skip
