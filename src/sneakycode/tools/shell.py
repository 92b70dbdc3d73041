"""run_command: a shell command in the workspace that cannot hang, flood, lie or escape.

Whether a command may run is decided before the call, by permissions.decide like every other tool; this
module only runs it. What it guarantees: the timeout is in seconds and kills the whole process group;
background processes do not outlive the command; a failing command keeps all its output and its exit
code; output the model cannot take is cut in the middle, never silently, and saved in full to the session
folder; model API keys never reach the command; and, where bubblewrap works, the command cannot write
outside the workspace.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from sneakycode.config import state_dir
from sneakycode.config.network import NetworkPolicy, effective_network
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.process.environment import command_environment, shell_argv
from sneakycode.process.protected import RepositoryGuard
from sneakycode.process.supervise import CapturedRun, HeadTailCapture, run_captured
from sneakycode.tools.activity import output_listener
from sneakycode.tools.base import Preview, Tier, ToolArgs, ToolContext, ToolResult, tool

if TYPE_CHECKING:
    from sneakycode.process.jobs import Job
    from sneakycode.process.netproxy import Denial

KILL_GRACE_SECONDS = 2.0
# The spill file is capped too: a command printing at full speed until its timeout would fill the disk.
SPILL_LIMIT_BYTES = 256 << 20
# Room within max_output_bytes for the line saying what was cut and for notes, so the registry's own
# cap (which keeps only the start) does not cut again; only output that is not UTF-8 can still reach it.
_MARKER_ROOM = 1024

# Sessions already told why `sandbox = "auto"` runs commands unsandboxed: the note is given once.
_told_no_sandbox: set[str] = set()


class RunCommandArgs(ToolArgs):
    command: str
    timeout: int | None = None
    cwd: str | None = None
    background: bool = Field(False, description="as a job")


# What a background start waits for before it returns: the job's first output, up to this much.
FIRST_OUTPUT_SECONDS = 1.0
FIRST_OUTPUT_BYTES = 2048


@tool(
    name="run_command",
    tier=Tier.CONFIRM,
    command="command",
    command_cwd="cwd",
    preview=lambda arguments: Preview(f"$ {arguments.get('command', '')}", "bash"),
    example={"command": "pytest -q tests/test_app.py", "timeout": 120},
    guidance="Run tests and commands with run_command; check results instead of assuming them.",
)
def run_command(args: RunCommandArgs, ctx: ToolContext) -> ToolResult:
    """Run a bash command in the workspace (or `cwd`), stdin closed; returns output and exit code (non-zero
    is an error). timeout is in seconds, then its processes are killed; servers and watchers need
    background=true. Long output: head and tail, full copy saved."""
    settings = ctx.settings.tools.shell
    timeout = args.timeout if args.timeout is not None else settings.default_timeout
    if not 1 <= timeout <= settings.max_timeout:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            f"timeout must be between 1 and {settings.max_timeout} seconds, got {timeout}",
            hint=f"timeout is in seconds, not milliseconds; omit it for the default of {settings.default_timeout}.",
        )
    if not args.command.strip():
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, "command is empty", hint="Give the command line to run.")
    if "\x00" in args.command:
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, "command contains a NUL byte, which no shell accepts")
    cwd = working_dir(args.cwd, ctx)
    if ctx.cancel.is_set():
        raise ToolError(ErrorCode.CANCELLED, "the turn was cancelled before the command started")
    spill_dir = ctx.session_dir / "outputs"
    argv, sandbox, notes, guard = sandboxed(shell_argv(args.command), ctx, cwd, spill_dir)
    budget = max(ctx.output_limit - _MARKER_ROOM, 256)
    key_env = [name for name in (ctx.settings.api_key_env, ctx.settings.tools.web.search.key_variable) if name]
    env = command_environment(also_remove=key_env, keep=settings.env_keep, strip=settings.env_strip)
    if args.background:
        return start_job(args, ctx, argv, cwd, env, (sandbox, notes, guard))
    mark = ctx.session.network.mark()
    try:
        run = run_captured(
            argv,
            cwd=cwd,
            env=env,
            timeout=timeout,
            cancel=ctx.cancel,
            kill_grace=KILL_GRACE_SECONDS,
            head_limit=budget // 2,
            tail_limit=budget - budget // 2,
            spill_dir=spill_dir,
            spill_limit=SPILL_LIMIT_BYTES,
            on_output=output_listener(),
        )
    except OSError as exc:
        raise ToolError(ErrorCode.IO_ERROR, f"the command could not be started: {exc}") from None
    finally:
        notes += guard.restore() if guard is not None else []
    return refused_hosts(command_result(run, timeout, sandbox, notes), ctx.session.network.denials_since(mark))


def start_job(
    args: RunCommandArgs,
    ctx: ToolContext,
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    sandboxing: tuple[str, list[str], RepositoryGuard | None],
) -> ToolResult:
    """Start the command as a job and return its id with its first output (FIRST_OUTPUT_SECONDS or _BYTES)."""
    from sneakycode.process.jobs import JobLimitReached  # with the first job, not with the tools (issue 42)

    sandbox, notes, guard = sandboxing
    limit = ctx.settings.tools.shell.max_jobs
    mark = ctx.session.network.mark()
    try:
        job = ctx.jobs.start(
            argv, command=args.command, cwd=cwd, env=env, log_dir=ctx.session_dir / "outputs", max_jobs=limit,
            on_exit=guard.restore if guard is not None else None,
        )  # fmt: skip
    except JobLimitReached as exc:
        if guard is not None:
            guard.restore()
        running = ", ".join(f"{j.id} ({j.command[:40]})" for j in ctx.jobs.running())
        raise ToolError(
            ErrorCode.JOB_LIMIT, f"the command was not started: {exc}", detail=f"Running jobs: {running}",
            hint="Kill a job you no longer need with the job tool (action kill), then start this one.",
        ) from None
    except OSError as exc:
        if guard is not None:
            guard.restore()
        raise ToolError(ErrorCode.IO_ERROR, f"the command could not be started: {exc}") from None
    if sandboxing[0] == "bwrap":
        ctx.session.network.watch_job(job.id, mark)
    deadline = time.monotonic() + FIRST_OUTPUT_SECONDS
    job.wait(lambda: job.total >= FIRST_OUTPUT_BYTES or not job.running, deadline, ctx.cancel)
    if args.timeout is not None:
        notes.append("timeout does not apply to a background job: it runs until it exits or is killed.")
    return job_report(job, ctx, FIRST_OUTPUT_BYTES, sandbox=sandbox, notes=notes)


def job_report(job: Job, ctx: ToolContext, limit: int, *, since: int | None = None, sandbox: str | None = None,
               notes: list[str] | None = None, **extra: object) -> ToolResult:
    """A job's status and its new output (the latest `limit` bytes of it) as the model sees it."""
    piece = job.read(since)
    text = piece.text
    skipped = piece.dropped
    if len(text) > limit:
        skipped += len(text) - limit
        text = text[len(text) - limit :]
    body = decode(text)
    if skipped:
        where = f"the log {job.log_path} has up to {SPILL_LIMIT_BYTES >> 20} MB" if job.log_path else "not saved"
        body = f"[... {skipped:,} earlier bytes not shown; {where} ...]\n{body}"
    if job.running:
        state = f"job {job.id} running (pid group {job.pid})"
    elif job.killed:
        state = f"job {job.id} was killed"
    else:
        ended = f"signal {job.signal}" if job.signal else f"exit code {job.exit_code}"
        state = f"job {job.id} exited with {ended}"
    message = " ".join([f"{state}; output bytes {piece.start}-{piece.end} of {job.total}.", *(notes or [])])
    data: dict[str, object] = {**job.summary(), "job_id": job.id, "since": piece.start, "next": piece.end, **extra}
    if sandbox is not None:
        data["sandbox"] = sandbox
    result = ToolResult(success=True, content=body or "(no new output)", message=message, data=data)
    return refused_hosts(result, ctx.session.network.job_denials(job.id))


