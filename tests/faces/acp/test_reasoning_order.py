"""Reasoning reaches the editor as it arrives, before the answer it precedes (it used to come whole, after the
answer's text), once, whether the server sends it in a field or in `<think>` tags; through the ACP SDK client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import schema

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor
from tests.faces.acp.test_turns import one_session

THOUGHT = "The user greets me; a short greeting back will do, nothing to look up."


def kinds(editor: Editor) -> list[str]:
    """The order of thought and answer chunks, runs of one kind folded into one."""
    seen: list[str] = []
    for _sid, update in editor.updates:
        kind = {schema.AgentThoughtChunk: "thought", schema.AgentMessageChunk: "answer"}.get(type(update))
        if kind and (not seen or seen[-1] != kind):
            seen.append(kind)
    return seen


@pytest.mark.parametrize("step", [
    {"reasoning": THOUGHT, "content": "Hello there, how can I help?"},
    {"content": f"<think>{THOUGHT}</think>Hello there, how can I help?"},
], ids=["reasoning_content", "think_tags"])
def test_reasoning_streams_before_the_answer_and_is_shown_once(ws: Path, server: ScriptedServer,
                                                               step: dict[str, Any]) -> None:
    server.add_steps([step])
    editor = Editor()
    [response] = one_session(editor, server, ws, "hi")
    assert response.stop_reason == "end_turn"
    assert kinds(editor) == ["thought", "answer"]
    thoughts = [u.content.text for u in editor.of(schema.AgentThoughtChunk)]
    assert len(thoughts) > 1 and "".join(thoughts) == THOUGHT  # piece by piece, and once
    assert editor.text() == "Hello there, how can I help?"
