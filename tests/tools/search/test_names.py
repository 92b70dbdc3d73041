"""File names that are not UTF-8 in search results, from ripgrep and from the pure-Python fallback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.search import ripgrep
from tests.conftest import call


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
def test_names_that_are_not_utf8_are_shown_escaped_by_both_backends(
    ws: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """Hardening round two, class 8: grep_files and find_files raised UnicodeEncodeError on `bad\\xff.txt`
    when the result was encoded; names are now written through the one escaping function, so a result is
    always UTF-8 and the name reads as list_dir shows it."""
    if engine == "python":
        monkeypatch.setattr(ripgrep, "locate_rg", lambda: None)
    else:
        assert ripgrep.locate_rg() is not None, "ripgrep ships in its wheel, a dependency"
    (ws / os.fsdecode(b"bad\xff.txt")).write_text("needle\n")
    (ws / os.fsdecode(b"d\xfe")).mkdir()
    (ws / os.fsdecode(b"d\xfe") / "in.txt").write_text("needle\nafter\n")
    ctx = open_tool_context(load_settings(ws))
    results = {
        "content": call(ctx, "grep_files", pattern="needle", context_lines=1),
        "files": call(ctx, "grep_files", pattern="needle", output_mode="files_with_matches"),
        "find": call(ctx, "find_files", pattern="*.txt", sort="mtime"),
    }
    for result in results.values():
        assert result.data["backend"] == engine
        json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    assert results["content"].content.splitlines() == [
        "bad\\xff.txt:1:needle", "--", "d\\xfe/in.txt:1:needle", "d\\xfe/in.txt-2-after"
    ]
    assert results["files"].content.splitlines() == ["bad\\xff.txt", "d\\xfe/in.txt"]
    assert sorted(results["find"].content.splitlines()) == ["bad\\xff.txt", "d\\xfe/in.txt"]
