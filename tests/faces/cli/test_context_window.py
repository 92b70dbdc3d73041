"""End to end: `sneakycode -p` asks the server for its real context window, and stops when the server cut
the prompt (issue 12: Ollama silently truncates a prompt longer than its window from the front)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.faces.cli.test_headless import ENV, finish


def run(server: ScriptedServer, ws: Path, *flags: str) -> tuple[int, str, str]:
    result = run_cli(
        "-p", "Say done.", "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws),
        "--verbose", *flags, env=ENV,
    )
    return result.code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("kind", "source"),
    [
        ("ollama", "Ollama /api/show num_ctx"),
        ("llamacpp", "llama.cpp /props n_ctx"),
        ("vllm", "vLLM /v1/models max_model_len"),
        ("lmstudio", "LM Studio /api/v0/models loaded_context_length"),
    ],
)
def test_verbose_names_the_window_each_server_kind_reports(ws: Path, kind: str, source: str) -> None:
    with ScriptedServer({"steps": [finish("done")], "server_kind": kind, "context_window": 6144}) as server:
        code, _, stderr = run(server, ws)
    assert code == 0, stderr
    assert f"context window 6144 tokens, from the server ({source})" in stderr


def test_a_local_server_without_info_endpoints_gets_the_common_local_window(ws: Path) -> None:
    """Regression (tried against llama-cpp-python's server, which reports its 8k window nowhere): the custom
    preset's 32,768 was assumed, so every request allowed a 4,096-token reply on an 8k server."""
    with ScriptedServer({"steps": [finish("done")]}) as server:
        code, _, stderr = run(server, ws)
        sent = server.chat_requests[0]
    assert code == 0, stderr
    assert "context window 8192 tokens, from a guess: this local server reports no window" in stderr
    assert sent["max_tokens"] == 2048


def test_a_configured_window_wins_over_the_server(ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    with ScriptedServer({"steps": [finish("done")], "server_kind": "llamacpp", "context_window": 4096}) as server:
        result = run_cli(
            "-p", "Say done.", "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws),
            "--verbose", env={**ENV, "SNEAKYCODE_CONTEXT_WINDOW": "20000"},
        )
        asked = [r.path for r in server.requests]
    assert result.code == 0, result.stderr
    assert "context window 20000 tokens, from configured" in result.stderr
    assert "/props" not in asked


def test_a_prompt_the_server_cut_stops_the_run_with_context_truncated(ws: Path) -> None:
    """Regression (ollama #18107): a prompt cut from the front used to reach the model without its system
    prompt and tools, and the run went on; now it stops before the reply is used, saying how to fix it."""
    script = {"steps": [finish("done"), finish("done")], "server_kind": "ollama", "context_window": 8192,
              "prompt_tokens": 600}
    with ScriptedServer(script) as server:
        code, stdout, stderr = run(server, ws)
        played = len(server.chat_requests)
    assert code == 1
    assert stdout == ""
    assert "[context_truncated]" in stderr and "read only 600 prompt tokens" in stderr
    assert "context window (8192 tokens, from the server (Ollama /api/show num_ctx))" in stderr
    assert "OLLAMA_CONTEXT_LENGTH" in stderr and "--ctx-size" in stderr and "--max-model-len" in stderr
    assert played == 1
