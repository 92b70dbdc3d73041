"""What `Session.result()` costs after each request of a long session: the files it changed, read from scratch
(the whole undo journal and checkpoints file, as before issue 42) beside the incremental read
(session/change_reader.py), side by side in one run, on the same session folder.

The session folder is made with the journal's own writer and the checkpoints' own appender: REQUESTS requests,
each leaving EDITS journal entries and a `before` and an `end` record of one unchanged tree (so neither side
runs git; the diff of two snapshots is memoised on the incremental side anyway). Times are medians over the last
requests' results.

    python bench/session_result.py [--requests 400]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sneakycode.session.changes import ChangeTracker
from sneakycode.session.checkpoints import CheckpointRecord, append_record, read_records
from sneakycode.session.journal import Journal

EDITS = 3


def from_scratch(session: Path, journal_before: int, records_before: int) -> list[str]:
    """files_changed as main computed it before: every entry and record read again."""
    records = read_records(session)[records_before:]
    next((r for r in records if r.kind == "before"), None)
    next((r for r in reversed(records) if r.kind == "end"), None)
    return list(dict.fromkeys(str(e.path) for e in Journal(session).entries()[journal_before:]))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    requests = parser.parse_args().requests
    with tempfile.TemporaryDirectory(prefix="sneakycode-result-bench-") as temp:
        session, workspace = Path(temp) / "session", Path(temp) / "ws"
        session.mkdir()
        workspace.mkdir()
        journal, tracker = Journal(session), ChangeTracker(session, workspace)
        rows: dict[int, tuple[float, float]] = {}
        for number in range(1, requests + 1):
            append_record(session, CheckpointRecord("before", number, "c", "t", time.time()))
            for edit in range(EDITS):
                path = workspace / f"file{number}-{edit}.txt"
                journal.record_before(path, "write")
                path.write_text("x\n")
                journal.record_after(path)
            append_record(session, CheckpointRecord("end", number, "c", "t", time.time()))
            start = time.perf_counter()
            scratch = from_scratch(session, 0, 0)
            middle = time.perf_counter()
            incremental = tracker.changed(str)
            end = time.perf_counter()
            assert incremental == scratch
            rows[number] = (middle - start, end - middle)
        print("| result() after request | journal entries | from scratch (before) | incremental (after) | ratio |")
        print("|---|---:|---:|---:|---:|")
        for mark in sorted({10, requests // 4, requests // 2, requests}):
            window = [rows[n] for n in range(max(1, mark - 4), mark + 1)]
            before = statistics.median(w[0] for w in window)
            after = statistics.median(w[1] for w in window)
            print(f"| {mark} | {mark * EDITS:,} | {before * 1000:.2f} ms | {after * 1000:.2f} ms | "
                  f"{before / after:.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
