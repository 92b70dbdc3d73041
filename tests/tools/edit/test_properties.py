"""Properties of the edit tools over random files: exactness, no harm on refusal, diffs that round-trip."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sneakycode.tools.base import ToolContext
from sneakycode.tools.edit.patch import apply_hunks, parse_patch
from tests.conftest import call

# Text a file may hold that the workspace keeps verbatim: no CR (a CRLF file reads as LF, tested
# elsewhere), no NUL (binary), no BOM at the start, no lone surrogates (not encodable).
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00\ufeff"), max_size=200)
ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=120)
RUNS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def fresh(ctx: ToolContext, ws: Path, data: bytes) -> Path:
    path = ws / "f.txt"
    path.write_bytes(data)
    assert call(ctx, "read_file", file_path="f.txt").success
    return path


@RUNS
@given(prefix=TEXT, old=TEXT.filter(bool), suffix=TEXT, new=TEXT)
def test_a_unique_old_str_gives_exactly_str_replace(
    ctx: ToolContext, ws: Path, prefix: str, old: str, suffix: str, new: str
) -> None:
    text = prefix + old + suffix
    assume(text.find(old) == text.rfind(old) and old != new)
    path = fresh(ctx, ws, text.encode("utf-8"))
    result = call(ctx, "str_replace", file_path="f.txt", old_str=old, new_str=new)
    assert result.success, result.render()
    assert path.read_bytes() == text.replace(old, new, 1).encode("utf-8")


@RUNS
@given(parts=st.lists(TEXT, min_size=2, max_size=5), old=TEXT.filter(bool), new=TEXT)
def test_replace_all_of_an_exact_old_str_gives_str_replace(
    ctx: ToolContext, ws: Path, parts: list[str], old: str, new: str
) -> None:
    text = old.join(parts)
    assume(old != new)
    path = fresh(ctx, ws, text.encode("utf-8"))
    assert call(ctx, "str_replace", file_path="f.txt", old_str=old, new_str=new, replace_all=True).success
    assert path.read_bytes() == text.replace(old, new).encode("utf-8")


@RUNS
@given(lines=st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"),
                              max_size=30), min_size=1, max_size=12), pick=st.integers(0, 11))
def test_a_crlf_file_edited_with_lf_text_stays_crlf(ctx: ToolContext, ws: Path, lines: list[str], pick: int) -> None:
    lf = "".join(line + "\n" for line in lines)
    old = lines[pick % len(lines)] + "\n"
    assume(lf.find(old) == lf.rfind(old))
    # A leading U+FEFF is the file's byte-order mark, which the tools keep and never show as text: an old_str
    # holding it matches nothing (hypothesis found this edge once in ~1 in 10 runs).
    assume(not lf.startswith("\ufeff"))
    path = fresh(ctx, ws, lf.replace("\n", "\r\n").encode("utf-8"))
    assert call(ctx, "str_replace", file_path="f.txt", old_str=old, new_str="new line\n").success
    assert path.read_bytes() == lf.replace(old, "new line\n", 1).replace("\n", "\r\n").encode("utf-8")


@RUNS
@given(data=st.one_of(ANY_TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=80)), old=ANY_TEXT, new=ANY_TEXT,
       replace_all=st.booleans())
def test_any_rejected_edit_leaves_the_bytes_unchanged(
    ctx: ToolContext, ws: Path, data: bytes, old: str, new: str, replace_all: bool
) -> None:
    path = ws / "f.txt"
    path.write_bytes(data)
    call(ctx, "read_file", file_path="f.txt")
    result = call(ctx, "str_replace", file_path="f.txt", old_str=old, new_str=new, replace_all=replace_all)
    if not result.success:
        assert path.read_bytes() == data


@RUNS
@given(data=st.one_of(ANY_TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=80)), patch=ANY_TEXT)
def test_any_rejected_patch_leaves_the_bytes_unchanged(ctx: ToolContext, ws: Path, data: bytes, patch: str) -> None:
    path = ws / "f.txt"
    path.write_bytes(data)
    call(ctx, "read_file", file_path="f.txt")
    if not call(ctx, "patch_apply", file_path="f.txt", patch=patch).success:
        assert path.read_bytes() == data


# Files of distinct lines, changed by deleting, replacing and inserting lines: what a model's diff looks like.
LINE_IDS = st.lists(st.integers(0, 10_000), unique=True, min_size=1, max_size=60)


@st.composite
def file_pairs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    before = [f"line {n}\n" for n in draw(LINE_IDS)]
    after = []
    for line in before:
        action = draw(st.sampled_from(["keep", "keep", "keep", "drop", "change", "insert"]))
        if action == "keep":
            after.append(line)
        elif action == "change":
            after.append(line.replace("line", "changed"))
        elif action == "insert":
            after.extend([line, f"added after {line}"])
    return before, after


def unified(before: list[str], after: list[str]) -> str:
    return "".join(difflib.unified_diff(before, after, "a/f.txt", "b/f.txt"))


@settings(max_examples=300, deadline=None)
@given(pair=file_pairs(), grown=st.integers(0, 40))
def test_a_difflib_patch_applies_also_after_lines_were_added_above(
    pair: tuple[list[str], list[str]], grown: int
) -> None:
    before, after = pair
    assume(before != after)
    extra = [f"unrelated {n}\n" for n in range(grown)]
    patched = apply_hunks("".join(extra + before), parse_patch(unified(before, after)).hunks, label="f.txt")
    assert patched.text == "".join(extra + after)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pair=file_pairs())
def test_patch_apply_with_a_difflib_patch_gives_the_new_file(
    ctx: ToolContext, ws: Path, pair: tuple[list[str], list[str]]
) -> None:
    before, after = pair
    assume(before != after)
    path = fresh(ctx, ws, "".join(before).encode())
    result = call(ctx, "patch_apply", file_path="f.txt", patch=unified(before, after))
    assert result.success, result.render()
    assert path.read_text() == "".join(after)


CODE_CHARS = st.sampled_from("abcxyz_=()[]:.,'\"+-*/ 0123456789")
CODE_LINE = st.text(CODE_CHARS, min_size=1, max_size=20).map(str.strip).filter(bool)


@RUNS
@given(
    block=st.lists(CODE_LINE, min_size=2, max_size=6, unique=True),
    new_block=st.lists(CODE_LINE, min_size=1, max_size=6),
    prefix=st.sampled_from(["  ", "    ", "\t", "\t\t", "        "]),
)
def test_a_block_quoted_without_its_indentation_is_replaced_at_that_indentation(
    ctx: ToolContext, ws: Path, block: list[str], new_block: list[str], prefix: str
) -> None:
    assume(new_block != block)
    text = "".join(f"{prefix}{line}\n" for line in block)
    path = fresh(ctx, ws, text.encode("utf-8"))
    result = call(ctx, "str_replace", file_path="f.txt", old_str="\n".join(block), new_str="\n".join(new_block))
    assert result.success and result.data["strategy"] == "indentation", result.render()
    assert path.read_text() == "".join(f"{prefix}{line}\n" for line in new_block)
