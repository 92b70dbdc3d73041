"""What the agent tells its EventSink as a run goes: one TypedDict per event, told apart by `type`.

Headless mode streams most of them as JSON lines (`stream-json`), so their fields are a public contract;
the terminal renders them. `tool_result.content` is exactly what the model sees.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class _Tagged(TypedDict, total=False):
    agent: str  # the subagent that emitted it ("explore-1"); absent for the main agent's own events


class TurnEvent(_Tagged):
    type: Literal["turn"]
    turn: int


class TextDeltaEvent(_Tagged):
    type: Literal["text_delta"]
    text: str


class ReasoningDeltaEvent(_Tagged):
    """A piece of the reasoning as it arrives, before the answer it precedes (a model that streams it)."""

    type: Literal["reasoning_delta"]
    text: str


class ReasoningEvent(_Tagged):
    """A reply's whole reasoning, after the reply; `streamed` when its pieces came first as `reasoning_delta`
    (a face that showed them does not show it again)."""

    type: Literal["reasoning"]
    text: str
    streamed: NotRequired[bool]


class CallSummary(TypedDict):
    id: str
    name: str
    arguments: str


class AssistantEvent(_Tagged):
    type: Literal["assistant"]
    text: str
    tool_calls: list[CallSummary]
    finish_reason: NotRequired[str | None]  # why the reply ended, as the server said (stop, length, content_filter)


class UsageEvent(_Tagged):
    """One model request: `prompt_tokens` = `cached_tokens` (served from the server's prompt cache) +
    `prefilled_tokens` (evaluated anew); `cache_reported` false when the server does not say what it cached;
    `prefill_seconds` when it says how long reading the prompt took (llama.cpp). `session_*`: the session's
    totals so far, subagents included."""

    type: Literal["usage"]
    prompt_tokens: int
    completion_tokens: int
    estimated: bool
    history_tokens_estimate: int
    cached_tokens: int
    prefilled_tokens: int
    cache_reported: bool
    prefill_seconds: float | None
    session_cached_tokens: int
    session_prefilled_tokens: int
    session_prefill_seconds: float | None


class ToolCallEvent(_Tagged):
    type: Literal["tool_call"]
    id: str
    name: str
    arguments: str
    headline: str  # the argument that says what the call is about (command, path, pattern), or ""


class PermissionEvent(_Tagged):
    type: Literal["permission"]
    id: str
    name: str
    decision: str
    reason: str
    rule: str | None
    outcome: Literal["denied", "approved", "rejected"]
    how_to_allow: NotRequired[str]


class ToolResultEvent(_Tagged):
    type: Literal["tool_result"]
    id: str
    name: str
    success: bool
    code: str | None
    content: str
    quiet: bool  # the tool asks not to be shown when it succeeds (finish, update_tasks)


class TasksEvent(_Tagged):
    type: Literal["tasks"]
    tasks: list[dict[str, str]]


class NoticeEvent(_Tagged):
    type: Literal["notice"]
    message: str
    traceback: NotRequired[str]  # an internal error's (a bug's) traceback, for diagnosis; shown only when verbose


class SubagentEvent(TypedDict):
    type: Literal["subagent"]
    agent: str  # this subagent's id: its definition's name and a number ("explore-1")
    phase: Literal["start", "end"]
    prompt: str
    status: NotRequired[str]  # at the end: how its run ended (finished, answered, turn_limit, cancelled, error)
    turns: NotRequired[int]


class StallEvent(_Tagged):
    type: Literal["stall"]
    source: Literal["model", "tool"]  # waiting for the model's reply, or for a running tool call
    seconds: int  # how long nothing has arrived (sent again each time stall_seconds more pass)
    message: str  # what is waiting, for how long, and what happens next
    id: NotRequired[str]  # the tool call's id (source "tool")
    name: NotRequired[str]  # the tool's name (source "tool")


class ProgressEvent(_Tagged):
    type: Literal["progress"]
    id: str  # the tool call's id
    name: str
    elapsed: int  # seconds since the call started
    last_line: str  # the last line of output so far ("" before any)


Event = (
    TurnEvent
    | TextDeltaEvent
    | ReasoningDeltaEvent
    | ReasoningEvent
    | AssistantEvent
    | UsageEvent
    | ToolCallEvent
    | PermissionEvent
    | ToolResultEvent
    | TasksEvent
    | NoticeEvent
    | SubagentEvent
    | StallEvent
    | ProgressEvent
)
