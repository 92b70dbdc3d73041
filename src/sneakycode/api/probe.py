"""The doctor's seam to an endpoint (moved from doctor/probe.py): one bounded raw request through the official
openai SDK, and everything seen on the way: the reply joined as the agent joins it (`TurnBuilder`), the usage
and llama.cpp timings, when the first token came, and how the stream was cut into chunks (which the tool-call
checks need raw). Also the other raw probes: the window the server reports (`reported_window`), and the
messages the agent would send back after a turn (`replayed_assistant`), so `doctor/` needs nothing below api.

Every request carries max_tokens and a timeout, has no retries, and is read to its end or abandoned whole
(its connection closed), so a doctor never leaves a probe half-run. llama.cpp notices a closed connection only
once it writes, so a long prompt it is still reading delays the next probe: the report shows that wait.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlparse

import openai

from sneakycode.agent.messages import prepare_messages
from sneakycode.agent.model.assembly import TurnBuilder
from sneakycode.agent.model.failures import Failure, classify
from sneakycode.agent.model.providers import LOOPBACK_HOSTS, ModelConfig, cache_request_fields
from sneakycode.agent.model.reasoning_policy import History, ReasoningPolicy
from sneakycode.agent.model.window import DiscoveredWindow, discover_context_window
from sneakycode.agent.protocol import AssistantTurn, Usage
from sneakycode.agent.reasoning_history import assistant_message

__all__ = ["Endpoint", "Exchange", "Failure", "failure_of", "replayed_assistant", "reported_window"]

CLOSE_WAIT = 5.0
"""Seconds a request given up on has to wind down once its connection is closed."""


@dataclass
class Exchange:
    """One request and its answer (or its failure)."""

    streamed: bool
    builder: TurnBuilder = field(default_factory=TurnBuilder)
    seconds: float = 0.0
    first_token: float | None = None
    """Seconds from sending to the first chunk that carried text, reasoning or a tool call."""
    last_token: float | None = None
    chunks: int = 0
    """Chunks that carried text, reasoning or a tool call."""
    call_deltas: list[dict[str, Any]] = field(default_factory=list)
    """Every streamed tool-call delta, as sent."""
    failure: Failure | None = None
    prompt_estimate: int | None = None
    """The prompt's size by the four-characters-a-token rule, where the prober knows it."""

    @property
    def ok(self) -> bool:
        return self.failure is None and (self.builder.saw_choice or not self.streamed)

    @property
    def empty_stream(self) -> bool:
        """HTTP 200 whose event stream held no reply at all."""
        return self.failure is None and self.streamed and not self.builder.saw_choice

    @property
    def turn(self) -> AssistantTurn:
        return self.builder.turn()

    @property
    def usage(self) -> Usage | None:
        return self.builder.reported_usage()

    @property
    def timings(self) -> dict[str, Any]:
        return self.builder.timings if isinstance(self.builder.timings, dict) else {}


