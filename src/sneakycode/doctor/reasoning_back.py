"""Whether the server wants the model's reasoning back: the probe tool's call answered twice, once with the
call's reasoning on the assistant message and once without, and which of the two the server takes.

Kimi K2 thinking (and DeepSeek V3.2/V4 in thinking mode) answer 400 without it: the verdict is "requires
reasoning back", with the setting that sends it. DeepSeek R1 answers 400 with it: "refuses reasoning back".
A server that takes both is asked nothing more; the report says whether the model kept thinking after the
tool result. What worked is `reasoning_history` for `doctor --save`.
"""

from __future__ import annotations

from typing import Any

from sneakycode.agent.messages import prepare_messages
from sneakycode.agent.model.providers import ModelConfig, output_cap
from sneakycode.agent.model.reasoning_policy import History, ReasoningPolicy, reasoning_policy_for
from sneakycode.agent.reasoning_history import assistant_message
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.probe import Endpoint, Exchange
from sneakycode.doctor.tools import MAX_TOKENS, ONE, TOOL, ToolFindings

RESULT = "Sunny, 21 °C."


def _answer(endpoint: Endpoint, config: ModelConfig, first: Exchange, history: History) -> Exchange:
    turn = first.turn
    policy = ReasoningPolicy("probe", history, "reasoning_content", "none", "doctor")
    sent: list[dict[str, Any]] = [dict(m) for m in prepare_messages([assistant_message(turn, policy)])]
    results = [{"role": "tool", "tool_call_id": call.id, "content": RESULT} for call in turn.tool_calls]
    messages: list[dict[str, Any]] = [*ONE, *sent, *results]
    return endpoint.send(messages, tools=[TOOL], max_tokens=min(MAX_TOKENS, output_cap(config)))


def check_reasoning_back(
    report: Report, endpoint: Endpoint, config: ModelConfig, found: ToolFindings
) -> History | None:
    """The `reasoning_history` the server takes (None when the probe could not tell)."""
    first = found.exchange
    if found.mode != "native" or first is None:
        report.skip(["reasoning_history"], "skipped: no native tool call to answer")
        return None
    policy = reasoning_policy_for(config.model, config.reasoning_history)
    if not first.turn.reasoning.strip():
        report.add(Check("reasoning_history", "pass", "the tool call came with no reasoning: nothing to send back "
                         f"(the {policy.family} policy, {policy.history}, applies when it does)"))
        return None
    bare, echoed = _answer(endpoint, config, first, "drop"), _answer(endpoint, config, first, "keep")
    data: dict[str, Any] = {"without": bare.failure.summary if bare.failure else "ok",
            "with": echoed.failure.summary if echoed.failure else "ok", "policy": policy.history}
    setting = f'[model_settings."{config.model}"] reasoning_history'
    if bare.failure is not None and echoed.failure is None:
        wanted: History = policy.history if policy.history != "drop" else "chain"
        check = report.add(Check("reasoning_history", "pass", "the server requires reasoning back: without it on "
                                 f"the assistant tool-call message it answered {bare.failure.summary}; with it, it "
                                 f"answered (the policy is {policy.history})", data=data))
        if policy.history == "drop":
            check.verdict, check.layer = "warn", "config"
            check.fix = f'{setting} = "{wanted}" (doctor --save writes it)'
        return wanted
    if echoed.failure is not None and bare.failure is None:
        check = report.add(Check("reasoning_history", "pass", "the server refuses reasoning back: with it on the "
                                 f"assistant tool-call message it answered {echoed.failure.summary}", data=data))
        if policy.history != "drop":
            check.verdict, check.layer = "warn", "config"
            check.fix = f'{setting} = "drop" (doctor --save writes it)'
        return "drop"
    if bare.failure is not None and echoed.failure is not None:
        report.add(Check("reasoning_history", "fail", f"the tool result was refused with and without the reasoning: "
                         f"{bare.failure.summary}", "server", "see the server's log", data))
        return None
    kept = "kept thinking after the tool result" if echoed.turn.reasoning.strip() else (
        "stopped thinking after the tool result")
    data["thinking_after"] = bool(echoed.turn.reasoning.strip())
    report.add(Check("reasoning_history", "pass", f"the server takes the tool result with and without the reasoning; "
                     f"with it the model {kept} (the {policy.family} policy: {policy.history})", data=data))
    return policy.history
