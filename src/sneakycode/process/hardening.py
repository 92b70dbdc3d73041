"""What SneakyCode does to its own process at start-up, so the commands it runs cannot turn it against the
user: read its API keys, or leave processes running after it.

A command run without the sandbox is the user's own uid, and stripping keys from its environment is not
enough: `/proc/PPID/environ` shows the environment SneakyCode was started with, and `/proc/PPID/cmdline` an
`--api-key` flag. Three layers, because they hold against different readers:

- `PR_SET_DUMPABLE` 0 makes `/proc/PID/environ`, `mem`, `maps` and ptrace refuse any process without
  CAP_SYS_PTRACE: a non-root command cannot read SneakyCode's environment or memory at all. Root with that
  capability still can, so:
- credential variables leave `os.environ` (the C environment every child inherits; see
  `environment.hold_variables`), and their values are overwritten in the block `/proc/PID/environ` reads,
  as are `--api-key` values in the block `/proc/PID/cmdline` reads. Even root then finds no key there,
  though root can still read SneakyCode's memory, where the key must live for the model client.
- `PR_SET_CHILD_SUBREAPER` makes processes a command detached with `setsid` or a double fork our children
  when their parent exits, instead of init's, so `reaper` can end them (see there).

Children are not affected: `execve` makes a process dumpable again.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass

from sneakycode.process import reaper
from sneakycode.process.environment import hold_variables

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
# In /proc/PID/stat, counted from the state field (field 3): arg_start, arg_end, env_start, env_end.
_ARG_START, _ARG_END, _ENV_START, _ENV_END = 45, 46, 47, 48


@dataclass(frozen=True)
class Hardening:
    """What took effect (each step is best effort: a platform or kernel may refuse one)."""

    not_dumpable: bool
    subreaper: bool
    held: tuple[str, ...]  # variables moved out of the process environment
    wiped: bool  # their values no longer appear in /proc/self/environ


def harden_process() -> Hardening:
    """Apply every start-up protection; safe to call more than once."""
    if not sys.platform.startswith("linux"):
        return Hardening(False, False, (), False)
    held = hold_variables()
    wiped = wipe_environment_values(held)
    not_dumpable = prctl(PR_SET_DUMPABLE, 0) == 0 and prctl(PR_GET_DUMPABLE, 0) == 0
    subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0
    if subreaper:
        reaper.enable()
    return Hardening(not_dumpable, subreaper, tuple(sorted(held)), wiped)


def protect_variables(names: Iterable[str]) -> bool:
    """Hold and wipe more variables once settings name them (a custom `api_key_env`)."""
    held = hold_variables(names, patterns=())
    return wipe_environment_values(held) if held and sys.platform.startswith("linux") else True


def wipe_environment_values(values: dict[str, str]) -> bool:
    """Overwrite `NAME=VALUE` entries of the start-up environment block whose name is in `values`; True when
    none of them is left in /proc/self/environ."""
    if not values:
        return True
    block = _read_proc("environ")
    start = _stat_field(_ENV_START)
    if block is None or start is None:
        return False
    wipes: list[tuple[int, int]] = []
    offset = 0
    for entry in block.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep and name.decode(errors="surrogateescape") in values:
            wipes.append((offset + len(name) + 1, len(value)))
        offset += len(entry) + 1
    _overwrite(start, wipes)
    after = _read_proc("environ") or b""
    return not any(
        entry.partition(b"=")[0].decode(errors="surrogateescape") in values and entry.partition(b"=")[2]
        for entry in after.split(b"\0")
    )


def wipe_arguments(secrets: Iterable[str]) -> bool:
    """Overwrite these values where they appear as whole arguments, or after `=` in one, in the block
    /proc/self/cmdline reads (sys.argv keeps its own copy); True when none is left there."""
    wanted = {s.encode(errors="surrogateescape") for s in secrets if s}
    if not wanted or not sys.platform.startswith("linux"):
        return True
    block, start = _read_proc("cmdline"), _stat_field(_ARG_START)
    if block is None or start is None:
        return False
    wipes: list[tuple[int, int]] = []
    offset = 0
    for arg in block.split(b"\0"):
        value = arg.partition(b"=")[2] if b"=" in arg and arg not in wanted else arg
        if value in wanted:
            wipes.append((offset + len(arg) - len(value), len(value)))
        offset += len(arg) + 1
    _overwrite(start, wipes)
    after = _read_proc("cmdline") or b""
    return not any(secret in after for secret in wanted)


def _overwrite(base: int, spans: list[tuple[int, int]]) -> None:
    """Write over our own memory through /proc/self/mem: a wrong address is an OSError, never a crash."""
    if not spans:
        return
    with suppress(OSError):
        fd = os.open("/proc/self/mem", os.O_RDWR | os.O_CLOEXEC)
        try:
            for offset, length in spans:
                os.pwrite(fd, b"*" * length, base + offset)
        finally:
            os.close(fd)


def _read_proc(name: str) -> bytes | None:
    try:
        with open(f"/proc/self/{name}", "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _stat_field(index: int) -> int | None:
    stat = _read_proc("stat")
    if stat is None:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return int(fields[index])
    except (IndexError, ValueError):
        return None


def prctl(option: int, value: int) -> int | None:
    """The result of prctl(option, value), or None when it failed or there is no prctl."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        result = int(libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), 0, 0, 0))
    except (OSError, AttributeError):
        return None
    return None if result < 0 else result
