"""Turns a session's events into OpenTelemetry spans and metrics: a span per run, turn, model request, tool
call and subagent, with the session id on each, and counters for tokens, cost, tool calls and failures.

It listens to the same events every face sees (`agent.events`), so the terminal, `-p`, batch workers and
programs all get the same telemetry from the one place a session is assembled. Content (the prompt, replies,
tool arguments and output) is recorded only when `include_content` is on; a key never is, since no event
carries one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.metrics import Meter, MeterProvider
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, TracerProvider

from sneakycode.agent.events import Event
from sneakycode.api.result import Result
from sneakycode.version import __version__

SCOPE = "sneakycode"
# Content attributes are cut here: a tool result may be 64 KiB, and collectors drop oversized spans whole.
CONTENT_LIMIT = 4096
PERMISSION_OUTCOMES = {"approved": "approved", "rejected": "rejected", "denied": "denied"}


@dataclass
class SessionFacts:
    """What the recorder reads from the session as it goes (the model may be switched mid-session)."""

    session_id: str
    provider: Callable[[], str]
    model: Callable[[], str]
    server: Callable[[], tuple[str, int | None]]
    mode: Callable[[], str]
    cost: Callable[[], float | None]
    """The session's cost so far in USD (None: the price is unknown)."""


@dataclass
class _Call:
    span: Span
    started: float
    name: str
    decision: str = "allow"
    permission: str = "auto"


@dataclass
class _Agent:
    """One agent's open spans (the main agent's, or a subagent's)."""

    context: Context | None
    """Where this agent's turns hang: the run's span, or the subagent's own."""
    span: Span | None = None
    """A subagent's own span (None for the main agent, whose span is the run's)."""
    turn: Span | None = None
    request: Span | None = None
    request_started: float = 0.0
    calls: dict[str, _Call] = field(default_factory=dict)