def working_dir(user_cwd: str | None, ctx: ToolContext) -> Path:
    if user_cwd is None:
        return ctx.workspace.root
    real = ctx.workspace.resolve(user_cwd, must_exist=True)
    if not real.is_dir():
        raise ToolError(ErrorCode.NOT_A_DIRECTORY, f"cwd {user_cwd!r} is a file, not a folder")
    return real


def sandboxed(
    argv: list[str], ctx: ToolContext, cwd: Path, spill_dir: Path
) -> tuple[list[str], str, list[str], RepositoryGuard | None]:
    """The argv to run, the sandbox in use ("bwrap", "off" or "unavailable"), notes for the model, and the
    guard of the workspace's protected paths (to restore after the command)."""
    settings = ctx.settings.tools.shell
    if settings.sandbox == "off":
        return argv, "off", [], None
    # The sandbox's machinery is imported by the first command, not with the tools (issue 42).
    from sneakycode.process.sandbox import bwrap_argv, probe

    network = effective_network(settings)
    found = probe(ctx.workspace.root, network=network.mode == "on")
    if found.available:
        try:  # bound into the sandbox, so a saved output stays readable even when it lies under /tmp
            spill_dir.mkdir(parents=True, exist_ok=True)
            readable = [spill_dir]
        except OSError:
            readable = []
        proxy_socket = proxy_for(ctx, network) if network.mode == "allowlist" else None
        guard = RepositoryGuard.survey(ctx.workspace.root, ctx.workspace.held, ctx.workspace.extra_roots)
        wrapped = bwrap_argv(
            argv,
            bwrap=found.bwrap,
            workspace=ctx.workspace.root,
            cwd=cwd,
            network=network.mode == "on",
            readable=readable,
            # The map's shared tags too (repo_map.index_dir may lie outside the state folder): what a command
            # wrote there would reach other sessions' maps.
            hidden=[state_dir(ctx.settings), ctx.settings.repo_map.index_folder(state_dir(ctx.settings)),
                    *map(Path, settings.sandbox_hide)],
            guard=guard,
            proxy_socket=proxy_socket,
            extra_roots=ctx.workspace.extra_roots,
        )
        return wrapped, "bwrap", [], guard
    if settings.sandbox == "bwrap":
        raise ToolError(
            ErrorCode.SANDBOX_UNAVAILABLE,
            f"the command was not run: tools.shell.sandbox is 'bwrap' but {found.reason}",
        )
    if ctx.session_id in _told_no_sandbox:
        return argv, "unavailable", [], None
    _told_no_sandbox.add(ctx.session_id)
    limited = " (so their network is not limited either)" if network.mode != "on" else ""
    note = (
        f"Note: commands run without a sandbox because {found.reason}{limited}. Install bubblewrap to confine them "
        'to the workspace, or set tools.shell.sandbox = "off" to drop this note.'
    )
    return argv, "unavailable", [note], None


