"""The ChatModel for any OpenAI-compatible endpoint, over the official `openai` SDK.

The SDK's own retries are off: this client retries 408/409/429/5xx, dropped connections, timeouts and
malformed event streams itself, with exponential backoff and jitter, honouring Retry-After, so it can log
each attempt, stop on cancel and turn the last failure into a ModelError that says what to do. It also
absorbs what local servers get wrong (see `assembly` and `text_tool_calls`), and is the only module that
imports the SDK, so `sneakycode --help` and `sneakycode tool` never pay for it.

Each request runs in a worker thread that hands chunks to the caller through a queue: a blocked socket
read cannot be interrupted, but the caller can stop waiting for it the moment `cancel` is set.
"""

from __future__ import annotations

import json
import queue
import random
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, cast
from urllib.parse import urlparse

import openai

from sneakycode.agent.images import content_text, image_tokens
from sneakycode.agent.messages import Message, prepare_messages
from sneakycode.agent.model.assembly import TurnBuilder, estimate_text_tokens
from sneakycode.agent.model.failures import (
    MAX_RETRY_AFTER,
    EmptyStream,
    Failure,
    IdleStream,
    MalformedReply,
    classify,
    silence_message,
)
from sneakycode.agent.model.providers import (
    KEY_PROVIDERS,
    LOOPBACK_HOSTS,
    ModelConfig,
    cache_request_fields,
    output_cap,
)
from sneakycode.agent.model.reasoning_policy import ReasoningPolicy, effort_request, reasoning_policy_for
from sneakycode.agent.model.text_tool_calls import held_back_length, parse_text_tool_calls
from sneakycode.agent.model.truncation import check_prompt_not_truncated
from sneakycode.agent.protocol import AssistantTurn, ChatModel, Usage
from sneakycode.errors import ModelError

if TYPE_CHECKING:
    import httpx2

CANCEL_POLL = 0.05
MAX_BACKOFF = 30.0
DebugLog = Callable[[str], None]
TextCallMode = Literal["auto", "native", "text"]


@dataclass
class _Request:
    messages: list[Message]
    tools: list[dict[str, Any]]
    max_tokens: int
    on_activity: Callable[[], None] = lambda: None  # told of every chunk: the agent's stall watch counts on it
    effort: dict[str, Any] = field(default_factory=dict)  # the fields that ask for the reasoning effort
    on_reasoning: Callable[[str], None] | None = None  # told the reasoning as it arrives (an editor shows it)

    def tool_schemas(self) -> dict[str, dict[str, Any]]:
        """Each offered tool's parameters schema, by name: text calls are checked and typed against them."""
        return {str(t.get("function", {}).get("name")): t.get("function", {}).get("parameters", {}) for t in self.tools}


