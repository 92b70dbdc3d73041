"""Typed chat messages (issue 24): a conversation read back from its transcript is checked once, at the
boundary, and goes on exactly as it was sent; one that is not a chat message is refused with a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sneakycode.agent.loop import RESUMED_NOTE, Agent
from sneakycode.agent.messages import history_from
from sneakycode.agent.model.client import prepare_messages
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.errors import ConfigError
from sneakycode.session.transcript import Transcript, load_transcript
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext
from sneakycode.tools.images import load_image_file


class Sink:
    def emit(self, event: Any) -> None:
        pass


def wire(messages: Any) -> str:
    """The request's messages as the client serialises them."""
    return json.dumps(prepare_messages(messages), ensure_ascii=False)


def test_a_resumed_conversation_is_sent_byte_for_byte_as_before(ctx: ToolContext, ws: Path) -> None:
    """Regression guard for typing the history: replaying a transcript (tool calls, an image with its kept
    size, a tool result) and validating it at the boundary changes nothing the server receives."""
    ctx.supports_images = True
    Image.new("RGB", (40, 30), "white").save(ws / "shot.png")
    (ws / "a.txt").write_text("hello\n")
    call = ToolCall(id="call_1", name="read_file", arguments=json.dumps({"file_path": "a.txt"}))
    first_model = ScriptedModel([
        AssistantTurn(content="Reading.", tool_calls=[call], usage=Usage(10, 5)),
        AssistantTurn(content="It says hello.", usage=Usage(10, 5)),
    ])
    transcript = Transcript(ctx.session_dir)
    first = Agent(Binding(BoundModel(first_model)), Calls(ctx, None), Conversation(transcript=transcript),
                  RunConfig(Sink(), main=True))
    first.run_turn("What is in a.txt? See the shot too.", [load_image_file(ws / "shot.png")])
    transcript.close()
    saved = load_transcript(ctx.session_dir / "transcript.jsonl")
    second_model = ScriptedModel([AssistantTurn(content="Still hello.", usage=Usage(10, 5))])
    second = Agent(Binding(BoundModel(second_model)), Calls(ctx, None), Conversation(history=saved.messages),
                   RunConfig(Sink(), main=True))
    second.run_turn("And now?")
    before = json.loads(wire(first.history))
    after = json.loads(wire(second_model.requests[0]))
    assert [m["role"] for m in before] == ["system", "user", "assistant", "tool", "assistant"]
    assert wire(after[: len(before)]) == wire(before)  # the system prompt too: the resumed note comes after
    assert after[len(before):] == [{"role": "user", "content": f"[{RESUMED_NOTE}]\n\nAnd now?"}]
    assert "image_sizes" in first.history[1] and "image_sizes" in second.history[1]  # kept, never sent


def test_a_transcript_message_that_is_not_a_chat_message_is_refused_by_number() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
                                                             "function": {"name": "list_dir", "arguments": "{}"}}]},
        {"role": "tool", "content": "listing"},  # no tool_call_id: no server would take it
    ]
    with pytest.raises(ConfigError) as caught:
        history_from(messages, "session abc")
    assert str(caught.value).startswith("session abc: message 3 is not a chat message")
    assert "tool_call_id" in str(caught.value)
    with pytest.raises(ConfigError, match=r"message 1 .*'function'"):
        history_from([{"role": "function", "name": "f", "content": "x"}], "session abc")


def test_an_older_transcripts_null_content_and_empty_calls_are_read_as_always_sent() -> None:
    """`content: null` beside tool calls and `tool_calls: []` were always sent as "" and left out."""
    calls = [{"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}]
    read = history_from([
        {"role": "assistant", "content": None, "tool_calls": calls, "refusal": None},
        {"tool_call_id": "c1", "role": "tool", "content": "listing"},
        {"role": "assistant", "content": "done", "tool_calls": []},
    ], "session abc")
    assert read == [
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "listing"},
        {"role": "assistant", "content": "done"},
    ]


def test_recorded_reasoning_survives_a_resume_and_a_drop_model_never_gets_it() -> None:
    """A resumed Kimi session sends its tool calls' reasoning again (else HTTP 400); a model whose policy is
    `drop` (DeepSeek R1 answers 400 to it) gets none, whoever recorded it."""
    calls = [{"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}]
    read = history_from([{"role": "assistant", "content": "", "reasoning_content": "look first", "tool_calls": calls},
                         {"role": "tool", "tool_call_id": "c1", "content": "listing"}], "session abc")
    assert prepare_messages(read)[0] == {"role": "assistant", "content": "", "reasoning_content": "look first",
                                         "tool_calls": calls}
    assert prepare_messages(read, reasoning=False)[0] == {"role": "assistant", "content": "", "tool_calls": calls}
