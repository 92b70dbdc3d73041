"""process.py: real subprocesses, checked for what a user would notice: nothing hangs, nothing is left
running, no output is lost or mislabelled, and a flood stays bounded in memory and on disk."""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path

import pytest

from sneakycode.process.environment import command_environment, shell_argv
from sneakycode.process.supervise import HeadTailCapture, Stream, run_captured, run_process, supervise


def marker() -> str:
    """A unique sleep length, so a test can find its own processes in /proc (and only those)."""
    return str(1_000_000 + secrets.randbelow(8_000_000))


def running_with(text: str) -> list[int]:
    """Pids of processes (zombies excluded) whose command line contains `text`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def test_exit_code_and_streams_are_kept_apart(tmp_path: Path) -> None:
    result = run_process(shell_argv("echo out; echo err >&2; exit 3"), cwd=tmp_path)
    assert (result.ending.exit_code, result.stdout, result.stderr) == (3, b"out\n", b"err\n")
    assert result.ending.signal_name is None and not result.ending.timed_out


def test_stdin_is_closed_so_a_reader_gets_eof_instead_of_hanging(tmp_path: Path) -> None:
    result = run_process(shell_argv("read line; echo status=$?; cat"), cwd=tmp_path, timeout=20)
    assert not result.ending.timed_out
    assert result.stdout == b"status=1\n"


def test_timeout_is_seconds_and_kills_the_group_with_its_grandchildren(tmp_path: Path) -> None:
    tag = marker()
    command = f"echo started; sleep {tag} & bash -c 'sleep {tag}' & sleep {tag}"
    result = run_process(shell_argv(command), cwd=tmp_path, timeout=1)
    assert result.ending.timed_out and result.ending.exit_code is None
    assert result.stdout == b"started\n"
    assert 1 <= result.ending.duration < 10
    assert running_with(tag) == []


def test_a_helper_kept_in_our_session_is_still_ended_as_a_group(tmp_path: Path) -> None:
    """ripgrep runs with own_session=False (a new session is a new scheduler autogroup, which slows it under
    load): it must still get a process group of its own, apart from ours, that a timeout ends whole."""
    tag = marker()
    # Fields 5 and 6 of /proc/PID/stat: process group and session.
    command = f"cut -d' ' -f5,6 /proc/$$/stat; echo $$; sleep {tag} & sleep {tag}"
    result = run_process(shell_argv(command), cwd=tmp_path, timeout=1, own_session=False)
    group_and_session, shell_pid = result.stdout.decode().split("\n")[:2]
    assert group_and_session == f"{shell_pid} {os.getsid(0)}"
    assert running_with(tag) == []


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    tag = marker()
    result = run_process(shell_argv(f"trap '' TERM; sleep {tag}"), cwd=tmp_path, timeout=1, kill_grace=0.5)
    assert result.ending.timed_out
    assert running_with(tag) == []


def test_background_jobs_do_not_outlive_the_command(tmp_path: Path) -> None:
    tag = marker()
    result = run_process(shell_argv(f"sleep {tag} >/dev/null 2>&1 & echo spawned"), cwd=tmp_path, timeout=30)
    assert result.ending.exit_code == 0 and result.stdout == b"spawned\n"
    assert result.ending.background_killed
    assert running_with(tag) == []


def test_a_background_job_holding_the_pipe_does_not_block_the_result(tmp_path: Path) -> None:
    tag = marker()
    result = run_process(shell_argv(f"sleep {tag} & echo done"), cwd=tmp_path, timeout=30)
    assert not result.ending.timed_out and result.ending.exit_code == 0
    assert result.stdout == b"done\n"
    assert running_with(tag) == []


def test_an_escaped_daemon_holding_the_pipe_does_not_block_the_result(tmp_path: Path) -> None:
    tag = marker()
    result = run_process(shell_argv(f"setsid sleep {tag} & echo done"), cwd=tmp_path, timeout=30)
    try:
        assert not result.ending.timed_out and result.stdout == b"done\n"
    finally:
        for pid in running_with(tag):
            os.kill(pid, 9)


def test_death_by_signal_is_named(tmp_path: Path) -> None:
    result = run_process(shell_argv("kill -SEGV $$"), cwd=tmp_path)
    assert result.ending.exit_code is None and result.ending.signal_name == "SIGSEGV"


def test_cancel_kills_the_group(tmp_path: Path) -> None:
    tag = marker()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    result = run_process(shell_argv(f"echo before; sleep {tag}"), cwd=tmp_path, cancel=cancel, timeout=60)
    assert result.ending.cancelled and not result.ending.timed_out
    assert result.stdout == b"before\n"
    assert running_with(tag) == []


def test_an_error_while_supervising_kills_the_command(tmp_path: Path) -> None:
    """Ctrl-C (or a broken sink) in the middle of a run must not leave the command running unsupervised."""
    tag = marker()

    def broken_sink(stream: Stream, chunk: bytes) -> None:
        raise RuntimeError("sink broke")

    with pytest.raises(RuntimeError):
        supervise(shell_argv(f"echo go; sleep {tag}"), cwd=tmp_path, env=None, timeout=60, cancel=None,
                  kill_grace=1, sink=broken_sink)
    give_up = time.monotonic() + 10  # SIGKILL was sent; wait for the kernel to finish the kill
    while running_with(tag) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert running_with(tag) == []


def test_run_process_keeps_the_head_and_counts_the_rest(tmp_path: Path) -> None:
    result = run_process(shell_argv("head -c 100000 /dev/zero"), cwd=tmp_path, capture_limit=1000)
    assert len(result.stdout) == 1000 and result.stdout_total == 100000 and result.truncated


def test_combined_output_keeps_arrival_order_and_stderr_apart(tmp_path: Path) -> None:
    command = "echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three"
    run = run_captured(
        shell_argv(command), cwd=tmp_path, env=None, timeout=20, cancel=None, kill_grace=1,
        head_limit=1000, tail_limit=1000, spill_dir=tmp_path / "out", spill_limit=10_000,
    )  # fmt: skip
    assert bytes(run.output.head) == b"one\ntwo\nthree\n"
    assert bytes(run.stderr.head) == b"two\n"
    assert run.output.spill_path is None, "small output needs no spill file"


def test_large_output_keeps_head_and_tail_and_spills_everything(tmp_path: Path) -> None:
    run = run_captured(
        shell_argv("seq 1 200000"), cwd=tmp_path, env=None, timeout=20, cancel=None, kill_grace=1,
        head_limit=100, tail_limit=100, spill_dir=tmp_path / "out", spill_limit=10_000_000,
    )  # fmt: skip
    expected = "".join(f"{n}\n" for n in range(1, 200001)).encode()
    assert run.output.total == len(expected) and run.output.newlines == 200000
    assert bytes(run.output.head) == expected[:100] and bytes(run.output.tail) == expected[-100:]
    assert run.output.spill_path == tmp_path / "out" / "1.log"
    assert run.output.spill_path.read_bytes() == expected


def test_spill_files_are_numbered_and_capped(tmp_path: Path) -> None:
    spill_dir = tmp_path / "out"
    spill_dir.mkdir()
    (spill_dir / "1.log").write_bytes(b"earlier")
    capture = HeadTailCapture(10, 10, spill_dir, spill_limit=50)
    for _ in range(10):
        capture.feed(b"0123456789")
    capture.close()
    assert capture.spill_path == spill_dir / "2.log"
    assert capture.spill_path.read_bytes() == b"0123456789" * 5 and capture.spilled == 50
    assert (spill_dir / "1.log").read_bytes() == b"earlier"
    assert bytes(capture.tail) == b"0123456789" and capture.total == 100


def test_environment_drops_credentials_and_disables_pagers_and_prompts() -> None:
    base = {
        "PATH": "/usr/bin",
        "OPENAI_API_KEY": "k1",
        "groq_api_key": "k2",
        "GITHUB_TOKEN": "k3",
        "AWS_SECRET_ACCESS_KEY": "k4",
        "OPENROUTER_BASE": "k5",
        "MY_MODEL_KEY": "k6",
        "SNEAKYCODE_API_KEY": "k7",
        "PAGER": "less",
    }
    env = command_environment(base, also_remove=["MY_MODEL_KEY"])
    assert not {"k1", "k2", "k3", "k4", "k5", "k6", "k7"} & set(env.values())
    assert env["PATH"] == "/usr/bin"
    assert env["PAGER"] == "cat" and env["GIT_PAGER"] == "cat" and env["TERM"] == "dumb"
    assert env["SNEAKYCODE"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0"
