"""Which endpoint, model and key to use: provider presets and the resolution order.

Order: flags > project config > user config (all already merged into Settings, with origins) > an API key
in the environment (GROQ_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY) > a local server answering on its
default port > a ConfigError that says how to set one up. Nothing here imports the openai SDK, so resolving
(and failing to resolve) stays cheap; the short probes use urllib.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from sneakycode.agent.model.families import supports_images_for
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError
from sneakycode.process.environment import full_environment

PLACEHOLDER_KEY = "sneakycode-no-key"
PROBE_TIMEOUT = 0.3
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


@dataclass(frozen=True)
class ProviderPreset:
    name: str
    base_url: str | None
    api_key_env: str | None
    default_model: str | None
    context_window: int
    local: bool = False
    help: str = ""
    """Where to get a key, or how to start the server; quoted in error messages."""


PRESETS: dict[str, ProviderPreset] = {
    p.name: p
    for p in (
        ProviderPreset("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", "openai/gpt-oss-120b", 131_072,
                       help="get a key at https://console.groq.com/keys"),
        ProviderPreset("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4.1-mini", 1_047_576,
                       help="get a key at https://platform.openai.com/api-keys"),
        ProviderPreset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", "openai/gpt-oss-120b",
                       131_072, help="get a key at https://openrouter.ai/keys"),
        ProviderPreset("ollama", "http://127.0.0.1:11434/v1", None, None, 8_192, local=True,
                       help="start it with `ollama serve` and pull a model: `ollama pull qwen2.5-coder:14b`"),
        ProviderPreset("lmstudio", "http://127.0.0.1:1234/v1", None, None, 8_192, local=True,
                       help="start it with `lms server start` (or in LM Studio's Developer tab) and load a model"),
        ProviderPreset("llamacpp", "http://127.0.0.1:8080/v1", None, None, 8_192, local=True,
                       help="start it with `llama-server -m MODEL.gguf --jinja` (--jinja enables tool calls)"),
        ProviderPreset("vllm", "http://127.0.0.1:8000/v1", None, None, 32_768, local=True,
                       help="start it with `vllm serve MODEL --enable-auto-tool-choice --tool-call-parser NAME`"),
        ProviderPreset("custom", None, None, None, 32_768,
                       help="set base_url to the server's OpenAI-compatible endpoint (it usually ends in /v1)"),
    )
}
KEY_PRESETS = tuple(PRESETS[name] for name in ("groq", "openai", "openrouter"))
KEY_PROVIDERS = frozenset(preset.name for preset in KEY_PRESETS)
"""Hosted providers, whose `help` says where to get a key."""
LOCAL_PRESETS = tuple(p for p in PRESETS.values() if p.local)

SETUP_HELP = """no model provider is configured. Choose one:
  Groq        export GROQ_API_KEY=...        (https://console.groq.com/keys)
  OpenAI      export OPENAI_API_KEY=...      (https://platform.openai.com/api-keys)
  OpenRouter  export OPENROUTER_API_KEY=...  (https://openrouter.ai/keys)
  local       start Ollama (`ollama serve`), LM Studio, llama.cpp (`llama-server --jinja`) or vLLM on its
              default port, or pass --base-url http://HOST:PORT/v1 --model NAME
or name it on the command line (--provider groq --model NAME) or in .sneakycode/config.toml or
~/.config/sneakycode/config.toml:
  provider = "groq"
  model = "openai/gpt-oss-120b\""""


@dataclass(frozen=True)
class ModelConfig:
    """Everything the client needs for one endpoint, plus where each choice came from (for error messages)."""

    provider: str
    base_url: str
    model: str
    api_key: str = field(repr=False)
    key_source: str = "the --api-key flag"
    model_source: str = "command-line flags"
    context_window: int = 32_768
    context_window_source: str = "the default"
    """Where `context_window` came from: the config, the server (see `window`), or the preset."""
    request_timeout: float = 120.0
    max_output_tokens: int | None = None
    """The configured reply cap; None: `output_cap` picks one from the window."""
    stream_idle_timeout: float = 120.0
    """Seconds a started reply may send nothing before it is given up: the stall_timeout setting (or its older
    name, stream_idle_timeout)."""
    max_retries: int = 4
    retry_backoff: float = 1.0
    local: bool = False
    help: str = ""
    supports_images: bool = False
    """Whether the model takes images: the supports_images setting, else the known-vision-model table."""
    server_kind: str = ""
    """The local server software (llamacpp, ollama, vllm, lmstudio): the local preset's, else the one whose
    info endpoint answered when the window was asked (see `window`); "" when unknown or hosted."""
    reasoning_history: str = "auto"
    """The reasoning_history setting: which replies' reasoning goes back (agent/model/reasoning_policy.py)."""
    reasoning_effort: str | None = None
    """The reasoning_effort setting (low, medium, high), sent the way the model's family takes it."""
    client: str = "builtin"
    """The model_client setting: `builtin` (the thin client on httpx2) or `openai-sdk` (agent/model/client.py)."""


HOSTED_OUTPUT_CAP = 16_384
LOCAL_OUTPUT_CAP = 4_096


def output_cap(config: ModelConfig) -> int:
    """The max_tokens every request carries: the configured one, else (local and custom servers) a quarter of
    the window up to 4,096, so a rambling model cannot fill its whole context; hosted presets 16,384."""
    if config.max_output_tokens:
        return config.max_output_tokens
    if config.local or config.provider == "custom":
        return max(256, min(LOCAL_OUTPUT_CAP, config.context_window // 4))
    return HOSTED_OUTPUT_CAP


OLLAMA_KEEP_ALIVE = "30m"
"""How long Ollama is asked to keep the model (and so its prompt cache) loaded after each request; its own
default is 5 minutes (OLLAMA_KEEP_ALIVE), short enough that a user who reads a diff for a while finds the
whole conversation evaluated again."""


def cache_request_fields(config: ModelConfig) -> dict[str, Any]:
    """The non-standard request fields that ask this server to keep what it has read, sent only to the server
    kind that defines them (others may reject unknown fields): llama.cpp `cache_prompt: true` (its default
    since late 2024, but older builds default to false), Ollama `keep_alive`. See docs/providers.md."""
    if config.server_kind == "llamacpp":
        return {"cache_prompt": True}
    if config.server_kind == "ollama":
        return {"keep_alive": OLLAMA_KEEP_ALIVE}
    return {}


def list_models(base_url: str, api_key: str | None, timeout: float) -> list[str]:
    """The model ids `GET {base_url}/models` offers; raises OSError or ValueError if it does not answer so."""
    request = urllib.request.Request(f"{base_url}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    handlers = [urllib.request.ProxyHandler({})] if urlparse(base_url).hostname in LOOPBACK_HOSTS else []
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout) as response:
        payload = json.loads(response.read())
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise ValueError("the answer has no `data` list")
    return [str(m["id"]) for m in data if isinstance(m, dict) and "id" in m]


def probe_local_servers(
    presets: Sequence[ProviderPreset], timeout: float = PROBE_TIMEOUT
) -> tuple[ProviderPreset, list[str]] | None:
    """The first preset (in the given order) whose server answers /models, with the models it lists."""

    def probe(preset: ProviderPreset) -> list[str] | None:
        try:
            return list_models(str(preset.base_url), None, timeout)
        except (OSError, ValueError):
            return None

    if not presets:
        return None
    with ThreadPoolExecutor(max_workers=len(presets)) as pool:
        answers = list(pool.map(probe, presets))
    for preset, models in zip(presets, answers, strict=True):
        if models is not None:
            return preset, models
    return None


def _preset(name: str, origin: str) -> ProviderPreset:
    if name not in PRESETS:
        raise ConfigError(f"{origin}: unknown provider {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]


def _api_key(
    preset: ProviderPreset, loaded: LoadedSettings, environ: Mapping[str, str], flag: str | None
) -> tuple[str, str]:
    if flag:
        return flag, "the --api-key flag"
    env_name = loaded.settings.api_key_env
    if env_name:
        origin = loaded.origin_of("api_key_env")
        if not environ.get(env_name):
            raise ConfigError(f"{origin}: api_key_env names {env_name}, but that environment variable is not set")
        return environ[env_name], f"the environment variable {env_name} (api_key_env, from {origin})"
    if preset.api_key_env and environ.get(preset.api_key_env):
        return environ[preset.api_key_env], f"the environment variable {preset.api_key_env}"
    if preset.api_key_env is None:
        return PLACEHOLDER_KEY, "nowhere (no key is configured, so a placeholder was sent)"
    raise ConfigError(
        f"provider {preset.name} needs an API key: export {preset.api_key_env}=YOUR_KEY or pass --api-key "
        f"({preset.help})"
    )


def _model(
    preset: ProviderPreset, loaded: LoadedSettings, base_url: str, api_key: str, offered: list[str] | None
) -> tuple[str, str]:
    if loaded.settings.model:
        return loaded.settings.model, loaded.origin_of("model")
    if preset.default_model and not loaded.settings.base_url:
        return preset.default_model, f"the {preset.name} preset's default"
    if offered is None:
        try:
            offered = list_models(base_url, api_key, max(PROBE_TIMEOUT, 2.0))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"no model is configured and {base_url}/models did not list any ({exc}); pass --model NAME or set "
                f'model = "NAME" in the config' + (f"; {preset.help}" if preset.help else "")
            ) from None
    if not offered:
        raise ConfigError(f"{base_url}/models lists no model; load one on the server ({preset.help}) or pass --model")
    return offered[0], f"the first model {base_url}/models lists"


def resolve_model_config(
    loaded: LoadedSettings,
    api_key_flag: str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    local_presets: Sequence[ProviderPreset] = LOCAL_PRESETS,
) -> ModelConfig:
    """Pick provider, endpoint, model and key; raises ConfigError saying exactly what to set when it cannot."""
    settings = loaded.settings
    env = full_environment() if environ is None else environ  # keys were moved out of os.environ at start
    offered: list[str] | None = None
    if settings.provider or settings.base_url:
        preset = _preset(settings.provider or "custom", loaded.origin_of("provider"))
        base_url = settings.base_url or preset.base_url
        if not base_url:
            raise ConfigError(
                f"provider custom (from {loaded.origin_of('provider')}) needs a base_url: pass --base-url "
                'http://HOST:PORT/v1 or set base_url = "..." in the config'
            )
    elif api_key_flag:
        raise ConfigError("--api-key was given without a provider; add --provider NAME or --base-url URL")
    else:
        keyed = next((p for p in KEY_PRESETS if p.api_key_env and env.get(p.api_key_env)), None)
        if keyed is not None:
            preset = keyed
        else:
            probed = probe_local_servers(local_presets)
            if probed is None:
                raise ConfigError(SETUP_HELP)
            preset, offered = probed
        base_url = str(preset.base_url)
    base_url = base_url.rstrip("/")
    api_key, key_source = _api_key(preset, loaded, env, api_key_flag)
    model, model_source = _model(preset, loaded, base_url, api_key, offered)
    return ModelConfig(
        provider=preset.name,
        base_url=base_url,
        model=model,
        api_key=api_key,
        key_source=key_source,
        model_source=model_source,
        context_window=settings.context_window or preset.context_window,
        context_window_source=(
            f"configured ({loaded.origin_of('context_window')})"
            if settings.context_window
            else f"the {preset.name} preset"
        ),
        request_timeout=settings.request_timeout,
        max_output_tokens=settings.max_output_tokens,
        stream_idle_timeout=settings.stall_timeout or settings.stream_idle_timeout,  # one setting, two names
        max_retries=settings.max_retries,
        retry_backoff=settings.retry_backoff,
        local=preset.local,
        server_kind=preset.name if preset.local else "",
        help=preset.help,
        supports_images=supports_images_for(model, settings.supports_images),
        reasoning_history=settings.reasoning_history,
        reasoning_effort=settings.reasoning_effort,
        client=settings.model_client,
    )
