"""The corpus of realistic failing model edits (tests/fixtures/edit_corpus): each ends as its fixture says.

Every fixture holds the file, the tool call and the expected outcome: the exact resulting file and the
strategy that found it, or the error code (and then the file must be untouched). bench/edits.py counts
how many each strategy recovers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.tools.base import ToolContext
from tests.conftest import call

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "edit_corpus"
CASES = sorted(CORPUS.glob("*.json"))


def test_the_corpus_is_big_enough_and_mixes_both_tools() -> None:
    loaded = [json.loads(path.read_text(encoding="utf-8")) for path in CASES]
    assert len(loaded) >= 30
    assert {case["tool"] for case in loaded} == {"str_replace", "patch_apply"}
    assert {case["expect"]["outcome"] for case in loaded} == {"applied", "error"}


@pytest.mark.parametrize("fixture", CASES, ids=[path.stem for path in CASES])
def test_corpus_edit(ctx: ToolContext, ws: Path, fixture: Path) -> None:
    case: dict[str, Any] = json.loads(fixture.read_text(encoding="utf-8"))
    name = "service.py" if case["tool"] == "patch_apply" else "target.txt"
    raw = case["file"].encode("utf-8")
    (ws / name).write_bytes(raw)
    assert call(ctx, "read_file", file_path=name).success
    result = call(ctx, case["tool"], file_path=name, **case["args"])
    expect = case["expect"]
    if expect["outcome"] == "error":
        assert result.code == expect["code"], result.render()
        assert (ws / name).read_bytes() == raw
        return
    assert result.success, result.render()
    assert (ws / name).read_bytes() == expect["result"].encode("utf-8")
    if case["tool"] == "str_replace":
        assert result.data["strategy"] == expect["strategy"]
    else:
        assert result.data["found"] == expect["found"]
