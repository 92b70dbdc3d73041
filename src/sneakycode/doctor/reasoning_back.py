"""Whether the server wants the model's reasoning back: the probe tool's call answered twice, once with the
call's reasoning on the assistant message and once without, and which of the two the server takes.

Kimi K2 thinking (and DeepSeek V3.2/V4 in thinking mode) answer 400 without it: the verdict is "requires
reasoning back", with the setting that sends it. DeepSeek R1 answers 400 with it: "refuses reasoning back".
A server that takes both is asked nothing more; the report says whether the model kept thinking after the
tool result. What worked is `reasoning_history` for `doctor --save`.
"""

from __future__ import annotations

from typing import Any

from sneakycode.api.model_facts import AssistantTurn, History, ModelConfig, ToolCall, output_cap, reasoning_policy_for
from sneakycode.api.probe import Endpoint, Exchange, replayed_assistant
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.tools import MAX_TOKENS, ONE, TOOL, TOOL_NAME, ToolFindings

RESULT = "Sunny, 21 °C."
# What the 400s check is the request, not what the model wrote: when the model made no native call with
# reasoning (a small or non-reasoning model), the server is asked with this one, written by doctor.
WRITTEN_TURN = AssistantTurn(
    tool_calls=[ToolCall("call_doctor_1", TOOL_NAME, '{"city": "Paris"}')],
    reasoning="The user asks for the weather in Paris; the get_weather tool answers that.",
    reasoning_field="reasoning_content",
)


def _answer(endpoint: Endpoint, config: ModelConfig, turn: AssistantTurn, history: History) -> Exchange:
    sent = replayed_assistant(turn, history)
    results = [{"role": "tool", "tool_call_id": call.id, "content": RESULT} for call in turn.tool_calls]
    messages: list[dict[str, Any]] = [*ONE, *sent, *results]
    return endpoint.send(messages, tools=[TOOL], max_tokens=min(MAX_TOKENS, output_cap(config)))


def check_reasoning_back(
    report: Report, endpoint: Endpoint, config: ModelConfig, found: ToolFindings
) -> History | None:
    """The `reasoning_history` the server takes (None when the probe could not tell)."""
    first = found.exchange
    policy = reasoning_policy_for(config.model, config.reasoning_history)
    own = found.mode == "native" and first is not None and bool(first.turn.reasoning.strip())
    turn = first.turn if own and first is not None else WRITTEN_TURN
    asked = "" if own else " (asked with a tool call written by doctor: the model made none with reasoning)"
    bare, echoed = _answer(endpoint, config, turn, "drop"), _answer(endpoint, config, turn, "keep")
    data: dict[str, Any] = {"without": bare.failure.summary if bare.failure else "ok",
            "with": echoed.failure.summary if echoed.failure else "ok", "policy": policy.history}
    setting = f'[model_settings."{config.model}"] reasoning_history'
    if bare.failure is not None and echoed.failure is None:
        wanted: History = policy.history if policy.history != "drop" else "chain"
        check = report.add(Check("reasoning_history", "pass", "the server requires reasoning back: without it on "
                                 f"the assistant tool-call message it answered {bare.failure.summary}; with it, it "
                                 f"answered (the policy is {policy.history}){asked}", data=data))
        if policy.history == "drop":
            check.verdict, check.layer = "warn", "config"
            check.fix = f'{setting} = "{wanted}" (doctor --save writes it)'
        return wanted
    if echoed.failure is not None and bare.failure is None:
        check = report.add(Check("reasoning_history", "pass", "the server refuses reasoning back: with it on the "
                                 f"assistant tool-call message it answered {echoed.failure.summary}{asked}", data=data))
        if policy.history != "drop":
            check.verdict, check.layer = "warn", "config"
            check.fix = f'{setting} = "drop" (doctor --save writes it)'
        return "drop"
    if bare.failure is not None and echoed.failure is not None and not own:
        report.skip(["reasoning_history"], "skipped: the server refused a tool call written by doctor with and "
                    f"without reasoning ({bare.failure.summary}); the model made none of its own to answer")
        return None
    if bare.failure is not None and echoed.failure is not None:
        report.add(Check("reasoning_history", "fail", f"the tool result was refused with and without the reasoning: "
                         f"{bare.failure.summary}", "server", "see the server's log", data))
        return None
    kept = "kept thinking after the tool result" if echoed.turn.reasoning.strip() else (
        "stopped thinking after the tool result")
    if not own:
        kept = "gave no reasoning of its own"
    data["thinking_after"] = bool(echoed.turn.reasoning.strip())
    report.add(Check("reasoning_history", "pass", f"the server takes the tool result with and without the reasoning; "
                     f"with it the model {kept} (the {policy.family} policy: {policy.history}){asked}", data=data))
    return policy.history if own else None  # a model that gives no reasoning has none to keep: nothing to save