def clip(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[:CONTENT_LIMIT] + f"...[{len(text) - CONTENT_LIMIT} more]"


class Recorder:
    """The session's telemetry: `run_started`/`run_ended` around each request, `emit` for every event."""

    def __init__(self, facts: SessionFacts, tracer_provider: TracerProvider | None,
                 meter_provider: MeterProvider | None, *, include_content: bool,
                 on_close: Callable[[], None] | None = None) -> None:
        self.facts = facts
        self.include_content = include_content
        self._on_close = on_close
        provider = tracer_provider or trace.NoOpTracerProvider()
        self.tracer = provider.get_tracer(SCOPE, __version__)
        self._instruments(meter_provider.get_meter(SCOPE, __version__) if meter_provider is not None else None)
        self._lock = threading.RLock()  # events come from the loop, tool threads and parallel subagents
        self._run: Span | None = None
        self._agents: dict[str, _Agent] = {}
        self._cost_seen = 0.0

    def _instruments(self, meter: Meter | None) -> None:
        self.meter = meter
        if meter is None:
            return
        self.tokens = meter.create_counter("sneakycode.token.usage", "{token}", "Tokens by type: input, output, cached")
        self.cost = meter.create_counter("sneakycode.cost.usage", "USD", "What the model requests cost")
        self.tool_calls = meter.create_counter("sneakycode.tool.calls", "{call}", "Tool calls by tool and outcome")
        self.failures = meter.create_counter("sneakycode.failures", "{failure}", "Failures by error code")
        self.runs = meter.create_counter("sneakycode.runs", "{run}", "Runs by how they ended")
        self.tool_duration = meter.create_histogram("sneakycode.tool.duration", "s", "How long tool calls took")
        self.request_duration = meter.create_histogram(
            "gen_ai.client.operation.duration", "s", "How long model requests took")

    # ---- attributes --------------------------------------------------------------------------------

    def _common(self) -> dict[str, Any]:
        return {"session.id": self.facts.session_id}

    def _model_attributes(self, agent: str) -> dict[str, Any]:
        attributes = {**self._common(), "gen_ai.provider.name": self.facts.provider()}
        if agent:  # a subagent may run on another model; its name is in its definition, not its events
            attributes["sneakycode.agent"] = agent
        else:
            attributes["gen_ai.request.model"] = self.facts.model()
        return attributes

    def _count_failure(self, code: str, source: str) -> None:
        if self.meter is not None:
            self.failures.add(1, {**self._common(), "error.type": code, "sneakycode.failure.source": source})

    # ---- a run -------------------------------------------------------------------------------------

    def run_started(self, prompt: str) -> None:
        with self._lock:
            attributes = {**self._model_attributes(""), "gen_ai.operation.name": "invoke_agent",
                          "gen_ai.agent.name": "sneakycode", "sneakycode.permission_mode": self.facts.mode()}
            if self.include_content:
                attributes["sneakycode.prompt"] = clip(prompt)
            self._run = self.tracer.start_span("invoke_agent sneakycode", attributes=attributes)
            self._agents = {"": _Agent(trace.set_span_in_context(self._run))}
            self._cost_seen = self.facts.cost() or 0.0

    def run_ended(self, result: Result) -> Result:
        with self._lock:
            run = self._run
            # A request still open lost its reply to how the run ended (a model error, a cancel, the timeout).
            waiting = any(state.request is not None for state in self._agents.values())
            ended = None if result.success else (result.error_kind or result.status)
            self._close_agents(ended)
            self._add_cost("")
            if run is None:
                return result
            usage = result.usage
            run.set_attributes({
                "sneakycode.status": result.status, "sneakycode.turns": result.turns,
                "sneakycode.tool_calls": result.tool_calls,
                "gen_ai.usage.input_tokens": int(usage["prompt_tokens"]),
                "gen_ai.usage.output_tokens": int(usage["completion_tokens"]),
                "gen_ai.usage.cache_read.input_tokens": int(usage["cached_tokens"]),
                "sneakycode.denied_calls": len(result.denied),
            })  # fmt: skip
            if result.cost.get("usd") is not None:
                run.set_attribute("sneakycode.cost_usd", float(result.cost["usd"]))
            if result.budget:
                run.set_attribute("sneakycode.budget", result.budget)
            if self.include_content:
                run.set_attribute("sneakycode.result", clip(result.message))
            if result.status == "error":
                code = result.error_kind or "run_error"
                run.set_attribute("error.type", code)
                run.set_status(Status(StatusCode.ERROR, code))
                if not waiting:  # a failed request is counted once, as the model's failure
                    self._count_failure(code, "run")
            if self.meter is not None:
                self.runs.add(1, {**self._common(), "sneakycode.status": result.status})
            run.end()
            self._run = None
        return result

    def run_failed(self, error: BaseException) -> None:
        """A request that raised (a model failure outside the loop, an interrupt): its spans end as errors."""
        with self._lock:
            code = getattr(error, "kind", None) or type(error).__name__
            self._close_agents(str(code))
            if self._run is not None:
                self._run.set_attribute("error.type", str(code))
                self._run.set_status(Status(StatusCode.ERROR, str(code)))
                self._run.end()
                self._run = None
            self._count_failure(str(code), "run")

    def _close_agents(self, error: str | None) -> None:
        for name, state in self._agents.items():
            self._close_agent(name, state, error)
        self._agents = {}

    def _close_agent(self, name: str, state: _Agent, error: str | None) -> None:
        if state.request is not None:  # the request that never answered: the run's error is its error
            self._end_request(name, state, error or "no_reply")
        for call in state.calls.values():
            call.span.set_status(Status(StatusCode.ERROR, "not finished"))
            call.span.end()
        state.calls.clear()
        self._end_turn(state)
        if state.span is not None:
            state.span.end()

    # ---- events ------------------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        with self._lock:
            if self._run is None:
                return
            handler = getattr(self, f"_on_{event['type']}", None)
            if handler is not None:
                handler(event.get("agent", ""), event)

    def _state(self, agent: str) -> _Agent:
        state = self._agents.get(agent)
        if state is None:  # a subagent's event before its start (never, but a lost span is better than a crash)
            state = self._agents[agent] = _Agent(trace.set_span_in_context(self._run) if self._run else None)
        return state

    def _on_subagent(self, agent: str, event: Any) -> None:
        if event["phase"] == "start":
            parent = self._state("")
            task = next((c.span for c in reversed(parent.calls.values()) if c.name == "task"), None)
            context = trace.set_span_in_context(task) if task is not None else parent.context
            attributes = {**self._common(), "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
            if self.include_content:
                attributes["sneakycode.prompt"] = clip(event["prompt"])
            span = self.tracer.start_span(f"invoke_agent {agent}", context=context, attributes=attributes)
            self._agents[agent] = _Agent(trace.set_span_in_context(span), span)
            return
        state = self._agents.pop(agent, None)
        if state is not None:
            if state.span is not None:
                state.span.set_attributes({"sneakycode.status": event.get("status", ""),
                                           "sneakycode.turns": event.get("turns", 0)})
            self._close_agent(agent, state, None)

    def _on_turn(self, agent: str, event: Any) -> None:
        state = self._state(agent)
        self._end_turn(state)
        attributes = {**self._common(), "sneakycode.turn": event["turn"]}
        if agent:
            attributes["sneakycode.agent"] = agent
        state.turn = self.tracer.start_span("sneakycode.turn", context=state.context, attributes=attributes)
        operation = {"gen_ai.operation.name": "chat", **self._model_attributes(agent)}
        host, port = self.facts.server()
        operation["server.address"] = host
        if port is not None:
            operation["server.port"] = port
        name = f"chat {operation.get('gen_ai.request.model', agent)}"
        state.request = self.tracer.start_span(name, context=trace.set_span_in_context(state.turn),
                                               kind=SpanKind.CLIENT, attributes=operation)
        state.request_started = time.monotonic()

    def _end_turn(self, state: _Agent) -> None:
        if state.turn is not None:
            state.turn.end()
            state.turn = None

    def _on_assistant(self, agent: str, event: Any) -> None:
        request = self._state(agent).request
        if request is None:
            return
        names = [call["name"] for call in event["tool_calls"]]
        request.set_attribute("sneakycode.tool_calls_requested", len(names))
        if names:
            request.set_attribute("sneakycode.tools_requested", sorted(set(names)))
        if self.include_content and event["text"]:
            request.set_attribute("sneakycode.reply", clip(event["text"]))

    def _on_usage(self, agent: str, event: Any) -> None:
        state = self._state(agent)
        tokens = {"input": event["prompt_tokens"], "output": event["completion_tokens"],
                  "cached": event["cached_tokens"]}
        attributes = self._model_attributes(agent)
        if self.meter is not None:
            for kind, count in tokens.items():
                self.tokens.add(count, {**attributes, "gen_ai.token.type": kind})
        cost = self._add_cost(agent)
        request = state.request
        if request is None:
            return
        request.set_attributes({
            "gen_ai.usage.input_tokens": tokens["input"], "gen_ai.usage.output_tokens": tokens["output"],
            "gen_ai.usage.cache_read.input_tokens": tokens["cached"], "sneakycode.usage.estimated": event["estimated"],
        })  # fmt: skip
        if cost is not None:
            request.set_attribute("sneakycode.cost_usd", round(cost, 8))
        self._end_request(agent, state, None)

    def _add_cost(self, agent: str) -> float | None:
        """What the session spent since the last usage (this request, and any chore before it) as cost."""
        total = self.facts.cost()
        if total is None:
            return None
        spent, self._cost_seen = max(0.0, total - self._cost_seen), total
        if self.meter is not None and spent:
            self.cost.add(spent, self._model_attributes(agent))
        return spent

    def _end_request(self, agent: str, state: _Agent, error: str | None) -> None:
        request = state.request
        if request is None:
            return
        if error is not None:
            request.set_attribute("error.type", error)
            request.set_status(Status(StatusCode.ERROR, error))
            self._count_failure(error, "model")
        if self.meter is not None:
            attributes = {**self._model_attributes(agent), "gen_ai.operation.name": "chat"}
            if error is not None:
                attributes["error.type"] = error
            self.request_duration.record(time.monotonic() - state.request_started, attributes)
        request.end()
        state.request = None

    def _on_tool_call(self, agent: str, event: Any) -> None:
        state = self._state(agent)
        attributes = {**self._common(), "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event["name"],
                      "gen_ai.tool.call.id": event["id"]}
        if agent:
            attributes["sneakycode.agent"] = agent
        if self.include_content:
            attributes["sneakycode.tool.arguments"] = clip(event["arguments"])
            attributes["sneakycode.tool.headline"] = clip(event["headline"])
        parent = trace.set_span_in_context(state.turn) if state.turn is not None else state.context
        span = self.tracer.start_span(f"execute_tool {event['name']}", context=parent, attributes=attributes)
        state.calls[event["id"]] = _Call(span, time.monotonic(), event["name"])

    def _on_permission(self, agent: str, event: Any) -> None:
        call = self._state(agent).calls.get(event["id"])
        if call is None:
            return
        call.decision, call.permission = event["decision"], PERMISSION_OUTCOMES.get(event["outcome"], event["outcome"])
        if event.get("rule"):
            call.span.set_attribute("sneakycode.permission.rule", event["rule"])
        if self.include_content:
            call.span.set_attribute("sneakycode.permission.reason", clip(event["reason"]))

    def _on_tool_result(self, agent: str, event: Any) -> None:
        call = self._state(agent).calls.pop(event["id"], None)
        if call is None:
            return
        span, seconds = call.span, time.monotonic() - call.started
        outcome = "success" if event["success"] else (call.permission if call.permission != "auto" else "failure")
        span.set_attributes({"sneakycode.permission.decision": call.decision,
                             "sneakycode.permission.outcome": call.permission,
                             "sneakycode.tool.success": event["success"], "sneakycode.tool.outcome": outcome})
        if self.include_content:
            span.set_attribute("sneakycode.tool.output", clip(event["content"]))
        if not event["success"]:
            code = event["code"] or "tool_error"
            span.set_attribute("error.type", code)
            span.set_status(Status(StatusCode.ERROR, code))
            self._count_failure(code, "tool")
        if self.meter is not None:
            attributes = {**self._common(), "gen_ai.tool.name": event["name"], "sneakycode.tool.outcome": outcome,
                          "sneakycode.permission.decision": call.decision}
            self.tool_calls.add(1, attributes)
            self.tool_duration.record(seconds, {**self._common(), "gen_ai.tool.name": event["name"]})
        span.end()

    # ---- the end -----------------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._close_agents("closed")
            if self._run is not None:
                self._run.end()
                self._run = None
        if self._on_close is not None:
            self._on_close()