def proxy_for(ctx: ToolContext, network: NetworkPolicy) -> Path:
    """The socket of the session's network proxy (started on first use); a proxy that cannot start runs nothing."""
    try:
        return ctx.session.network.socket(network)
    except (OSError, RuntimeError, TimeoutError) as exc:
        raise ToolError(
            ErrorCode.SANDBOX_UNAVAILABLE, f"the command was not run: the sandbox's network proxy cannot start: {exc}",
            hint='Tell the user; tools.shell.network = "off" runs commands without any network.',
        ) from None


def command_result(run: CapturedRun, timeout: int, sandbox: str, notes: list[str]) -> ToolResult:
    ending, output = run.ending, run.output
    took = seconds(ending.duration)
    text = excerpt(output, saved_where(output)) or "(no output)"
    if ending.background_killed:
        notes.append("Processes the command left running in the background were stopped when it ended.")
    data: dict[str, Any] = {
        "exit_code": ending.exit_code,
        "signal": ending.signal_name,
        "duration": round(ending.duration, 3),
        "timed_out": ending.timed_out,
        "cancelled": ending.cancelled,
        "background_killed": ending.background_killed,
        "stderr": excerpt(run.stderr, "the output file above has all of it"),
        "output_bytes": output.total,
        "output_path": str(output.spill_path) if output.spill_path else None,
        "sandbox": sandbox,
    }
    detail = "\n\n".join([text, *notes])
    if ending.timed_out:
        error = f"the command timed out after {timeout} s and was killed with all its child processes"
        return ToolResult.fail(ErrorCode.TIMED_OUT, f"{error}; output so far:", detail=detail, **data)
    if ending.cancelled:
        error = f"the command was cancelled after {took} and killed with all its child processes"
        return ToolResult.fail(ErrorCode.CANCELLED, f"{error}; output so far:", detail=detail, **data)
    if ending.signal_name is not None:
        error = f"the command was killed by {ending.signal_name} after {took}"
        return ToolResult.fail(ErrorCode.KILLED_BY_SIGNAL, error, detail=detail, **data)
    if ending.exit_code != 0:
        error = f"the command exited with code {ending.exit_code}{shell_signal(ending.exit_code)} after {took}"
        return ToolResult.fail(ErrorCode.NONZERO_EXIT, error, detail=detail, **data)
    # Each note on its own line: glued onto "exit code 0 in 0.1 s" it read as part of the exit line.
    return ToolResult(success=True, content=text, message="\n".join([f"exit code 0 in {took}", *notes]), data=data)