class Endpoint:
    """The endpoint and model under examination."""

    def __init__(self, config: ModelConfig, timeout: float) -> None:
        self.config = config
        self.timeout = timeout
        http_client = None
        endpoint = urlparse(config.base_url)
        if endpoint.hostname in LOOPBACK_HOSTS:
            # As the agent's client does (agent/model/client.py): a proxy from the environment must not take a
            # request meant for this machine.
            http_client = openai.DefaultHttpx2Client(trust_env=False)
        self.client = openai.OpenAI(
            api_key=config.api_key, base_url=config.base_url, timeout=timeout, max_retries=0, http_client=http_client
        )

    def close(self) -> None:
        self.client.close()

    def models(self) -> list[tuple[str, str]]:
        """The (id, owned_by) pairs GET /models lists; raises what the SDK raises."""
        return [(model.id, str(getattr(model, "owned_by", "") or "")) for model in self.client.models.list()]

    def send(
        self,
        messages: list[dict[str, Any]],
        *,
        max_tokens: int,
        tools: list[dict[str, Any]] | None = None,
        stream: bool = True,
        timeout: float | None = None,
    ) -> Exchange:
        """The request, read to its end in a worker thread; one still going after the timeout has its connection
        closed and comes back as a timeout, with what had arrived. A connection that failed is tried once more,
        as the agent's client would (a server may close a kept-alive connection after an error)."""
        exchange = self._send_once(messages, max_tokens, tools, stream, timeout or self.timeout)
        if exchange.failure is not None and exchange.failure.kind == "connection":
            exchange = self._send_once(messages, max_tokens, tools, stream, timeout or self.timeout)
        return exchange

    def _send_once(
        self, messages: list[dict[str, Any]], max_tokens: int, tools: list[dict[str, Any]] | None, stream: bool,
        limit: float,
    ) -> Exchange:
        options: dict[str, Any] = (
            {"max_completion_tokens": max_tokens} if self.config.provider == "openai" else {"max_tokens": max_tokens}
        )
        extra = cache_request_fields(self.config)
        if extra:
            options["extra_body"] = extra
        if tools:
            options["tools"] = tools
        exchange = Exchange(streamed=stream)
        opened: list[Any] = []
        abandoned = threading.Event()
        start = time.monotonic()

        def fetch() -> None:
            try:
                if stream:
                    self._stream(exchange, cast(Any, messages), options, start, limit, opened)
                else:
                    completion = self.client.chat.completions.create(
                        model=self.config.model, messages=cast(Any, messages), timeout=limit, **options
                    )
                    exchange.builder.add_completion(completion.to_dict())
                    exchange.first_token = exchange.last_token = time.monotonic() - start
            except Exception as exc:  # every failure is a finding, classified as the agent's client would
                if not abandoned.is_set():
                    exchange.failure = failure_of(exc)

        worker = threading.Thread(target=fetch, name="doctor-probe", daemon=True)
        worker.start()
        worker.join(limit)
        if worker.is_alive():
            abandoned.set()
            exchange.failure = Failure("timeout", f"no complete reply within {limit:g} s", False)
            for response in opened:
                with contextlib.suppress(Exception):
                    response.close()  # the connection goes; a server that notices stops working on it
            worker.join(CLOSE_WAIT)
        exchange.seconds = time.monotonic() - start
        return exchange

    def _stream(
        self, exchange: Exchange, messages: Any, options: dict[str, Any], start: float, limit: float,
        opened: list[Any],
    ) -> None:
        stream = self.client.chat.completions.create(
            model=self.config.model, messages=messages, stream=True, stream_options={"include_usage": True},
            timeout=limit, **options,
        )
        opened.append(stream)
        with stream:  # closing it abandons the request on the server too
            for chunk in stream:
                payload = chunk.to_dict()
                exchange.builder.add_chunk(payload)
                for choice in payload.get("choices") or []:
                    delta = choice.get("delta") or {}
                    exchange.call_deltas.extend(delta.get("tool_calls") or [])
                    if delta.get("content") or delta.get("tool_calls") or any(
                        delta.get(key) for key in ("reasoning_content", "reasoning")
                    ):
                        now = time.monotonic() - start
                        exchange.first_token = exchange.first_token if exchange.first_token is not None else now
                        exchange.last_token = now
                        exchange.chunks += 1


def failure_of(exc: Exception) -> Failure:
    """The failure kind of a request's exception, as the agent's client sees it; anything else is the server's."""
    try:
        return classify(exc)
    except Exception:
        return Failure("server", f"{type(exc).__name__}: {exc}", False)


def reported_window(config: ModelConfig) -> DiscoveredWindow | None:
    """The context window the server reports for the model (every known info endpoint asked at once), or None
    when none answers."""
    return discover_context_window(config.base_url, config.model, config.api_key, provider=config.provider)


def replayed_assistant(turn: AssistantTurn, history: History) -> list[dict[str, Any]]:
    """The messages the agent sends back for `turn` when the model's reasoning is kept as `history` says
    (agent/reasoning_history.py, then the same preparation every request gets)."""
    policy = ReasoningPolicy("probe", history, "reasoning_content", "none", "doctor")
    return [dict(m) for m in prepare_messages([assistant_message(turn, policy)])]
