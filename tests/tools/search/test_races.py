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


def test_the_check_keeps_honest_lines_deep_in_a_large_file_and_in_every_encoding(ws: Path) -> None:
    """Hardening round two, class 8: the re-read that guards against the race shows what ripgrep found
    when nothing raced: a match 200,000 lines into a file named as `path` (read in pieces, only the shown
    lines kept), UTF-16 and a UTF-8 BOM, CRLF, invalid UTF-8, context lines."""
    with (ws / "big.log").open("w") as fh:
        fh.writelines(f"row {index}\n" for index in range(200_000))
        fh.write("needle at the end\n")
    (ws / "u16.txt").write_bytes("needle\r\nxy\nneedle two\n".encode("utf-16"))
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfneedle one\r\nneedle \xff two\n")
    ctx = open_tool_context(load_settings(ws))
    deep = Gate(ctx).run_direct("grep_files", json.dumps({"pattern": "needle", "path": "big.log", "context_lines": 1}))
    assert deep.content.splitlines() == ["big.log-200000-row 199999", "big.log:200001:needle at the end"]
    both = Gate(ctx).run_direct("grep_files", json.dumps({"pattern": "needle", "context_lines": 1})).content
    assert both.splitlines() == [  # big.log is over max_file_size_bytes: only searched when named
        "bom.txt:1:needle one", "bom.txt:2:needle \ufffd two", "--",
        "u16.txt:1:needle", "u16.txt-2-xy", "u16.txt:3:needle two",
    ]
