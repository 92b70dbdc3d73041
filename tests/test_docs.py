"""The generated reference pages in docs/ match the code that documents itself (regenerate: make docs)."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import Settings
from sneakycode.docs import PAGES, main, render_config_markdown, stale_pages
from sneakycode.errors import ERROR_DOCS, ErrorCode

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_generated_page_is_up_to_date() -> None:
    assert stale_pages(DOCS) == [], "docs/ drifted from the code: run `make docs`"


def test_check_names_a_stale_page_and_writing_fixes_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    assert main(["--check", "--dir", str(docs)]) == 1
    assert main(["--dir", str(docs)]) == 0
    assert sorted(p.name for p in docs.iterdir()) == sorted(PAGES)
    assert main(["--check", "--dir", str(docs)]) == 0
    (docs / "config.md").write_text("old\n", encoding="utf-8")
    assert stale_pages(docs) == ["config.md"]


def test_every_config_key_is_documented() -> None:
    text = render_config_markdown()
    for key in ("workspace_root", "max_output_bytes", "permissions.deny", "tools.shell.denied_commands",
                "tools.shell.sandbox_network", "retry_backoff"):
        assert f"| `{key}` |" in text
    for name, info in Settings.model_fields.items():
        assert info.description, name


def test_every_error_code_has_a_meaning_and_a_hint() -> None:
    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    for code in ErrorCode:
        doc = ERROR_DOCS[code]
        assert doc.meaning.strip() and doc.hint.strip(), code
        assert f"`{code.value}`" in text
