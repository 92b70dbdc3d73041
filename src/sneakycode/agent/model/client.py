"""The ChatModel for any OpenAI-compatible endpoint.

This client retries 408/409/429/5xx, dropped connections, timeouts and malformed event streams itself, with
exponential backoff and jitter, honouring Retry-After, so it can log each attempt, stop on cancel and turn the
last failure into a ModelError that says what to do (`reports`). It also absorbs what local servers get wrong
(see `assembly` and `text_tool_calls`). The bytes travel by a `Transport`: the thin client on httpx2 by default,
the official SDK with `model_client = "openai-sdk"`; both are imported only here, when a client is built, so
`sneakycode --help` and `sneakycode tool` never pay for them.

Each request runs in a worker thread that hands chunks to the caller through a queue: a blocked socket
read cannot be interrupted, but the caller can stop waiting for it the moment `cancel` is set.
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from sneakycode.agent.images import content_text, image_tokens
from sneakycode.agent.messages import Message, prepare_messages
from sneakycode.agent.model.assembly import TurnBuilder, estimate_text_tokens
from sneakycode.agent.model.failures import EmptyStream, IdleStream, classify
from sneakycode.agent.model.providers import ModelConfig, output_cap
from sneakycode.agent.model.reasoning_policy import ReasoningPolicy, effort_request, reasoning_policy_for
from sneakycode.agent.model.reports import final_error
from sneakycode.agent.model.request import ChatRequest, Transport, request_body
from sneakycode.agent.model.text_tool_calls import held_back_length, parse_text_tool_calls
from sneakycode.agent.model.truncation import check_prompt_not_truncated
from sneakycode.agent.protocol import AssistantTurn, ChatModel, Usage
from sneakycode.errors import ModelError

__all__ = ["DebugLog", "OpenAIChatModel", "TextCallMode", "build_chat_model", "prepare_messages"]

CANCEL_POLL = 0.05
MAX_BACKOFF = 30.0
DebugLog = Callable[[str], None]
TextCallMode = Literal["auto", "native", "text"]


def open_transport(config: ModelConfig) -> Transport:
    """The transport the `model_client` setting names (ModelConfig.client)."""
    if config.client == "openai-sdk":
        from sneakycode.agent.model.sdk_transport import SdkTransport

        return SdkTransport(config)
    from sneakycode.agent.model.http_transport import HttpTransport

    return HttpTransport(config)


def _show_reasoning(so_far: str, shown: str, on_reasoning: Callable[[str], None]) -> str:
    """Pass on the reasoning that extends what was shown (what does not extend it waits for the whole)."""
    if len(so_far) > len(shown) and so_far.startswith(shown):
        on_reasoning(so_far[len(shown):])
        return so_far
    return shown


class OpenAIChatModel:
    """ChatModel for one endpoint and model; remembers for the session when the server cannot stream."""

    streams_reasoning = True  # `complete` takes `on_reasoning`

    def __init__(
        self, config: ModelConfig, *, debug_log: DebugLog | None = None, tool_calls: TextCallMode = "auto"
    ) -> None:
        self.config = config
        self.tool_calls = tool_calls
        self._seen_native_call = False
        self._transport = open_transport(config)
        self._streaming = True
        self._log: DebugLog = debug_log or (lambda _line: None)
        self._told_estimated = False

    def close(self) -> None:
        self._transport.close()

    @property
    def closed(self) -> bool:
        """Whether `close` let go of the connections (a switched-away model's client must)."""
        return self._transport.closed

    @property
    def reasoning_policy(self) -> ReasoningPolicy:
        """Which replies' reasoning the history keeps for this model (agent/reasoning_history.py)."""
        return reasoning_policy_for(self.config.model, self.config.reasoning_history)

    def _with_effort(self, messages: list[Message]) -> tuple[list[Message], dict[str, Any]]:
        """The messages and request fields that ask for the configured reasoning effort: gpt-oss's line ends
        the system prompt (the same line on every request, so the prefix stays cached)."""
        config = self.config
        fields, line = effort_request(self.reasoning_policy, config.reasoning_effort, config.provider)
        first = messages[0] if messages else None
        if line and first is not None and first["role"] == "system":
            messages = [{"role": "system", "content": f"{first['content']}\n\n{line}"}, *messages[1:]]
        return messages, fields

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        on_activity: Callable[[], None] | None = None,
        max_tokens: int | None = None,
        on_reasoning: Callable[[str], None] | None = None,
    ) -> AssistantTurn:
        """`on_reasoning` (beyond the ChatModel protocol: `streams_reasoning` says it is taken) is told the
        reasoning piece by piece as it arrives, before the answer it precedes."""
        cap = output_cap(self.config) if max_tokens is None else max_tokens
        sent, effort = self._with_effort(prepare_messages(messages, reasoning=self.reasoning_policy.history != "drop"))
        request = ChatRequest(sent, tools, cap, on_activity or (lambda: None), effort, on_reasoning)
        turn = AssistantTurn()
        for attempt in (1, 2):
            turn = self._capped(request, on_text, cancel)
            # A reply that only reasoned goes back to the loop, which nudges the model on (same request again
            # would likely reason the same way).
            if turn.finish_reason == "cancelled" or turn.content.strip() or turn.tool_calls or turn.reasoning.strip():
                return turn
            self._log(
                f"model: empty reply (no text, no tool calls, finish_reason={turn.finish_reason}); "
                + ("asking again" if attempt == 1 else "giving up")
            )
        cause = " (it ran out of output tokens)" if turn.finish_reason == "length" else ""
        raise ModelError(
            f"{self.config.model} returned an empty reply twice: no text and no tool calls{cause}. Try again, "
            "rephrase the task, or choose another model with --model.",
            kind="empty_reply",
        )

    def _capped(
        self, request: ChatRequest, on_text: Callable[[str], None] | None, cancel: threading.Event | None
    ) -> AssistantTurn:
        """A reply cut by the output cap mid tool call is asked for once more with twice the cap; a cut call is
        never returned, and cut text says it was cut."""
        turn = self._with_retries(request, on_text, cancel)
        if turn.finish_reason == "length" and _mid_call(turn):
            larger = request.max_tokens * 2
            self._log(f"model: the reply hit max_tokens={request.max_tokens} inside a tool call; asking again "
                      f"with max_tokens={larger}")
            turn = self._with_retries(replace(request, max_tokens=larger, on_reasoning=None), None, cancel)
            if turn.finish_reason == "length" and _mid_call(turn):
                raise ModelError(
                    f"{self.config.model}'s reply was cut at max_tokens={larger} in the middle of a tool call "
                    "twice, so the call was not run. Raise max_output_tokens in the config, or ask for smaller "
                    "steps (for example several edits instead of one large write).",
                    kind="output_truncated",
                )
        if turn.finish_reason == "length" and turn.content.strip():
            turn.content += f"\n\n[the reply was cut at the output cap of {request.max_tokens} tokens]"
        return turn

    def _with_retries(
        self, request: ChatRequest, on_text: Callable[[str], None] | None, cancel: threading.Event | None
    ) -> AssistantTurn:
        retries = stalls = 0
        while True:
            try:
                return self._attempt(request, on_text, cancel)
            except EmptyStream:
                self._streaming = False
                self._log(
                    "model: the server answered a streaming request with an empty event stream; "
                    "retrying without streaming, and not streaming for the rest of this session"
                )
            except Exception as exc:
                failure = classify(exc)
                if not failure.retryable or retries >= self.config.max_retries or (failure.silence and stalls):
                    raise final_error(self.config, failure, retries, self._transport.model_ids) from exc
                stalls += bool(failure.silence)
                delay = failure.retry_after
                if delay is None:
                    delay = min(MAX_BACKOFF, self.config.retry_backoff * 2**retries) * random.uniform(0.5, 1.0)
                retries += 1
                source = " (Retry-After)" if failure.retry_after is not None else ""
                self._log(
                    f"model: {failure.summary}; retry {retries} of {self.config.max_retries} "
                    f"in {delay:.2f} s{source}"
                )
                if cancel is not None and cancel.wait(delay):
                    return AssistantTurn(finish_reason="cancelled")
                if cancel is None:
                    time.sleep(delay)

    def _attempt(
        self, request: ChatRequest, on_text: Callable[[str], None] | None, cancel: threading.Event | None
    ) -> AssistantTurn:
        streaming = self._streaming
        events: queue.Queue[tuple[str, Any]] = queue.Queue()
        abandoned = threading.Event()
        worker = threading.Thread(
            target=self._fetch, args=(request, streaming, events, abandoned), name="model-request", daemon=True
        )
        worker.start()
        builder = TurnBuilder()
        shown, visible, thought = 0, "", ""
        last_chunk: float | None = None
        idle_limit = self.config.stream_idle_timeout
        while True:
            try:
                kind, payload = events.get(timeout=CANCEL_POLL)
            except queue.Empty:
                kind, payload = "idle", None
            if cancel is not None and cancel.is_set():
                abandoned.set()
                return self._finish(builder, request, cancelled=True)
            if kind == "idle" and last_chunk is not None and time.monotonic() - last_chunk > idle_limit:
                abandoned.set()  # only once the stream started: a long prompt may take minutes to read first
                raise IdleStream(f"the reply stopped and sent nothing for {idle_limit:g} s (stall_timeout)")
            if kind != "idle":
                last_chunk = time.monotonic()
                request.on_activity()
            if kind == "error":
                raise payload
            if kind == "chunk":
                builder.add_chunk(payload)
                if request.on_reasoning is not None:
                    thought = _show_reasoning(builder.reasoning_so_far(), thought, request.on_reasoning)
                if on_text is not None:
                    visible = builder.visible_content()
                    shown = self._show(visible, shown, on_text, self._parses_text(request))
            elif kind == "completion":
                builder.add_completion(payload)
            elif kind == "done":
                break
        if streaming and not builder.saw_choice:
            raise EmptyStream()
        turn = self._finish(builder, request, cancelled=False)
        if on_text is not None:
            # Only an answer that extends what was shown is flushed: not one whose text calls were parsed out,
            # nor one that a late `</think>` revealed to be reasoning.
            answer = builder.turn().content
            rest = answer[shown:] if streaming else turn.content
            if rest and (not streaming or (turn.content == answer and answer.startswith(visible[:shown]))):
                on_text(rest)
        return turn

    @staticmethod
    def _show(content: str, shown: int, on_text: Callable[[str], None], may_hold: bool) -> int:
        """Pass new text on, except a tail that may turn out to be a tool call written as text."""
        visible = len(content) - (held_back_length(content) if may_hold else 0)
        if visible > shown:
            on_text(content[shown:visible])
            return visible
        return shown

    def _fetch(
        self, request: ChatRequest, streaming: bool, events: queue.Queue[tuple[str, Any]], abandoned: threading.Event
    ) -> None:
        """Runs in the worker thread; every outcome, failures included, goes to the caller through `events`."""
        body = request_body(self.config, request, stream=streaming)
        try:
            if streaming:
                with contextlib.closing(self._transport.stream(body)) as chunks:  # closing it drops the connection
                    for chunk in chunks:
                        if abandoned.is_set():
                            return
                        events.put(("chunk", chunk))
            else:
                events.put(("completion", self._transport.create(body)))
            events.put(("done", None))
        except Exception as exc:  # handed over whole; the caller classifies it
            events.put(("error", exc))

    def _finish(self, builder: TurnBuilder, request: ChatRequest, *, cancelled: bool) -> AssistantTurn:
        turn = builder.turn()
        if cancelled:
            turn.tool_calls = []
            turn.finish_reason = "cancelled"
        elif turn.tool_calls:
            self._seen_native_call = True
        elif self._parses_text(request):
            anywhere = self.tool_calls == "text"
            calls, rest = parse_text_tool_calls(
                turn.content, request.tool_schemas(), anywhere=anywhere, model=self.config.model
            )
            if calls:
                names = ", ".join(c.name for c in calls)
                self._log(f"model: the reply wrote {len(calls)} tool call(s) as text ({names}); parsed into tool_calls")
                turn.tool_calls, turn.content = calls, rest
        if builder.reported_usage() is None:
            turn.usage = self._estimate_usage(request, turn)
        elif not cancelled:
            check_prompt_not_truncated(self.config, request.messages, request.tools, turn.usage.prompt_tokens)
        return turn

    def _parses_text(self, request: ChatRequest) -> bool:
        """Whether calls written as text count: never without tools or under "native"; under "auto" only
        until the model has called a tool natively, so a quoted call in a native model's prose is not run."""
        if not request.tools or self.tool_calls == "native":
            return False
        return self.tool_calls == "text" or not self._seen_native_call

    def _estimate_usage(self, request: ChatRequest, turn: AssistantTurn) -> Usage:
        if not self._told_estimated:
            self._log("model: the server reports no token usage; estimating it as characters / 4")
            self._told_estimated = True
        # An image counts by the rule of agent/images.py, not by the length of its base64 text.
        texts = [{**m, "content": content_text(m["content"])} for m in request.messages]
        prompt = json.dumps(texts) + (json.dumps(request.tools) if request.tools else "")
        images = sum(image_tokens(m) for m in request.messages)
        reply = turn.content + turn.reasoning + "".join(c.name + c.arguments for c in turn.tool_calls)
        return Usage(
            prompt_tokens=estimate_text_tokens(prompt) + images, completion_tokens=estimate_text_tokens(reply),
            estimated=True,
        )


def _mid_call(turn: AssistantTurn) -> bool:
    """Whether a cut reply stopped inside a tool call (native, or one being written as text)."""
    return bool(turn.tool_calls) or held_back_length(turn.content) > 0


def build_chat_model(
    config: ModelConfig, debug_log: DebugLog | None = None, tool_calls: TextCallMode = "auto"
) -> ChatModel:
    """The client for a resolved ModelConfig (see `providers.resolve_model_config`); `tool_calls` is the
    setting of that name: when calls written as text are parsed."""
    return OpenAIChatModel(config, debug_log=debug_log, tool_calls=tool_calls)
