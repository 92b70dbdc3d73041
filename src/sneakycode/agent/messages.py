"""The chat messages the loop builds and keeps: one TypedDict per role, told apart by `role`.

They are the OpenAI chat-completions shapes, so the history is sent as it is, less the two keys that never
leave (`image_sizes` and `tool_images`, see agent/images.py; `model.client.prepare_messages` copies what
is sent). Fields are declared in the order the loop writes them, which is the order they are sent in.

Messages that come from outside (a resumed or rewound transcript) are checked once, by `history_from`;
everything after that trusts the types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, TypeAdapter, ValidationError

# pydantic validates TypedDicts only from typing_extensions before Python 3.12.
from typing_extensions import TypedDict

from sneakycode.errors import ConfigError


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class ImageURL(TypedDict):
    url: str  # a data URL: data:image/png;base64,...


class ImageURLPart(TypedDict):
    type: Literal["image_url"]
    image_url: ImageURL


ContentPart = TextPart | ImageURLPart


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[ContentPart]  # parts when it carries images
    image_sizes: NotRequired[list[list[int]]]  # not sent: [width, height] of each image part, in order
    tool_images: NotRequired[bool]  # not sent: True on the message that carries tool results' images


class FunctionCall(TypedDict):
    name: str
    arguments: str  # JSON text, as the model wrote it


class ToolCallRecord(TypedDict):
    """One call of an assistant message, as the model made it (the loop's `ToolCall` is the parsed view)."""

    id: str
    type: Literal["function"]
    function: FunctionCall


class ReasoningDetail(TypedDict):
    type: Literal["reasoning.text"]
    text: str


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str  # with the reasoning in `<think>` tags before the answer, for a family that keeps it there
    # The reply's reasoning, for a family trained to see it again (agent/reasoning_history.py): at most one.
    reasoning_content: NotRequired[str]
    reasoning: NotRequired[str]
    reasoning_details: NotRequired[list[ReasoningDetail]]
    tool_calls: NotRequired[list[ToolCallRecord]]  # present only when the reply called tools


class ToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage
_Tagged = Annotated[Message, Field(discriminator="role")]


def tool_calls_of(message: Message) -> list[ToolCallRecord]:
    """The calls an assistant message made (none for any other message)."""
    return message.get("tool_calls", []) if message["role"] == "assistant" else []


@cache
def _history_adapter() -> TypeAdapter[list[Message]]:
    # Built on first use: most commands never resume a conversation.
    return TypeAdapter(list[_Tagged], config={"strict": True})


def history_from(messages: Iterable[Mapping[str, Any]], source: str) -> list[Message]:
    """Messages read back from a transcript, checked against the types above (keys the types do not know
    are left out; they were never sent). A ConfigError names the first message that is not a chat message.

    An assistant message with `content: null` or an empty `tool_calls` (what older transcripts and other
    tools write) is taken as the empty text and no calls, which is how it was always sent.
    """
    raw = [_normalised(message) for message in messages]
    try:
        return _history_adapter().validate_python(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = error["loc"]  # (the message's index, its role, the field, ...)
        field = f"{loc[2]}: " if len(loc) > 2 else ""
        raise ConfigError(
            f"{source}: message {int(loc[0]) + 1} is not a chat message this version can send "
            f"({field}{error['msg']}); start a new session instead"
        ) from None


def _normalised(message: Mapping[str, Any]) -> Any:
    if not isinstance(message, Mapping) or message.get("role") != "assistant":
        return message
    fixed = dict(message)
    if fixed.get("content") is None:
        fixed["content"] = ""
    if "tool_calls" in fixed and not fixed["tool_calls"]:
        del fixed["tool_calls"]
    return fixed


def prepare_messages(messages: Sequence[Message], *, reasoning: bool = True) -> list[Message]:
    """The history as servers accept it: each message's standard keys only (a copy, in the order they are
    declared in agent/messages.py), never `content: null` nor an empty `tool_calls`.

    What the loop keeps for itself (an image's size, the mark on tool results' images) is never sent.
    Reasoning is sent where the history holds it (the family's policy put it there when the reply was
    recorded), unless `reasoning` is False: a model that must never see it (DeepSeek R1 answers 400) gets
    none, even from a resumed session or an earlier model. llama.cpp and others answer 500/422 to an
    assistant message with tool calls and null content.
    """
    return [_as_sent(message, reasoning) for message in messages]


def _as_sent(message: Message, reasoning: bool) -> Message:
    if message["role"] == "system":
        return {"role": "system", "content": message["content"]}
    if message["role"] == "user":
        return {"role": "user", "content": message["content"]}
    if message["role"] == "tool":
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]}
    sent: AssistantMessage = {"role": "assistant", "content": message["content"] or ""}
    if reasoning and "reasoning_content" in message:
        sent["reasoning_content"] = message["reasoning_content"]
    if reasoning and "reasoning" in message:
        sent["reasoning"] = message["reasoning"]
    if reasoning and "reasoning_details" in message:
        sent["reasoning_details"] = message["reasoning_details"]
    if message.get("tool_calls"):
        sent["tool_calls"] = message["tool_calls"]
    return sent
