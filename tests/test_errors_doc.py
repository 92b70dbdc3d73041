"""docs/errors.md must list every ErrorCode with the meaning and hint the code uses (regenerate: make docs)."""

from __future__ import annotations

from pathlib import Path

from sneakycode.errors import ERROR_DOCS, ErrorCode
from sneakycode.errors_doc import render_errors_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"


def test_errors_md_is_generated_from_the_code() -> None:
    assert DOC.read_text(encoding="utf-8") == render_errors_markdown(), "docs/errors.md drifted: run `make docs`"


def test_every_code_has_a_meaning_and_a_hint() -> None:
    for code in ErrorCode:
        doc = ERROR_DOCS[code]
        assert doc.meaning.strip() and doc.hint.strip(), code
        assert f"`{code.value}`" in DOC.read_text(encoding="utf-8")
