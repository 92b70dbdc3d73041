"""Reasoning that a model wrote into its content between `<think>` tags, split from the answer.

Qwen 3, DeepSeek-R1, QwQ and gpt-oss served without a reasoning parser put their thinking in the content:
``<think>...</think>answer`` (or `<thinking>`). The split runs before anything else reads the content, so
the user sees only the answer and a tool call written while thinking is never parsed, let alone run. An
unclosed tag means the model was still thinking when the reply ended: the rest is reasoning. A lone
`</think>` is the other half of the same convention: templates that open the tag in the prompt make the
reply start inside it.
"""

from __future__ import annotations

import re

OPEN_TAGS = ("<think>", "<thinking>")
_CLOSED = re.compile(r"<(think|thinking)>(.*?)</\1>", re.DOTALL)
_UNCLOSED = re.compile(r"<(?:think|thinking)>(.*)\Z", re.DOTALL)
_LONE_CLOSE = re.compile(r"\A(.*?)</(?:think|thinking)>", re.DOTALL)


def split_think(content: str, *, streaming: bool = False) -> tuple[str, str]:
    """(reasoning, answer) of `content`; with `streaming`, a tail that may yet open a tag is held out of both.

    While a reply streams in, the answer of a longer prefix always extends the answer of a shorter one, so
    the caller can show it piece by piece.
    """
    if "<" not in content:
        return "", content
    thoughts: list[str] = []
    lone = _LONE_CLOSE.match(content)
    if lone and not any(tag in lone.group(1) for tag in OPEN_TAGS):
        thoughts.append(lone.group(1))
        content = content[lone.end() :]

    def keep_thought(match: re.Match[str]) -> str:
        thoughts.append(match.group(2))
        return ""

    answer = _CLOSED.sub(keep_thought, content)
    unclosed = _UNCLOSED.search(answer)
    if unclosed:
        thoughts.append(unclosed.group(1))
        answer = answer[: unclosed.start()]
    elif streaming:
        answer = answer[: len(answer) - _partial_open_tag(answer)]
    reasoning = "\n\n".join(t.strip() for t in thoughts if t.strip())
    return reasoning, answer.lstrip() if thoughts else answer


def _partial_open_tag(text: str) -> int:
    """The length of a tail of `text` that is the start of an opening tag (0 if none)."""
    start = text.rfind("<")
    if start < 0:
        return 0
    tail = text[start:]
    return len(tail) if any(tag.startswith(tail) for tag in OPEN_TAGS) else 0
