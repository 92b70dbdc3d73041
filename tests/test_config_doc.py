"""docs/config.md is the settings models' own documentation: regenerate it with `make docs`."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import Settings
from sneakycode.config_doc import render_config_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "config.md"


def test_config_md_is_generated_from_the_settings() -> None:
    assert DOC.read_text(encoding="utf-8") == render_config_markdown(), "docs/config.md drifted: run `make docs`"


def test_every_key_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for key in ("workspace_root", "max_output_bytes", "permissions.deny", "tools.shell.denied_commands",
                "tools.shell.sandbox_network", "retry_backoff"):
        assert f"| `{key}` |" in text
    for name, info in Settings.model_fields.items():
        assert info.description, name
