"""Stale edits merged, not refused (issue 13): an edit of a file changed on disk since the read keeps both
changes when they touch different lines, and refuses (file byte-identical) when they touch the same or
adjacent lines."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sneakycode.errors import ErrorCode
from sneakycode.session.undo import undo_session
from sneakycode.tools.base import ToolContext
from tests.conftest import call

LINES = "".join(f"line {n}\n" for n in range(1, 11))
RUNS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def read(ctx: ToolContext, ws: Path, data: bytes, name: str = "f.txt") -> Path:
    path = ws / name
    path.write_bytes(data)
    assert call(ctx, "read_file", file_path=name).success
    return path


def test_an_edit_elsewhere_than_the_outside_change_is_merged_and_the_change_shown(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    path.write_text(LINES.replace("line 2\n", "line two (from the user)\n"))
    result = call(ctx, "str_replace", file_path="f.txt", old_str="line 8", new_str="line eight")
    assert result.success, result.render()
    assert path.read_text() == LINES.replace("line 2\n", "line two (from the user)\n").replace("line 8", "line eight")
    assert "merged with an outside change" in result.message and result.data["merged"] is True
    assert "-line 2\n+line two (from the user)" in result.content
    assert "     8\tline eight" in result.content


def test_after_a_merge_the_model_may_edit_again_without_reading(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    path.write_text(LINES.replace("line 1\n", "line 0\nline 1\n"))
    assert call(ctx, "str_replace", file_path="f.txt", old_str="line 9", new_str="line nine").success
    again = call(ctx, "str_replace", file_path="f.txt", old_str="line 0", new_str="line zero")
    assert again.success and "merged" not in again.message
    assert path.read_text().startswith("line zero\nline 1\n") and "line nine\n" in path.read_text()


def test_an_edit_overlapping_the_outside_change_is_refused_and_shows_both(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    disk = LINES.replace("line 5\n", "line 5 (user)\n").encode()
    path.write_bytes(disk)
    result = call(ctx, "str_replace", file_path="f.txt", old_str="line 4\nline 5\n", new_str="line 4-5\n")
    assert result.code == ErrorCode.STALE_READ
    assert path.read_bytes() == disk
    text = result.render()
    assert "+line 5 (user)" in text and "Conflict at line 4" in text
    assert "after your edit:" in text and "line 4-5" in text and "nothing was written" in text


def test_adjacent_line_changes_conflict_as_in_diff3(ctx: ToolContext, ws: Path) -> None:
    """merge3 anchors on unchanged lines: with none between the two changes it cannot order them, so an
    edit of line 6 after an outside change of line 5 is refused, while line 7 (one line between) merges."""
    path = read(ctx, ws, LINES.encode())
    disk = LINES.replace("line 5\n", "line 5 (user)\n").encode()
    path.write_bytes(disk)
    assert call(ctx, "str_replace", file_path="f.txt", old_str="line 6", new_str="six").code == ErrorCode.STALE_READ
    assert path.read_bytes() == disk
    assert call(ctx, "str_replace", file_path="f.txt", old_str="line 7", new_str="seven").success
    assert path.read_text() == LINES.replace("line 5\n", "line 5 (user)\n").replace("line 7", "seven")


def test_old_str_is_matched_against_what_the_model_saw(ctx: ToolContext, ws: Path) -> None:
    """The outside change added a second `retries = 3`: on disk old_str is ambiguous, in what the model
    read it is not, and that place is untouched, so the edit lands where the model meant it."""
    seen = "def connect():\n    retries = 3\n    return retries\n"
    path = read(ctx, ws, seen.encode(), "c.py")
    disk = seen + "\n\ndef reconnect():\n    retries = 3\n    return retries\n"
    path.write_text(disk)
    result = call(ctx, "str_replace", file_path="c.py", old_str="    retries = 3", new_str="    retries = 5")
    assert result.success, result.render()
    assert path.read_text() == disk.replace("retries = 3", "retries = 5", 1)


def test_a_patch_is_merged_too_and_the_format_of_the_file_kept(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, b"\xef\xbb\xbf" + LINES.replace("\n", "\r\n").encode(), "p.txt")
    grown = LINES.replace("line 10\n", "line 10\nline 11\n")
    path.write_bytes(b"\xef\xbb\xbf" + grown.replace("\n", "\r\n").encode())
    hunk = "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+line III\n line 4\n"
    result = call(ctx, "patch_apply", file_path="p.txt", patch=hunk)
    assert result.success and result.data["merged"] is True, result.render()
    expected = LINES.replace("line 3\n", "line III\n").replace("line 10\n", "line 10\nline 11\n")
    assert path.read_bytes() == b"\xef\xbb\xbf" + expected.replace("\n", "\r\n").encode()


def test_an_outside_change_that_already_made_the_edit_is_no_change(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    disk = LINES.replace("line 3", "line three").encode()
    path.write_bytes(disk)
    result = call(ctx, "str_replace", file_path="f.txt", old_str="line 3", new_str="line three")
    assert result.code == ErrorCode.NO_CHANGE and path.read_bytes() == disk


def test_a_merged_edit_is_journalled_and_undo_brings_back_the_outside_change(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    disk = LINES.replace("line 1\n", "line one\n").encode()
    path.write_bytes(disk)
    assert call(ctx, "str_replace", file_path="f.txt", old_str="line 9", new_str="line nine").success
    report = undo_session(ctx.session_dir, ctx.session_id, ctx.workspace.root, steps=None, force=False)
    assert report.ok and path.read_bytes() == disk


def test_write_file_over_a_changed_file_is_still_refused(ctx: ToolContext, ws: Path) -> None:
    path = read(ctx, ws, LINES.encode())
    disk = LINES.replace("line 1\n", "line one\n").encode()
    path.write_bytes(disk)
    result = call(ctx, "write_file", file_path="f.txt", content=LINES + "line 11\n")
    assert result.code == ErrorCode.STALE_READ and path.read_bytes() == disk


# ---- properties ---------------------------------------------------------------------------------------

# Changed lines carry a prefix no original line has, so the diffs merge3 computes cannot align them with
# unchanged lines by accident: the property is about where the changes are, not about diff heuristics.
NEW_LINES = st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"),
                             max_size=12), max_size=3)


def _spans(draw: st.DrawFn, size: int, apart: bool) -> tuple[int, int, int, int]:
    start_a = draw(st.integers(0, size - 1))
    len_a = draw(st.integers(1, min(3, size - start_a)))
    if apart:
        before = [(s, n) for s in range(0, start_a - 1) for n in range(1, start_a - s)]
        after = [(s, n) for s in range(start_a + len_a + 1, size) for n in range(1, size - s + 1)]
        start_b, len_b = draw(st.sampled_from(before + after)) if before + after else (-1, 0)
    else:
        start_b = draw(st.integers(max(0, start_a - 3), min(size - 1, start_a + len_a)))
        len_b = draw(st.integers(max(1, start_a - start_b), min(4, size - start_b)))
    return start_a, len_a, start_b, len_b


Change = tuple[int, int, list[str]]  # first line, how many lines, the lines put there
Pair = tuple[list[str], Change, Change]


@st.composite
def edit_pairs(draw: st.DrawFn, apart: bool) -> Pair:
    size = draw(st.integers(4, 14))
    base = [f"base {n}" for n in range(size)]
    start_a, len_a, start_b, len_b = _spans(draw, size, apart)
    outside = [f"outside {t}" for t in draw(NEW_LINES)]
    mine = [f"mine {t}" for t in draw(NEW_LINES)]
    return base, (start_a, len_a, outside), (start_b, len_b, mine)


def _joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


@RUNS
@given(pair=edit_pairs(apart=True))
def test_edits_apart_from_the_outside_change_give_both_changes(
    ctx: ToolContext, ws: Path, pair: Pair
) -> None:
    base, (start_a, len_a, outside), (start_b, len_b, mine) = pair
    if start_b < 0:
        return
    path = read(ctx, ws, _joined(base).encode())
    disk = [*base[:start_a], *outside, *base[start_a + len_a :]]
    path.write_text(_joined(disk))
    result = call(ctx, "str_replace", file_path="f.txt", old_str=_joined(base[start_b : start_b + len_b]),
                  new_str=_joined(mine))
    assert result.success, result.render()
    both = list(base)
    for start, length, lines in sorted([(start_a, len_a, outside), (start_b, len_b, mine)], reverse=True):
        both[start : start + length] = lines
    assert path.read_text() == _joined(both)


@RUNS
@given(pair=edit_pairs(apart=False))
def test_edits_touching_the_outside_change_write_nothing(
    ctx: ToolContext, ws: Path, pair: Pair
) -> None:
    base, (start_a, len_a, outside), (start_b, len_b, mine) = pair
    path = read(ctx, ws, _joined(base).encode())
    disk = _joined([*base[:start_a], *outside, *base[start_a + len_a :]]).encode()
    path.write_bytes(disk)
    result = call(ctx, "str_replace", file_path="f.txt", old_str=_joined(base[start_b : start_b + len_b]),
                  new_str=_joined(mine))
    # Both sides deleting the same lines is the one overlap with nothing to conflict: no_change then.
    assert result.code in (ErrorCode.STALE_READ, ErrorCode.NO_CHANGE), result.render()
    assert path.read_bytes() == disk
