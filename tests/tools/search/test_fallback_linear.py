"""Hardening class 7: the search fallback runs on RE2, so no pattern makes grep_files hang.

Python's backtracking `re` takes exponential time on these patterns against a long run of one letter, and a
running `re` match cannot be interrupted; each test here would never finish on it. There is no setting or
environment variable that turns ripgrep off for the CLI, so the fallback is forced in-process, as the other
fallback tests force it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.search import ripgrep
from tests.conftest import call

RUN = 5000  # backtracking needs about 2**RUN steps on these lines; RE2 one pass


@pytest.fixture
def without_rg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ripgrep, "locate_rg", lambda: None)


@pytest.mark.usefixtures("without_rg")
@pytest.mark.parametrize(
    ("pattern", "long_line", "matching_line"),
    [
        ("(a+)+$", "a" * RUN + "!", "aaaa"),
        ("(a|aa)+$", "a" * RUN + "!", "baa"),
        ("(x+x+)+y", "x" * RUN, "xxy"),
    ],
)
def test_hardening_class_7_catastrophic_patterns_do_not_hang_the_fallback(
    ctx: ToolContext, ws: Path, pattern: str, long_line: str, matching_line: str
) -> None:
    """Hardening class 7: `(a+)+$` and its kin against a long run of `a`s answered at once, and correctly."""
    (ws / "long.txt").write_text(long_line + "\n")
    (ws / "both.txt").write_text(f"{long_line}\r\n{matching_line}\r\n")
    result = call(ctx, "grep_files", pattern=pattern)
    assert result.data["backend"] == "python"
    assert result.content == f"both.txt:2:{matching_line}"
    alone = call(ctx, "grep_files", pattern=pattern, path="long.txt")
    assert alone.success and alone.data["matches"] == 0, alone.render()


@pytest.mark.usefixtures("without_rg")
def test_hardening_class_7_through_the_gate(ws: Path) -> None:
    """Hardening class 7: the model's own path (the permission gate, then the tool) with the fallback."""
    (ws / "run.txt").write_text("a" * RUN + "!\nab\n")
    gate = Gate(open_tool_context(load_settings(ws)))
    hung = gate.run_direct("grep_files", {"pattern": "(a|aa)+$", "output_mode": "count"})
    assert hung.success and hung.message.startswith("No matches for '(a|aa)+$'"), hung.render()
    found = gate.run_direct("grep_files", {"pattern": "(a|aa)+b"})
    assert (found.content, found.data["backend"]) == ("run.txt:2:ab", "python")


@pytest.mark.usefixtures("without_rg")
@pytest.mark.parametrize(("pattern", "position"), [("\\<(foo|bar)", 0), ("x{1001}", 1), ("[a\\W]", 2)])
def test_what_re2_cannot_express_is_refused_with_its_position(
    ctx: ToolContext, ws: Path, pattern: str, position: int
) -> None:
    """ripgrep runs these; RE2 has no equivalent, so the fallback says where instead of guessing."""
    (ws / "a.txt").write_text("foo\n")
    result = call(ctx, "grep_files", pattern=pattern)
    assert result.code == ErrorCode.INVALID_PATTERN
    assert f"(at position {position})" in (result.error or ""), result.error


@pytest.mark.usefixtures("without_rg")
def test_a_carriage_return_inside_a_line_is_matched_as_ripgrep_matches_it(ctx: ToolContext, ws: Path) -> None:
    """ripgrep's CRLF mode: `$` and `^` match beside a lone `\\r`, and no class (not `\\s`) matches it."""
    (ws / "mid.txt").write_bytes(b"a\rb\r\n")
    assert call(ctx, "grep_files", pattern="a$").content == "mid.txt:1:a\rb"
    assert call(ctx, "grep_files", pattern="^b$").content == "mid.txt:1:a\rb"
    assert call(ctx, "grep_files", pattern="a\\sb").data["matches"] == 0
