"""Long-running helper servers SneakyCode talks to over stdin and stdout (MCP stdio servers).

Unlike a command, a server lives as long as the session, so it is started on the caller's event loop
(asyncio, through anyio) rather than by `supervise`. It still runs in a session of its own, with only the
environment it is given, its stderr going to a log file; it is registered with the reaper, which would
otherwise take a child in another session for something a command left behind, and with the watchdog,
which ends its group should SneakyCode die without stopping it (SIGKILL); and it is stopped the way the MCP
specification asks: stdin closed, a grace period, then SIGTERM and SIGKILL to its whole group.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO

import anyio
from anyio.abc import Process

from sneakycode.process import reaper
from sneakycode.process.group_watch import shared_watchdog

# Variables a server gets from SneakyCode's own environment; anything else it needs is configured by name.
INHERITED_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
EXIT_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
_POLL_SECONDS = 0.01


def server_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The few variables every program needs, plus the server's configured ones: never the user's keys."""
    inherited = {name: os.environ[name] for name in INHERITED_VARIABLES if name in os.environ}
    return {**inherited, **extra}


async def start_server(argv: Sequence[str], env: Mapping[str, str], cwd: Path, stderr: IO[bytes]) -> Process:
    """Start `argv` with pipes for stdin and stdout, in a session of its own; an OSError when it cannot run."""
    process = await anyio.open_process(
        list(argv), env=dict(env), cwd=cwd, stderr=stderr, start_new_session=True
    )
    # Servers start when the session does, before any command runs, so no sweep can come in between.
    reaper.register(process.pid)
    shared_watchdog().watch(process.pid)  # its own session, so its pid is its group's id
    return process


async def stop_server(process: Process, *, graceful: bool = True) -> None:
    """Close stdin, wait for the server to exit, then end its whole process group; never raises. Without
    `graceful` (a server that never answered) the group is ended at once."""
    try:
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        if not await _exited(process, EXIT_GRACE_SECONDS if graceful else 0.0):
            await _end_group(process)
            await _exited(process, KILL_GRACE_SECONDS)
        if process.returncode is not None:
            # Closes our ends of its pipes, and so the loop's transport for it; a pipe left open (a server killed
            # while writing a reply nobody reads any more) would be closed by the garbage collector after the
            # loop is gone: "Exception ignored ... Event loop is closed" on the user's terminal. It has exited,
            # so this does not wait.
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.aclose()
        else:  # it survived SIGKILL (uninterruptible): aclose() would wait for it, so only the streams are closed
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                        await stream.aclose()
    finally:
        shared_watchdog().forget(process.pid)
        reaper.finished(process.pid)


async def _exited(process: Process | asyncio.subprocess.Process, timeout: float) -> bool:
    # Polling returncode rather than process.wait(): wait() also waits for the pipes to close, and a child the
    # server left holding them would make an exited server look hung.
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(_POLL_SECONDS)
        return True
    return False


async def start_stream_server(
    argv: Sequence[str], env: Mapping[str, str], cwd: Path, stderr: IO[bytes]
) -> asyncio.subprocess.Process:
    """`start_server` for a client that reads and writes asyncio streams (pygls's language client): the same
    session of its own, environment, stderr log, reaper and watchdog; an OSError when it cannot run."""
    # Started in mid-session, while commands may end and sweep: no sweep may see it before it is registered.
    with reaper.starting() as register:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=stderr, env=dict(env),
            cwd=cwd, start_new_session=True,
        )
        register(process.pid)
    shared_watchdog().watch(process.pid)
    return process


async def _end_group(process: Process | asyncio.subprocess.Process) -> None:
    """SIGTERM, then SIGKILL after a grace period, to the process's whole group, by the MCP SDK's helper.

    Imported here, not at the top: the language servers' client imports this module too, and the SDK's import
    (hundreds of milliseconds) is paid only once a server is being stopped."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    await terminate_posix_process_tree(process, KILL_GRACE_SECONDS)  # type: ignore[arg-type]


async def stop_stream_server(process: asyncio.subprocess.Process, *, grace: float = EXIT_GRACE_SECONDS) -> None:
    """`stop_server` for a process of `start_stream_server`: stdin closed, `grace` seconds to exit, then SIGTERM
    and SIGKILL to its whole group; never raises."""
    try:
        if process.stdin is not None:
            with suppress(OSError, RuntimeError):
                process.stdin.close()
        if not await _exited(process, grace):
            await _end_group(process)
            await _exited(process, KILL_GRACE_SECONDS)
        if process.returncode is not None:
            # Lets the loop close its pipe transports now, not in the garbage collector after the loop is gone.
            with suppress(asyncio.TimeoutError, OSError):
                await asyncio.wait_for(process.wait(), KILL_GRACE_SECONDS)
    finally:
        shared_watchdog().forget(process.pid)
        reaper.finished(process.pid)
