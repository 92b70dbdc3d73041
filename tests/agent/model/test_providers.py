"""Choosing provider, endpoint, model and key: presets, resolution order, and the errors that explain."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.model.providers import PLACEHOLDER_KEY, PRESETS, resolve_model_config
from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config

NO_LOCAL: tuple[Any, ...] = ()


def resolve(ws: Path, flags: dict[str, Any] | None = None, env: dict[str, str] | None = None,
            key: str | None = None, local: Any = NO_LOCAL, user_config: Path | None = None) -> Any:
    loaded = load_settings(ws, flags=flags, environ=env or {}, user_config=user_config or ws / "no-user.toml")
    return resolve_model_config(loaded, key, environ=env or {}, local_presets=local)


def test_a_provider_flag_uses_its_preset_and_its_key_variable(ws: Path) -> None:
    config = resolve(ws, {"provider": "groq"}, {"GROQ_API_KEY": "gsk-1"})
    assert (config.provider, config.base_url, config.api_key) == ("groq", "https://api.groq.com/openai/v1", "gsk-1")
    assert config.model == PRESETS["groq"].default_model and config.model_source == "the groq preset's default"
    assert config.key_source == "the environment variable GROQ_API_KEY"
    assert config.context_window == PRESETS["groq"].context_window


def test_flags_beat_the_project_config_which_beats_the_user_config(ws: Path, tmp_path: Path) -> None:
    user = tmp_path / "user.toml"
    user.write_text('provider = "openrouter"\nmodel = "user-model"\n')
    env = {"OPENAI_API_KEY": "sk-1", "OPENROUTER_API_KEY": "or-1", "GROQ_API_KEY": "gsk-1"}
    assert resolve(ws, env=env, user_config=user).provider == "openrouter"
    project_config(ws, 'provider = "openai"\n')
    config = resolve(ws, env=env, user_config=user)
    assert (config.provider, config.model) == ("openai", "user-model")
    config = resolve(ws, {"provider": "groq", "model": "flag-model"}, env, user_config=user)
    assert (config.provider, config.model, config.model_source) == ("groq", "flag-model", "command-line flags")


def test_without_configuration_an_api_key_in_the_environment_picks_the_provider(ws: Path) -> None:
    assert resolve(ws, env={"OPENROUTER_API_KEY": "or-1"}).provider == "openrouter"
    assert resolve(ws, env={"OPENROUTER_API_KEY": "or-1", "GROQ_API_KEY": "gsk-1"}).provider == "groq"


def test_a_configured_provider_beats_keys_in_the_environment(ws: Path) -> None:
    with ScriptedServer({"steps": [], "models": ["qwen2.5-coder:14b"]}) as server:
        project_config(ws, f'provider = "ollama"\nbase_url = "{server.base_url}"\n')
        config = resolve(ws, env={"GROQ_API_KEY": "gsk-1"})
    assert config.provider == "ollama" and config.model == "qwen2.5-coder:14b"
    assert config.api_key == PLACEHOLDER_KEY and config.local


def test_a_local_server_answering_on_its_default_port_is_used_with_its_first_model(ws: Path) -> None:
    with ScriptedServer({"steps": [], "models": ["llama3.1:8b", "qwen3:4b"]}) as server:
        dead = replace(PRESETS["lmstudio"], base_url="http://127.0.0.1:9/v1")
        alive = replace(PRESETS["ollama"], base_url=server.base_url)
        config = resolve(ws, local=(dead, alive))
    assert (config.provider, config.base_url, config.model) == ("ollama", server.base_url, "llama3.1:8b")
    assert config.api_key == PLACEHOLDER_KEY, "the SDK refuses an empty key"
    assert "placeholder" in config.key_source and config.model_source.startswith("the first model")


def test_the_local_probe_ignores_a_proxy_in_the_environment(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.delenv("no_proxy", raising=False)
    with ScriptedServer({"steps": [], "models": ["local-model"]}) as server:
        config = resolve(ws, local=(replace(PRESETS["llamacpp"], base_url=server.base_url),))
    assert config.model == "local-model"


def test_with_nothing_configured_the_error_says_how_to_set_a_provider_up(ws: Path) -> None:
    dead = replace(PRESETS["ollama"], base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError) as exc:
        resolve(ws, local=(dead,))
    message = str(exc.value)
    for needle in ("GROQ_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "ollama serve", "--base-url",
                   ".sneakycode/config.toml", 'provider = "groq"'):
        assert needle in message


def test_a_hosted_provider_without_a_key_names_the_variable_and_where_to_get_one(ws: Path) -> None:
    with pytest.raises(ConfigError, match=r"export GROQ_API_KEY=YOUR_KEY or pass --api-key.*console\.groq\.com"):
        resolve(ws, {"provider": "groq"})


def test_the_api_key_flag_wins_and_is_named_as_the_source(ws: Path) -> None:
    config = resolve(ws, {"provider": "openai"}, {"OPENAI_API_KEY": "from-env"}, key="from-flag")
    assert config.api_key == "from-flag" and config.key_source == "the --api-key flag"


def test_an_api_key_flag_without_a_provider_is_refused(ws: Path) -> None:
    with pytest.raises(ConfigError, match="--api-key was given without a provider"):
        resolve(ws, key="sk-1", env={"GROQ_API_KEY": "gsk"})


def test_api_key_env_names_the_variable_and_a_missing_one_is_reported_with_its_origin(ws: Path) -> None:
    project_config(ws, 'provider = "openai"\napi_key_env = "WORK_OPENAI_KEY"\n')
    config = resolve(ws, env={"WORK_OPENAI_KEY": "sk-work", "OPENAI_API_KEY": "sk-home"})
    assert config.api_key == "sk-work" and "WORK_OPENAI_KEY" in config.key_source
    with pytest.raises(ConfigError, match=r"config\.toml: api_key_env names WORK_OPENAI_KEY, but"):
        resolve(ws, env={"OPENAI_API_KEY": "sk-home"})


def test_an_unknown_provider_lists_the_presets(ws: Path) -> None:
    with pytest.raises(ConfigError, match="flags: unknown provider 'anthropic'; choose one of groq, openai"):
        resolve(ws, {"provider": "anthropic"})


def test_custom_needs_a_base_url(ws: Path) -> None:
    with pytest.raises(ConfigError, match="needs a base_url: pass --base-url"):
        resolve(ws, {"provider": "custom"})


def test_a_base_url_alone_means_custom_and_asks_the_server_for_a_model(ws: Path) -> None:
    with ScriptedServer({"steps": [], "models": ["served-model"]}) as server:
        config = resolve(ws, {"base_url": server.base_url + "/", "context_window": 16384})
    assert (config.provider, config.base_url, config.model) == ("custom", server.base_url, "served-model")
    assert config.context_window == 16384


def test_a_local_provider_that_is_not_running_and_has_no_model_says_how_to_start_it(ws: Path) -> None:
    with pytest.raises(ConfigError, match=r"did not list any.*--model NAME.*llama-server"):
        resolve(ws, {"provider": "llamacpp", "base_url": "http://127.0.0.1:9/v1"})


def test_timeouts_retries_and_backoff_come_from_settings(ws: Path) -> None:
    flags = {"provider": "openai", "request_timeout": 7.5, "max_retries": 1, "retry_backoff": 0.25}
    config = resolve(ws, flags, {"OPENAI_API_KEY": "sk-secret-123"})
    assert (config.request_timeout, config.max_retries, config.retry_backoff) == (7.5, 1, 0.25)
    assert "sk-secret-123" not in repr(config), "the key is kept out of reprs and logs"


def test_resolving_a_provider_does_not_import_the_openai_sdk() -> None:
    code = (
        "import sys; from sneakycode.agent.model import providers; "
        "from sneakycode.faces.cli.main import main; main(['tool', '--list']); "
        "assert 'openai' not in sys.modules, 'openai imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
