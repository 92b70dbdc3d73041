"""`[model_settings."MODEL"]`: settings for one model (what `doctor --save` writes) apply when that model is
used, over the configuration files' own keys, under SNEAKYCODE_* variables and flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from tests.conftest import project_config

USER = """context_window = 32768
model = "qwen2.5-coder:7b"

[model_settings."qwen2.5-coder:7b"]
tool_calls = "text"
context_window = 8192
edit_format = "replace"
"""


def write_user(home: Path, text: str) -> Path:
    path = home / ".config" / "sneakycode" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_model_entry_wins_over_the_files_keys(ws: Path, isolated_home: Path) -> None:
    path = write_user(isolated_home, USER)
    loaded = load_settings(ws)
    settings = loaded.settings
    assert (settings.tool_calls, settings.context_window, settings.tools.edit_format) == ("text", 8192, "replace")
    assert loaded.origin_of("context_window") == f'[model_settings."qwen2.5-coder:7b"] in {path}'


def test_flags_and_environment_win_over_the_model_entry(ws: Path, isolated_home: Path) -> None:
    write_user(isolated_home, USER)
    flagged = load_settings(ws, {"context_window": 16384}).settings
    assert (flagged.context_window, flagged.tool_calls) == (16384, "text")
    env = load_settings(ws, environ={"SNEAKYCODE_TOOL_CALLS": "native"}).settings
    assert (env.tool_calls, env.context_window) == ("native", 8192)


def test_another_model_does_not_get_the_entry(ws: Path, isolated_home: Path) -> None:
    write_user(isolated_home, USER)
    other = load_settings(ws, {"model": "llama3.1:8b"}).settings
    assert (other.tool_calls, other.context_window, other.tools.edit_format) == ("auto", 32768, "auto")


def test_an_untrusted_project_cannot_set_model_entries(ws: Path) -> None:
    project_config(ws, 'model = "m"\n[model_settings."m"]\ncontext_window = 2048\n', trusted=False)
    loaded = load_settings(ws)
    assert loaded.settings.context_window is None
    assert any(line.startswith("model_settings.m") for line in loaded.ignored)


def test_a_wrong_value_names_the_file_and_key(ws: Path, isolated_home: Path) -> None:
    write_user(isolated_home, '[model_settings."m"]\ntool_calls = "sometimes"\n')
    with pytest.raises(ConfigError, match=r"model_settings\.m\.tool_calls"):
        load_settings(ws)
