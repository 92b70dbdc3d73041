"""The exact fixes a doctor names, per server software: the flag, environment variable or setting that turns
the missing behaviour on. `kind` is the server kind the window discovery found ("" when unknown: then every
common server's fix is named, since the same port may be served by any of them)."""

from __future__ import annotations

# Our dialect names where vLLM's --tool-call-parser calls the same format differently.
_VLLM_PARSER = {"harmony": "openai", "json": "hermes", "functools": "phi4_mini_json", "functionary_v3": "hermes"}


def vllm_parser(dialect: str | None) -> str:
    """vLLM's --tool-call-parser for a dialect (ours are named after vLLM's where it has one)."""
    if not dialect:
        return "PARSER (the one for the model's family, see vLLM's tool-calling docs)"
    return _VLLM_PARSER.get(dialect, dialect)


def window_fix(kind: str, tokens: int) -> str:
    """How to give the server a window of `tokens`."""
    fixes = {
        "ollama": f"OLLAMA_CONTEXT_LENGTH={tokens} ollama serve (or PARAMETER num_ctx {tokens} in the model's "
        "Modelfile)",
        "llamacpp": f"llama-server --ctx-size {tokens}",
        "vllm": f"vllm serve MODEL --max-model-len {tokens}",
        "lmstudio": f"lms load MODEL --context-length {tokens} (or the context length when loading it)",
        "llama-cpp-python": f"python -m llama_cpp.server --n_ctx {tokens}",
    }
    return fixes.get(kind) or "; ".join(f"{name}: {fix}" for name, fix in fixes.items())


def tool_parser_fix(kind: str, dialect: str | None) -> str:
    """How to make the server turn the model's tool calls into `tool_calls`."""
    fixes = {
        "vllm": f"vllm serve MODEL --enable-auto-tool-choice --tool-call-parser {vllm_parser(dialect)}",
        "llamacpp": "llama-server --jinja (with a chat template that renders tools: the model's own, or "
        "--chat-template-file)",
        "ollama": "a model whose template handles tools (`ollama show MODEL --template` mentions .Tools); "
        "update Ollama",
        "lmstudio": "a model LM Studio marks for native tool use, or its chat template fixed in the model settings",
        "llama-cpp-python": "python -m llama_cpp.server --chat_format chatml-function-calling (or functionary-v2 "
        "with a Functionary model)",
    }
    return fixes.get(kind) or "; ".join(f"{name}: {fix}" for name, fix in fixes.items())


def orphan_fragments_fix(kind: str) -> str:
    """The upgrade for a server that streams the rest of a call's arguments under a new index, nameless."""
    upgrades = {
        "vllm": "pip install -U vllm (its streaming tool parser for the model's family, fixed upstream)",
        "llamacpp": "a current llama.cpp build (llama-server --jinja)",
        "ollama": "update Ollama",
        "lmstudio": "update LM Studio",
        "llama-cpp-python": "pip install -U llama-cpp-python",
    }
    how = upgrades.get(kind, "update the server")
    return (f"upgrade the server: {how}. It streams a call's later argument fragments under a new index without "
            "the call's id or name (a server fault); SneakyCode repairs it, but only while the arguments are "
            "still incomplete JSON")


def cache_fix(kind: str, hosted: bool) -> str:
    if hosted:
        return "nothing to set: the provider decides which models and prompts it caches"
    fixes = {
        "llamacpp": "llama-server keeps it per slot: run one slot (--parallel 1) or add --cache-reuse 256; "
        "SneakyCode already sends cache_prompt",
        "vllm": "vllm serve MODEL --enable-prefix-caching",
        "ollama": "OLLAMA_NUM_PARALLEL=1 ollama serve (SneakyCode already asks for keep_alive 30m)",
        "lmstudio": "keep the model loaded (no JIT unloading); LM Studio reuses the prompt by itself",
        "llama-cpp-python": "python -m llama_cpp.server --cache true",
    }
    return fixes.get(kind) or "; ".join(f"{name}: {fix}" for name, fix in fixes.items())


def usage_fix(kind: str) -> str:
    fixes = {
        "vllm": "vllm serve MODEL --enable-force-include-usage",
        "llamacpp": "a llama.cpp build from 2025 or later (it sends usage on the last chunk)",
        "ollama": "Ollama 0.5 or later (stream_options.include_usage)",
        "lmstudio": "LM Studio 0.3.10 or later",
        "llama-cpp-python": "none: llama-cpp-python's server sends no usage while streaming; SneakyCode's "
        "estimate stands in",
    }
    return fixes.get(kind, "a server that honours stream_options.include_usage (upgrade it)")