def refused_hosts(result: ToolResult, denials: list[Denial]) -> ToolResult:
    """`result` with the connections the sandbox's proxy refused while it ran: a failed command fails with
    `network_denied` (the refusal is most likely why), a successful one keeps a note; both list them in data."""
    if not denials:
        return result
    shown = list(dict.fromkeys(denial.line() for denial in denials))
    listed = "; ".join(shown[:5]) + (f"; and {len(shown) - 5} more" if len(shown) > 5 else "")
    refused = f"the sandbox's network proxy refused: {listed}"
    data = {**result.data, "network_denied": [
        {"host": d.host, "port": d.port, "reason": d.reason, "setting": d.setting} for d in denials[:50]
    ]}  # fmt: skip
    if result.success:
        message = f"{result.message}\n[network_denied] {refused}"
        return ToolResult(success=True, content=result.content, message=message, data=data)
    hint = "Do not work around it; if the command needs the host, ask the user to allow it (the setting above)."
    return ToolResult(
        success=False, content=result.content, message=hint, code=ErrorCode.NETWORK_DENIED,
        error=f"{result.error}; {refused}", data=data,
    )  # fmt: skip


def excerpt(capture: HeadTailCapture, where: str) -> str:
    """The whole output, or its head and tail (cut at line breaks) around a line saying what was cut."""
    if not capture.overflowed:
        return decode(capture.head)
    head, tail = bytes(capture.head), bytes(capture.tail)
    head_end = head.rfind(b"\n") + 1
    tail_start = tail.find(b"\n") + 1
    aligned = head_end > len(head) // 2 and 0 < tail_start < len(tail) // 2
    if aligned:
        head, tail = head[:head_end], tail[tail_start:]
    cut = capture.total - len(head) - len(tail)
    first, last = head.count(b"\n") + 1, capture.newlines - tail.count(b"\n")
    lines = f", lines {first:,}-{last:,}" if aligned and last >= first else ""
    marker = f"[... {cut:,} of {capture.total:,} bytes cut here{lines}; {where} ...]"
    joiner = "" if head.endswith(b"\n") else "\n"
    return f"{decode(head)}{joiner}{marker}\n{decode(tail)}"


def saved_where(capture: HeadTailCapture) -> str:
    path = capture.spill_path
    if path is None:
        return f"the full output could not be saved: {capture.spill_error}"
    if capture.spilled < capture.total:
        saved = f"the first {capture.spilled:,} bytes are saved in {path}"
    else:
        saved = f"the full output is saved in {path}"
    if capture.spill_error:
        saved += f" ({capture.spill_error})"
    return f"{saved}; read parts of it with run_command (sed -n 'A,Bp' FILE, grep -n PATTERN FILE)"


def shell_signal(code: int | None) -> str:
    """The shell reports a child killed by signal N as exit code 128+N; say so."""
    if code is None or not 128 < code < 128 + 65:
        return ""
    try:
        name = signal.Signals(code - 128).name
    except ValueError:
        return ""
    return f" (128+{code - 128}: a process it ran was probably killed by {name})"


def decode(data: bytes | bytearray) -> str:
    return data.decode("utf-8", errors="replace")


def seconds(duration: float) -> str:
    return f"{duration:.2f} s" if duration < 10 else f"{duration:.1f} s"
