"""The incremental readers of a session's journal and checkpoints (speed, issue 42): each read takes only what
was added, and answers what a read from scratch answers."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from sneakycode.session.change_reader import JournalPaths, RecordTail
from sneakycode.session.checkpoints import CHECKPOINTS_FILE, CheckpointRecord, append_record, read_records
from sneakycode.session.journal import JOURNAL_DIR, Journal


def record(turn: int, kind: str = "before") -> CheckpointRecord:
    return CheckpointRecord(kind, turn, f"c{turn}", f"t{turn}", float(turn))


def test_records_are_read_from_the_last_offset_and_match_a_read_from_scratch(tmp_path: Path) -> None:
    tail = RecordTail(tmp_path / CHECKPOINTS_FILE)
    assert tail.read() == [] == read_records(tmp_path)
    for turn in range(3):
        append_record(tmp_path, record(turn))
    assert tail.read() == read_records(tmp_path)
    path = tmp_path / CHECKPOINTS_FILE
    text = path.read_text()
    path.write_text("x" * len(text))  # what was read is not read again: an old line changed goes unseen
    append_record(tmp_path, record(3, "end"))
    assert [r.turn for r in tail.read()] == [0, 1, 2, 3]


def test_a_line_being_written_is_taken_when_it_is_whole(tmp_path: Path) -> None:
    path = tmp_path / CHECKPOINTS_FILE
    tail = RecordTail(path)
    line = json.dumps(asdict(record(1))) + "\n"
    path.write_text(line[:10])
    assert tail.read() == [] == read_records(tmp_path)
    with path.open("a") as fh:
        fh.write(line[10:] + "not json\n")
    assert tail.read() == read_records(tmp_path) == [record(1)]
    path.write_text("")  # rewritten shorter: read again from the start
    assert tail.read() == []
    append_record(tmp_path, record(2))
    assert tail.read() == [record(2)]


def test_journal_paths_follow_the_entries_in_order(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    paths = JournalPaths(tmp_path / JOURNAL_DIR)
    assert paths.read() == []
    for name in ("a.txt", "b.txt"):
        journal.record_before(tmp_path / name, "write")
        journal.record_after(tmp_path / name)
    assert paths.read() == [e.path for e in journal.entries()] == [tmp_path / "a.txt", tmp_path / "b.txt"]
    journal.mark_undone(0)
    journal.record_before(tmp_path / "c.txt", "write")
    assert paths.read() == [e.path for e in journal.entries()]
