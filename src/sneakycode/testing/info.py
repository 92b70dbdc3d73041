"""The scripted server's model listing and the info endpoints of the server kinds it can play (Ollama,
llama.cpp, vLLM, LM Studio), shaped as those servers answer, so context-window discovery is tested end to end."""

from __future__ import annotations

from typing import Any

from sneakycode.testing.script import Script


def info_reply(script: Script, method: str, path: str) -> Any:
    """The server kind's info endpoint (see `script.SERVER_KINDS`), or None when this is not one."""
    window, route = script.context_window, (method, path.rstrip("/"))
    if script.server_kind == "ollama" and route == ("POST", "/api/show"):
        return {"parameters": f"num_ctx                        {window}\nstop \"<|im_end|>\"",
                "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 131072}}
    if script.server_kind == "llamacpp" and route == ("GET", "/props"):
        return {"default_generation_settings": {"n_ctx": window}, "total_slots": 1}
    if script.server_kind == "lmstudio" and route == ("GET", "/api/v0/models"):
        return {"object": "list", "data": [
            {"id": m, "object": "model", "type": "llm", "state": "loaded", "max_context_length": 131072,
             "loaded_context_length": window} for m in script.offered_models()]}
    return None


def models_reply(script: Script) -> dict[str, Any]:
    """`GET /models`: the offered models (vLLM adds each one's `max_model_len`)."""
    data: list[dict[str, Any]] = [
        {"id": m, "object": "model", "created": 0, "owned_by": "scripted"} for m in script.offered_models()
    ]
    if script.server_kind == "vllm":
        data = [{**entry, "max_model_len": script.context_window} for entry in data]
    return {"object": "list", "data": data}
