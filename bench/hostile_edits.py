"""Edits a hostile or confused model can send, timed through the real tools (the gate, a real workspace).

Hardening class 7 measured `str_replace` with 200,000 matches at about 95 s (the result view counted lines
from the start of the file for every match) and `patch_apply` with 5,000 ambiguous hunks at about 115 s
(every hunk searched the whole file and every taken hunk). This prints what they cost now, beside a plain
`str.replace` of the same text as the floor. Single runs: the point is seconds versus minutes.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import open_tool_context

LINES = 170_000  # "x = 1\n" lines: just under the 1 MB file limit


def timed(label: str, action: object) -> tuple[str, float, str]:
    start = time.perf_counter()
    outcome = action() if callable(action) else ""
    return label, time.perf_counter() - start, str(outcome)


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        ws = Path(folder)
        os.environ.setdefault("XDG_STATE_HOME", str(ws / ".state"))
        text = "x = 1\n" * LINES
        (ws / "many.py").write_text(text)
        (ws / "same.txt").write_text("a\n" * LINES)
        gate = Gate(open_tool_context(load_settings(ws)))
        gate.run_direct("read_file", {"file_path": "many.py"})
        gate.run_direct("read_file", {"file_path": "same.txt"})
        rows = [
            timed("floor: str.replace of the same text", lambda: len(text.replace("x = 1", "y = 2"))),
            timed(f"str_replace replace_all, {LINES:,} matches", lambda: gate.run_direct(
                "str_replace", {"file_path": "many.py", "old_str": "x = 1", "new_str": "y = 2", "replace_all": True}
            ).message),
            timed("patch_apply, 1,000 ambiguous hunks", lambda: gate.run_direct(
                "patch_apply", {"file_path": "same.txt", "patch": "@@ -99999 +99999 @@\n-a\n+b\n" * 1000}
            ).code),
            timed("patch_apply, 5,000 hunks (refused: over the limit)", lambda: gate.run_direct(
                "patch_apply", {"file_path": "same.txt", "patch": "@@\n-a\n+b\n" * 5000}
            ).code),
        ]
    print("| edit | seconds | outcome |")
    print("|---|---|---|")
    for label, seconds, outcome in rows:
        print(f"| {label} | {seconds:.3f} | {outcome[:60]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
