"""The repository guard reads `.git` when it is a `gitdir:` file. A racing process can swap that file for a
FIFO between the guard's is_file() check and its read; the read goes through the regular-file reader, so the
guard never waits on the FIFO."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sneakycode.process.protected import RepositoryGuard

# Swaps `.git` between a `gitdir:` file and a FIFO as fast as it can: each swap is a rename over `.git` of a
# fresh hard link, so `.git` is always one or the other, never missing.
RACER = """
import itertools, os, sys
ws = sys.argv[1]
sources = [os.path.join(ws, "gitfile.src"), os.path.join(ws, "fifo.src")]
for n in itertools.count():
    link = os.path.join(ws, f"swap{n % 2}")
    os.link(sources[n % 2], link)
    os.replace(link, os.path.join(ws, ".git"))
"""


@contextmanager
def git_file_swapped_for_a_fifo(ws: Path, target: Path) -> Iterator[None]:
    """A real racing process swapping `ws/.git` between `gitdir: target` and a FIFO while the block runs."""
    target.mkdir(parents=True, exist_ok=True)
    (ws / "gitfile.src").write_text(f"gitdir: {target}\n")
    os.mkfifo(ws / "fifo.src")
    racer = subprocess.Popen([sys.executable, "-c", RACER, str(ws)])
    try:
        deadline = time.monotonic() + 10
        while not (ws / ".git").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        yield
    finally:
        racer.kill()
        racer.wait()


def keeps_finishing(work: Callable[[], object], seconds: float = 3.0) -> bool:
    """Whether `work`, called over and over for `seconds`, always returns (a call may take up to 20 s on a
    busy machine); a thread stuck opening a FIFO stays behind as a daemon."""
    def repeat() -> None:
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            work()

    worker = threading.Thread(target=repeat, daemon=True)
    worker.start()
    worker.join(seconds + 20)
    return not worker.is_alive()


def test_a_git_file_swapped_for_a_fifo_never_hangs_the_guard(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 4: `_gitfile_target` read `.git` with read_text() after is_file(), so a
    racing process that swapped in a FIFO in between froze every sandboxed command; surveys for 3 s under
    the race now all finish."""
    with git_file_swapped_for_a_fifo(ws, tmp_path / "real-git"):
        assert keeps_finishing(lambda: RepositoryGuard.survey(ws))
