"""The model side of the agent loop: one request to the model (the stall watch told of all that arrives),
what streams back shown as it comes, and the reply recorded and counted. Mixed into `Agent`, whose
attributes it names below."""

from __future__ import annotations

from typing import Any

from sneakycode.agent.context import estimate_history_tokens, estimate_message_tokens
from sneakycode.agent.events import CallSummary, ReasoningEvent
from sneakycode.agent.offered import OfferedTools
from sneakycode.agent.protocol import AssistantTurn, ChatModel, Usage
from sneakycode.agent.reasoning_history import assistant_message, policy_of
from sneakycode.agent.record import RunRecord
from sneakycode.agent.tally import Tally
from sneakycode.agent.watch import RunWatch
from sneakycode.tools.context import ToolContext


class ModelTurns(RunRecord):
    """Asks the model for the next reply for the Agent it is mixed into."""

    model: ChatModel
    model_name: str
    ctx: ToolContext
    offered: OfferedTools
    tally: Tally
    watch: RunWatch
    _reasoned: str

    def _watched_complete(self) -> AssistantTurn:
        """The request, with the stall watch told of everything that arrives (see agent/watch.py)."""
        self._reasoned = ""
        # `on_reasoning` is beyond the ChatModel protocol: only a model that says it takes it is given it.
        extra: dict[str, Any] = (
            {"on_reasoning": self._on_reasoning} if getattr(self.model, "streams_reasoning", False) else {})
        with self.watch.model_request() as activity:
            return self.model.complete(self.history, self.offered.schemas, on_text=self._on_text,
                                       cancel=self.ctx.cancel, on_activity=activity, **extra)

    def fixed_tokens(self) -> int:
        """What every request carries besides the conversation: the system prompt and the tools array."""
        return estimate_message_tokens(self.history[0]) + self.offered.tokens

    def _on_text(self, text: str) -> None:
        self.sink.emit({"type": "text_delta", "text": text})

    def _on_reasoning(self, text: str) -> None:
        self._reasoned += text
        self.sink.emit({"type": "reasoning_delta", "text": text})

    def account_chore(self, usage: Usage, model_name: str) -> None:
        """Count a chore's request (a summary) in this run's usage and the session's spending, at the price of
        the model that ran it."""
        self.tally.add(usage, model_name)

    def _account(self, reply: AssistantTurn) -> None:
        self.tally.add(reply.usage, self.model_name)
        event = self.tally.usage_event(reply.usage, estimate_history_tokens(self.history))
        self.sink.emit(event)
        if self.transcript is not None:
            self.transcript.write("usage", **{k: v for k, v in event.items() if k != "type"})

    def _record_reply(self, reply: AssistantTurn) -> None:
        if reply.reasoning:
            event: ReasoningEvent = {"type": "reasoning", "text": reply.reasoning}
            if self._reasoned and self._reasoned.strip() == reply.reasoning.strip():
                event["streamed"] = True  # its pieces were shown as they came: a face shows it once
            self.sink.emit(event)
            if self.transcript is not None:
                self.transcript.write("reasoning", text=reply.reasoning)
        # Reasoning joins the history where the model family was trained to see it again (drop, chain, keep:
        # agent/reasoning_history.py), recorded once and never rewritten, so the prompt cache keeps it.
        self._append(assistant_message(reply, policy_of(self.model)))
        calls: list[CallSummary] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
        self.sink.emit({"type": "assistant", "text": reply.content, "tool_calls": calls,
                        "finish_reason": reply.finish_reason})