def _loopback_client(scheme: str) -> httpx2.Client:
    """The HTTP client for a server on this machine: a proxy from the environment must not swallow its requests.

    Over plain http it gets a TLS context that trusts no one instead of the system's CA bundle: loading the
    bundle costs some 30 ms of every start and a local server never uses it; a redirect to https then fails
    instead of going unverified.
    """
    verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if scheme == "http" else True
    return openai.DefaultHttpx2Client(trust_env=False, verify=verify)


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
        endpoint = urlparse(config.base_url)
        self._client = openai.OpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.request_timeout,
            max_retries=0,
            http_client=_loopback_client(endpoint.scheme) if endpoint.hostname in LOOPBACK_HOSTS else None,
        )
        self._streaming = True
        self._log: DebugLog = debug_log or (lambda _line: None)
        self._told_estimated = False

    def close(self) -> None:
        self._client.close()

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
        request = _Request(sent, tools, cap, on_activity or (lambda: None), effort, on_reasoning)
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
        self, request: _Request, on_text: Callable[[str], None] | None, cancel: threading.Event | None
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
        self, request: _Request, on_text: Callable[[str], None] | None, cancel: threading.Event | None
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
                    raise self._final_error(failure, retries) from exc
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
        self, request: _Request, on_text: Callable[[str], None] | None, cancel: threading.Event | None
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
        self, request: _Request, streaming: bool, events: queue.Queue[tuple[str, Any]], abandoned: threading.Event
    ) -> None:
        """Runs in the worker thread; every outcome, failures included, goes to the caller through `events`."""
        tools: Any = request.tools if request.tools else openai.omit
        messages = cast(Any, request.messages)
        # OpenAI's own API wants the newer name (its reasoning models refuse max_tokens); other servers the old.
        options: Any = (
            {"max_completion_tokens": request.max_tokens}
            if self.config.provider == "openai"
            else {"max_tokens": request.max_tokens}
        )
        extra = {**cache_request_fields(self.config), **request.effort}
        if extra:  # only for the server kinds that define the fields (through the SDK's extra_body)
            options["extra_body"] = extra
        try:
            if streaming:
                stream = self._client.chat.completions.create(
                    model=self.config.model,
                    messages=messages,
                    tools=tools,
                    stream=True,
                    stream_options={"include_usage": True},
                    **options,
                )
                with stream:
                    for chunk in stream:
                        if abandoned.is_set():
                            return
                        events.put(("chunk", chunk.to_dict()))
            else:
                completion = self._client.chat.completions.create(
                    model=self.config.model, messages=messages, tools=tools, **options
                )
                if not isinstance(completion, openai.BaseModel):
                    raise MalformedReply(f"not a chat completion: {str(completion)[:200]!r}")
                events.put(("completion", completion.to_dict()))
            events.put(("done", None))
        except Exception as exc:  # handed over whole; the caller classifies it
            events.put(("error", exc))

    def _finish(self, builder: TurnBuilder, request: _Request, *, cancelled: bool) -> AssistantTurn:
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

    def _parses_text(self, request: _Request) -> bool:
        """Whether calls written as text count: never without tools or under "native"; under "auto" only
        until the model has called a tool natively, so a quoted call in a native model's prose is not run."""
        if not request.tools or self.tool_calls == "native":
            return False
        return self.tool_calls == "text" or not self._seen_native_call

    def _estimate_usage(self, request: _Request, turn: AssistantTurn) -> Usage:
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

    def _final_error(self, failure: Failure, retries: int) -> ModelError:
        config = self.config
        tries = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
        local_help = f" Is the server running? {config.help}." if config.local and config.help else ""
        if failure.kind == "auth":
            # Only a hosted provider's help is about keys ("get a key at ..."); a local or custom server's says how
            # to start it or set base_url, which a refused key has nothing to do with.
            key_help = config.help if config.provider in KEY_PROVIDERS else ""
            message = (
                f"{config.provider} at {config.base_url} rejected the API key ({failure.summary}). The key came "
                f"from {config.key_source}; check that it is right and still active"
                + (f" ({key_help})." if key_help else ".")
            )
        elif failure.kind == "model_not_found":
            message = self._unknown_model_message(failure)
        elif failure.kind == "context_length":
            message = f"the conversation no longer fits {config.model}'s context window ({failure.summary})."
        elif failure.kind == "bad_request":
            message = f"{config.base_url} refused the request ({failure.summary})."
        elif failure.kind == "timeout":
            message = silence_message(config.base_url, failure, config.request_timeout, tries) + local_help
        elif failure.kind == "connection":
            message = f"cannot reach {config.base_url}{tries}: {failure.summary}.{local_help}"
        else:
            wait = ""
            if failure.retry_after is not None and failure.retry_after > MAX_RETRY_AFTER:
                wait = f" The server asks to wait {failure.retry_after:.0f} s; try again later."
            message = f"{config.base_url} failed{tries}: {failure.summary}.{wait} Raise max_retries to keep trying."
        return ModelError(message, kind=failure.kind)

    def _unknown_model_message(self, failure: Failure) -> str:
        config = self.config
        head = (
            f"{config.base_url} does not offer the model {config.model!r} "
            f"(from {config.model_source}; {failure.summary})."
        )
        try:
            offered = [m.id for m in self._client.models.list()]
        except openai.APIError as exc:
            return f"{head} Listing its /models failed too ({exc}); check base_url (it usually ends in /v1)."
        shown = ", ".join(offered[:40]) + (f", ... ({len(offered)} in all)" if len(offered) > 40 else "")
        return f"{head} It offers: {shown or '(none)'}. Choose one with --model NAME or model = \"NAME\" in the config."


def _mid_call(turn: AssistantTurn) -> bool:
    """Whether a cut reply stopped inside a tool call (native, or one being written as text)."""
    return bool(turn.tool_calls) or held_back_length(turn.content) > 0


def build_chat_model(
    config: ModelConfig, debug_log: DebugLog | None = None, tool_calls: TextCallMode = "auto"
) -> ChatModel:
    """The client for a resolved ModelConfig (see `providers.resolve_model_config`); `tool_calls` is the
    setting of that name: when calls written as text are parsed."""
    return OpenAIChatModel(config, debug_log=debug_log, tool_calls=tool_calls)
