"""Reasoning written into the reply (`<think>`, `<thinking>`, Magistral's `[THINK]`, Command R7B's
`<|START_THINKING|>`, Seed-OSS's `<seed:think>`, Gemma 4's `<|channel>`): a block with no calls, so a call
written while thinking is never read, let alone run. The client splits `<think>` off before parsing; this
keeps the parser safe on its own (and covers the other spellings).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect
from sneakycode.agent.model.text_call_args import Schemas

PAIRS = (
    ("<think>", "</think>"),
    ("<thinking>", "</thinking>"),
    ("[THINK]", "[/THINK]"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
    ("<seed:think>", "</seed:think>"),
    ("<|channel>", "<channel|>"),
)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del schemas, family
    position = 0
    for _open, close in PAIRS:  # a lone closing tag: the reply started inside the reasoning
        lone = content.find(close)
        opened = content.find(_open)
        if lone >= 0 and (opened < 0 or opened > lone):
            yield Block(0, lone + len(close))
            position = lone + len(close)
            break
    while True:
        starts = [(content.find(o, position), o, c) for o, c in PAIRS if content.find(o, position) >= 0]
        if not starts:
            return
        start, opening, close = min(starts)
        closing = content.find(close, start + len(opening))
        end = len(content) if closing < 0 else closing + len(close)
        yield Block(start, end)
        position = end


DIALECT = Dialect(
    "reasoning",
    re.compile("|".join(re.escape(tag) for pair in PAIRS for tag in pair)),
    (),
    find,
)


def answer_start(content: str) -> int:
    """Where the answer starts: after the reasoning blocks (and whitespace) that open the reply."""
    position = 0
    for block in find(content, {}, None):
        if content[position : block.start].strip():
            break
        position = block.end
    return position
