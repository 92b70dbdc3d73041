"""The context window the server really runs, asked once at start.

Local servers often run a window far smaller than the model was trained for (Ollama's default `num_ctx`)
and cut a longer prompt from the front without saying so. Each server kind tells its window its own way:

- Ollama: `POST /api/show` -> `parameters` `num_ctx` (the running window), else `model_info`
  `<arch>.context_length` capped at Ollama's default `num_ctx`;
- llama.cpp: `GET /props` -> `default_generation_settings.n_ctx` (or a top-level `n_ctx`);
- vLLM: `GET /v1/models` -> the model's `max_model_len`;
- LM Studio: `GET /api/v0/models` -> the model's `loaded_context_length`.

The probes run together, each bounded by a short timeout; a server that answers none of them keeps the
preset's window. Nothing here is fatal.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlparse

from sneakycode.agent.model.providers import LOOPBACK_HOSTS

WINDOW_PROBE_TIMEOUT = 1.0
OLLAMA_DEFAULT_NUM_CTX = 4096
"""What Ollama runs when neither the model nor OLLAMA_CONTEXT_LENGTH sets `num_ctx` (recent releases)."""


@dataclass(frozen=True)
class DiscoveredWindow:
    tokens: int
    source: str
    """Which server kind and field told it, for --verbose and error messages."""
    kind: str = ""
    """The server kind that answered (a key of PROBES)."""


def _server_root(base_url: str) -> str:
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def _get_json(url: str, api_key: str | None, timeout: float, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    request.add_header("Content-Type", "application/json")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    handlers = [urllib.request.ProxyHandler({})] if urlparse(url).hostname in LOOPBACK_HOSTS else []
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout) as response:
        return json.loads(response.read())


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _model_entry(payload: Any, model: str) -> dict[str, Any] | None:
    data = payload.get("data") if isinstance(payload, dict) else None
    entries = [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []
    return next((e for e in entries if e.get("id") == model), entries[0] if len(entries) == 1 else None)


def _ollama(base_url: str, model: str, api_key: str | None, timeout: float) -> DiscoveredWindow | None:
    payload = _get_json(f"{_server_root(base_url)}/api/show", api_key, timeout, {"model": model})
    if not isinstance(payload, dict) or not isinstance(payload.get("model_info"), dict):
        return None
    info = payload["model_info"]
    trained = _positive(info.get(f"{info.get('general.architecture')}.context_length")) or next(
        (_positive(v) for k, v in info.items() if str(k).endswith(".context_length") and _positive(v)), None
    )
    for line in str(payload.get("parameters") or "").splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return DiscoveredWindow(int(value), "the server (Ollama /api/show num_ctx)")
    if trained is None:
        return None
    return DiscoveredWindow(
        min(trained, OLLAMA_DEFAULT_NUM_CTX), "the server (Ollama /api/show: no num_ctx, so Ollama's default)"
    )


def _llamacpp(base_url: str, model: str, api_key: str | None, timeout: float) -> DiscoveredWindow | None:
    payload = _get_json(f"{_server_root(base_url)}/props", api_key, timeout)
    if not isinstance(payload, dict):
        return None
    settings = payload.get("default_generation_settings")
    n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    n_ctx = n_ctx or _positive(payload.get("n_ctx"))
    return DiscoveredWindow(n_ctx, "the server (llama.cpp /props n_ctx)") if n_ctx else None


def _vllm(base_url: str, model: str, api_key: str | None, timeout: float) -> DiscoveredWindow | None:
    entry = _model_entry(_get_json(f"{base_url.rstrip('/')}/models", api_key, timeout), model)
    length = _positive(entry.get("max_model_len")) if entry else None
    return DiscoveredWindow(length, "the server (vLLM /v1/models max_model_len)") if length else None


def _lmstudio(base_url: str, model: str, api_key: str | None, timeout: float) -> DiscoveredWindow | None:
    entry = _model_entry(_get_json(f"{_server_root(base_url)}/api/v0/models", api_key, timeout), model)
    length = _positive(entry.get("loaded_context_length")) if entry else None
    return DiscoveredWindow(length, "the server (LM Studio /api/v0/models loaded_context_length)") if length else None


Probe = Callable[[str, str, "str | None", float], "DiscoveredWindow | None"]
PROBES: dict[str, Probe] = {"ollama": _ollama, "llamacpp": _llamacpp, "vllm": _vllm, "lmstudio": _lmstudio}


def discover_context_window(
    base_url: str, model: str, api_key: str | None, *, provider: str = "custom", timeout: float = WINDOW_PROBE_TIMEOUT
) -> DiscoveredWindow | None:
    """The window the server at `base_url` reports for `model`, or None when no known info endpoint answers.

    All four kinds are asked at once; the provider's own kind is preferred when several answer.
    """
    order = sorted(PROBES, key=lambda kind: kind != provider)

    def ask(kind: str) -> DiscoveredWindow | None:
        try:
            found = PROBES[kind](base_url, model, api_key, timeout)
        except (OSError, ValueError):
            return None
        return replace(found, kind=kind) if found is not None else None

    with ThreadPoolExecutor(max_workers=len(order)) as pool:
        answers = list(pool.map(ask, order))
    return next((answer for answer in answers if answer is not None), None)
