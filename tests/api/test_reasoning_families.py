"""Each model family's reasoning kept the way it was trained, against a scripted server playing that family's
documented contract (sneakycode/testing/contracts.py), through `sneakycode.Session` in process: a chain of
three tool calls completes under the family's default policy and fails under the wrong one; whatever the
policy, each request's messages are a byte prefix of the next one's (the prompt cache keeps them)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC


def _step(reasoning: str, minimax: bool, **reply: Any) -> dict[str, Any]:
    if minimax:  # MiniMax M2 writes its thinking into the content
        return {**reply, "content": f"<think>{reasoning}</think>\n{reply.get('content', '')}"}
    return {**reply, "reasoning": reasoning}


def chain_steps(minimax: bool = False) -> list[dict[str, Any]]:
    """Three tool calls, a final answer, and the answer to a second request."""
    def tools(name: str, **arguments: Any) -> dict[str, Any]:
        return {"tool_calls": [{"name": name, "arguments": arguments}]}

    return [
        _step("I should read calc.py first.", minimax, **tools("read_file", file_path="calc.py")),
        _step("add subtracts: fix the operator.", minimax,
              **tools("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b")),
        _step("Check the edit landed.", minimax, **tools("read_file", file_path="calc.py")),
        _step("It adds now; say so.", minimax, content="Fixed add."),
        _step("A short answer will do.", minimax, content="It returns a + b."),
    ]


def run_chain(server: ScriptedServer, repo: Path, model: str, **settings: Any) -> tuple[list[Any], list[str]]:
    """Both requests' results, and the reasoning the user saw, in order."""
    seen: list[str] = []
    options = sneakycode.Options(
        workspace=repo, base_url=server.base_url, model=model, api_key="k", isolated=True, mode="auto-edit",
        settings={"retry_backoff": 0.01, "max_retries": 0, **settings},
        on_event=lambda e: seen.append(str(e["text"])) if e["type"] == "reasoning" else None,
    )
    with sneakycode.Session(options) as session:
        results = [session.run("fix add"), session.run("what does add return?")]
    return results, seen


FAMILIES = [  # model, the contract its API plays, the wrong policy
    ("kimi-k2-thinking", "kimi", "drop"),
    ("deepseek-r1-0528", "deepseek", "keep"),
    ("deepseek-v3.2", "chain", "drop"),
    ("gpt-oss-120b", "chain", "drop"),
    ("glm-4.7", "chain", "drop"),
    ("glm-4.5-air", "chain", "drop"),
    ("qwen3-32b", "chain", "drop"),
    ("MiniMax-M2", "minimax", "drop"),
]


@pytest.mark.parametrize(("model", "contract", "wrong"), FAMILIES)
def test_a_three_call_chain_completes_under_the_familys_default_policy(
    repo: Path, model: str, contract: str, wrong: str
) -> None:
    with ScriptedServer({"steps": chain_steps(contract == "minimax"), "reasoning_contract": contract}) as server:
        results, seen = run_chain(server, repo, model)
    assert [r.status for r in results] == ["answered", "answered"], [r.message for r in results]
    assert results[0].message == "Fixed add." and (repo / "calc.py").read_text() == CALC.replace("-", "+")
    assert len(seen) == 5  # the model kept thinking on every reply


@pytest.mark.parametrize(("model", "contract", "wrong"), FAMILIES)
def test_the_wrong_policy_breaks_the_familys_contract(repo: Path, model: str, contract: str, wrong: str) -> None:
    with ScriptedServer({"steps": chain_steps(contract == "minimax"), "reasoning_contract": contract}) as server:
        results, seen = run_chain(server, repo, model, model_settings={model: {"reasoning_history": wrong}})
    if contract == "minimax":  # no error: the model silently stops thinking after its first call
        assert seen == ["I should read calc.py first."]
    else:
        assert results[0].status == "error" and "reasoning_content" in results[0].message


@pytest.mark.parametrize("policy", ["drop", "chain", "keep"])
def test_each_request_is_a_byte_prefix_of_the_next_under_every_policy(repo: Path, policy: str) -> None:
    with ScriptedServer({"steps": chain_steps()}) as server:
        results, _ = run_chain(server, repo, "qwen3-32b", reasoning_history=policy)
        requests = server.chat_requests
    assert [r.status for r in results] == ["answered", "answered"]
    sent = [json.dumps(r["messages"], separators=(",", ":")) for r in requests]
    for earlier, later in itertools.pairwise(sent):
        assert later.startswith(earlier[:-1] + ","), "an earlier message was rewritten"
    assistants = [m for m in requests[-1]["messages"] if m["role"] == "assistant"]
    kept = ["reasoning_content" in m for m in assistants]
    assert kept == {"drop": [False] * 4, "chain": [True, True, True, False], "keep": [True] * 4}[policy]


