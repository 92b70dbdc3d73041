"""grep_files and find_files while another process swaps a folder for a link to outside and back.

ripgrep opens files by name, so it can read through the link; what it read is shown only after the same
file, reached from the workspace root without following links, reads the same (tools/search/verify.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import open_tool_context

MARKER = "SECRET-MARKER-OUTSIDE"
# Exchanges `sub` (a folder) and `swap` (a link to the outside folder) atomically (renameat2 with
# RENAME_EXCHANGE), as fast as it can, until its time is up; prints how many swaps it made.
RACER = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1])
end = time.monotonic() + float(sys.argv[2])
swaps = 0
while time.monotonic() < end:
    if libc.renameat2(-100, b"sub", -100, b"swap", 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    swaps += 1
print(swaps)
"""
SECONDS = 6.0


def racing_workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    for index in range(20):  # same names on both sides: ripgrep's paths are valid on either
        (ws / "sub" / f"f{index}.txt").write_text("needle inside\nplain\n" * 3)
        (outside / f"f{index}.txt").write_text(f"needle {MARKER}\n{MARKER}\n" * 3)
    (ws / "swap").symlink_to(outside, target_is_directory=True)
    return ws


def test_grep_never_shows_text_read_through_a_folder_swapped_for_a_link(tmp_path: Path) -> None:
    """Hardening round two, class 8: grep results showed an outside file's text when a folder was swapped
    for a link while ripgrep searched (62 of 363 searches leaked it before). Over some hundred searches
    against a real racing process, in every output mode, the outside marker never appears."""
    ws = racing_workspace(tmp_path)
    gate = Gate(open_tool_context(load_settings(ws)))
    modes = [
        {"pattern": "needle"},
        {"pattern": "needle", "context_lines": 1},
        {"pattern": "needle", "output_mode": "count"},
        {"pattern": "plain|SECRET", "path": "sub"},
    ]
    racer = subprocess.Popen([sys.executable, "-c", RACER, str(ws), str(SECONDS)], stdout=subprocess.PIPE, text=True)
    searches = inside = 0
    try:
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            for args in modes:
                result = gate.run_direct("grep_files", json.dumps(args))
                searches += 1
                shown = result.render()
                assert MARKER not in shown, shown
                inside += "needle inside" in shown or "plain" in shown
            listed = gate.run_direct("find_files", json.dumps({"pattern": "*.txt"})).render()
            assert MARKER not in listed
        swaps, _ = racer.communicate(timeout=30)
    finally:
        if racer.poll() is None:
            racer.kill()
            racer.wait()
    assert racer.returncode == 0 and int(swaps) > 1000, swaps
    assert searches >= 100 and inside > 0, (searches, inside)
