"""Layered configuration: defaults < user < project < SNEAKYCODE_* < flags, with errors that name the source."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings, user_config_path
from sneakycode.errors import ConfigError
from tests.conftest import project_config


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_match_the_tool_reference(ws: Path) -> None:
    s = load_settings(ws).settings
    assert s.max_file_size_bytes == 1_048_576 and s.max_output_bytes == 65_536
    assert s.tools.shell.default_timeout == 30 and s.tools.shell.max_timeout == 600
    assert s.permissions.mode == "default" and s.tools.shell.sandbox == "auto"


def test_user_config_lives_under_xdg_config_home(isolated_home: Path) -> None:
    assert user_config_path() == isolated_home / ".config" / "sneakycode" / "config.toml"


def test_layers_override_in_order(ws: Path) -> None:
    write(user_config_path(), "max_output_bytes = 10000\nmax_turns = 7\n[tools.shell]\ndefault_timeout = 5\n")
    project_config(ws, "max_output_bytes = 20000\n")
    env = {"SNEAKYCODE_MAX_TURNS": "9", "SNEAKYCODE_TOOLS__SHELL__SANDBOX": "off"}
    loaded = load_settings(ws, flags={"max_turns": 11}, environ=env)
    s = loaded.settings
    assert s.max_output_bytes == 20000 and s.tools.shell.default_timeout == 5
    assert s.tools.shell.sandbox == "off" and s.max_turns == 11
    assert loaded.origin_of("max_output_bytes").endswith(".sneakycode/config.toml")
    assert loaded.origin_of("tools.shell.sandbox") == "environment variable SNEAKYCODE_TOOLS__SHELL__SANDBOX"
    assert loaded.origin_of("max_turns") == "command-line flags"


def test_rule_lists_accumulate_with_their_origin(ws: Path) -> None:
    write(user_config_path(), '[permissions]\ndeny = ["delete_file"]\n')
    write(ws / ".sneakycode/config.toml", '[permissions]\ndeny = ["run_command(sudo:*)"]\nallow = ["read_file"]\n')
    loaded = load_settings(ws, environ={})
    assert loaded.settings.permissions.deny == ["delete_file", "run_command(sudo:*)"]
    origins = dict(loaded.rule_origins["permissions.deny"])
    assert origins["delete_file"].endswith("sneakycode/config.toml") and "home" in origins["delete_file"]
    assert origins["run_command(sudo:*)"] == str(ws.resolve() / ".sneakycode/config.toml")


def test_unknown_key_names_file_and_key(ws: Path) -> None:
    path = write(ws / ".sneakycode/config.toml", "max_output_byte = 1\n")
    with pytest.raises(ConfigError) as exc:
        load_settings(ws, environ={})
    assert str(path) in str(exc.value) and "unknown key 'max_output_byte'" in str(exc.value)


def test_wrong_type_names_file_key_and_expectation(ws: Path) -> None:
    write(user_config_path(), '[tools.shell]\ndefault_timeout = "soon"\n')
    with pytest.raises(ConfigError) as exc:
        load_settings(ws, environ={})
    message = str(exc.value)
    assert "config.toml" in message and "tools.shell.default_timeout" in message and "integer" in message


def test_bad_environment_variable_is_named(ws: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        load_settings(ws, environ={"SNEAKYCODE_MAX_FILE_SIZE_BYTES": "lots"})
    assert "SNEAKYCODE_MAX_FILE_SIZE_BYTES" in str(exc.value)
    with pytest.raises(ConfigError) as exc:
        load_settings(ws, environ={"SNEAKYCODE_NO_SUCH_KEY": "1"})
    assert "unknown key 'no_such_key'" in str(exc.value)


def test_invalid_toml_is_reported_with_the_file(ws: Path) -> None:
    path = write(ws / ".sneakycode/config.toml", "max_turns = = 3\n")
    with pytest.raises(ConfigError) as exc:
        load_settings(ws, environ={})
    assert str(path) in str(exc.value) and "not valid TOML" in str(exc.value)


def test_workspace_root_is_relative_to_the_start_folder(ws: Path) -> None:
    (ws / "sub").mkdir()
    write(ws / ".sneakycode/config.toml", 'workspace_root = "sub"\n')
    assert load_settings(ws, environ={}).workspace == (ws / "sub").resolve()
