"""Reasoning written between `<think>` tags in the content, split from the answer (whole and while streaming)."""

from __future__ import annotations

import pytest

from sneakycode.agent.model.think_tags import split_think


@pytest.mark.parametrize(
    ("content", "reasoning", "answer"),
    [
        ("<think>plan it</think>Answer", "plan it", "Answer"),
        ("<think>\nplan it\n</think>\n\nAnswer", "plan it", "Answer"),
        ("<thinking>plan it</thinking>Answer", "plan it", "Answer"),
        ("  <think>still thinking when the reply ended", "still thinking when the reply ended", ""),
        ("plan it</think>Answer", "plan it", "Answer"),  # the template opened the tag in the prompt
        ("Sure.<think>aside</think> Done.", "aside", "Sure. Done."),
        ("<think>a</think>x<think>b</think>y", "a\n\nb", "xy"),
        ("No tags, just a < b comparison.", "", "No tags, just a < b comparison."),
        ("<thinker> is not a tag", "", "<thinker> is not a tag"),
    ],
)
def test_split_think(content: str, reasoning: str, answer: str) -> None:
    assert split_think(content) == (reasoning, answer)


def test_streamed_answer_only_grows_and_never_shows_the_reasoning() -> None:
    content = "<think>I could call <tool_call>{}</tool_call></think>\n\nHere is the answer <b>bold</b>."
    shown = ""
    for end in range(len(content) + 1):
        _, answer = split_think(content[:end], streaming=True)
        assert answer.startswith(shown), f"answer at {end} does not extend what was shown"
        assert "think" not in answer and "tool_call" not in answer
        shown = answer
    assert shown == "Here is the answer <b>bold</b>."


@pytest.mark.parametrize("tail", ["<", "<th", "<think", "<thinking"])
def test_a_tail_that_may_open_a_tag_is_held_back_while_streaming(tail: str) -> None:
    assert split_think("Answer " + tail, streaming=True) == ("", "Answer ")
    assert split_think("Answer " + tail) == ("", "Answer " + tail)