def test_minimax_keeps_its_think_blocks_in_the_content(repo: Path) -> None:
    with ScriptedServer({"steps": chain_steps(minimax=True), "reasoning_contract": "minimax"}) as server:
        run_chain(server, repo, "MiniMax-M2.5")
        last = server.chat_requests[-1]["messages"]
    contents = [m["content"] for m in last if m["role"] == "assistant"]
    assert contents[0] == "<think>\nI should read calc.py first.\n</think>\n\n"
    assert contents[3] == "<think>\nIt adds now; say so.\n</think>\n\nFixed add."


@pytest.mark.parametrize(
    ("model", "provider", "expected"),
    [
        ("gpt-oss-20b", None, {"system_line": "Reasoning: high"}),
        ("qwen3-32b", None, {"chat_template_kwargs": {"enable_thinking": True}}),
        ("deepseek-v4-pro", None, {"reasoning_effort": "high"}),
        ("deepseek-r1", None, {}),
        ("MiniMax-M2", None, {}),
        ("o4-mini", "openai", {"reasoning_effort": "high"}),
    ],
)
def test_the_reasoning_effort_is_sent_the_way_the_family_takes_it(
    repo: Path, model: str, provider: str | None, expected: dict[str, Any]
) -> None:
    with ScriptedServer({"steps": [{"content": "Hi."}]}) as server:
        options = sneakycode.Options(workspace=repo, base_url=server.base_url, provider=provider, model=model,
                                     api_key="k", isolated=True, reasoning_effort="high")
        with sneakycode.Session(options) as session:
            assert session.run("hello").status == "answered"
        body = server.chat_requests[0]
    line = expected.pop("system_line", None)
    assert body["messages"][0]["content"].endswith("\n\nReasoning: high") == (line is not None)
    effort_keys = {"reasoning_effort", "chat_template_kwargs"}
    assert {k: v for k, v in body.items() if k in effort_keys} == expected


def test_reasoning_goes_back_in_the_field_it_arrived_in(repo: Path) -> None:
    """Groq and vLLM send gpt-oss's analysis as `reasoning`, and Groq refuses `reasoning_content` with a 400
    ("property 'reasoning_content' is unsupported"): it is sent back as it came."""
    steps = [{**step, "reasoning_field": "reasoning"} if "reasoning" in step else step for step in chain_steps()]
    with ScriptedServer({"steps": steps}) as server:
        results, _ = run_chain(server, repo, "openai/gpt-oss-120b")
        last = server.chat_requests[-1]["messages"]
    assert [r.status for r in results] == ["answered", "answered"]
    calls = [m for m in last if m["role"] == "assistant" and m.get("tool_calls")]
    assert [m.get("reasoning") for m in calls] == ["I should read calc.py first.", "add subtracts: fix the operator.",
                                                   "Check the edit landed."]
    assert not any("reasoning_content" in m for m in last)


# One model of every family in the dialect table (agent/model/families.py), the others' default `drop`
# included: a chain of three tool calls with reasoning completes under the family's default policy.
EVERY_FAMILY = [
    "gpt-oss-20b", "qwen3-coder-30b", "deepseek-v3.2", "deepseek-v3.1", "deepseek-r1", "deepseek-chat",
    "kimi-k2-instruct", "glm-4.7", "glm-4.5", "MiniMax-M2", "minimax-text-01", "functionary-v3.2",
    "command-r7b", "internlm3-8b", "xlam-2-8b", "jamba-1.6", "hunyuan-a13b", "granite-3.3-8b", "olmo-3-7b",
    "functiongemma-270m", "gemma-3-27b", "hermes-3-llama", "llama-3.2-3b", "llama-3.1-8b", "mistral-small",
    "qwen2.5-coder-7b",
]


def test_every_family_in_the_dialect_table_has_a_documented_policy_and_completes_a_chain(repo: Path) -> None:
    from sneakycode.agent.model.families import DIALECT_FAMILIES, text_call_dialect_for
    from sneakycode.agent.model.reasoning_policy import reasoning_policy_for

    assert {text_call_dialect_for(model) for model in EVERY_FAMILY} == {dialect for _, dialect in DIALECT_FAMILIES}
    documented = (Path(__file__).resolve().parents[2] / "docs" / "providers.md").read_text()
    for model in EVERY_FAMILY:
        policy = reasoning_policy_for(model, "auto")
        assert policy.source and (policy.source in documented or policy.family == "other"), model
        (repo / "calc.py").write_text(CALC)
        with ScriptedServer({"steps": chain_steps()}) as server:
            results, _ = run_chain(server, repo, model)
        assert [r.status for r in results] == ["answered", "answered"], (model, [r.message for r in results])
        assert (repo / "calc.py").read_text() == CALC.replace("-", "+"), model
