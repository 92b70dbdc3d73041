"""Which tools a model is offered (issue 12): `tools.enabled` and the edit format, checked at load."""

from __future__ import annotations

import pytest

from sneakycode.agent.model.families import edit_format_for
from sneakycode.config import Settings
from sneakycode.errors import ConfigError
from sneakycode.tools.registry import all_tools, offered_tools


def names(enabled: list[str] | None, edit_format: str = "both") -> list[str]:
    return [t.name for t in offered_tools(enabled, edit_format)]


def test_everything_by_default_and_the_ending_tool_always() -> None:
    # Tools that need setting up (web_search, issue 31) only once their settings are there.
    assert names(None) == [t.name for t in all_tools() if t.name != "web_search"]
    searching = Settings.model_validate({"tools": {"web": {"search": {"backend": "brave"}}}})
    assert [t.name for t in offered_tools(None, "both", searching)] == [t.name for t in all_tools()]
    assert names([]) == ["finish"]
    assert names(["grep_files", "read_file"]) == ["read_file", "grep_files", "finish"]  # in the offered order


def test_an_edit_format_keeps_one_edit_tool_unless_that_would_leave_none() -> None:
    assert "patch_apply" not in names(None, "replace") and "str_replace" in names(None, "replace")
    assert "str_replace" not in names(None, "patch") and "patch_apply" in names(None, "patch")
    assert "patch_apply" in names(["read_file", "patch_apply"], "replace")  # what the user enabled stays


def test_unknown_names_and_formats_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"no tool 'grep' \(did you mean 'grep_files'\?\)"):
        offered_tools(["grep"])
    with pytest.raises(ConfigError, match="edit_format must be one of"):
        offered_tools(None, "diff")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-5", "patch"), ("gpt-5-codex", "patch"), ("openai/gpt-4.1-mini", "patch"), ("o4-mini", "patch"),
        ("openai/gpt-oss-120b", "both"), ("qwen3-coder:30b", "replace"), ("meta-llama/Llama-3.3-70B", "replace"),
        ("devstral-small", "replace"), ("SmolLM2-135M-Instruct", "replace"), ("my-finetune", "both"), (None, "both"),
    ],
)
def test_model_families_pick_their_edit_format(model: str | None, expected: str) -> None:
    assert edit_format_for(model) == expected
    assert edit_format_for(model, "replace") == "replace"  # configured wins
