"""One parser per tool-call dialect, and the one place that runs them over a reply.

Every dialect whose opener appears in the reply reads its blocks; the model family's own dialect is asked
first, so where two could read the same text the family's reading wins. Blocks nested in (or overlapping) an
earlier one are dropped: a marker quoted inside another block's arguments, or inside reasoning, is not a call.
"""

from __future__ import annotations

import re

from sneakycode.agent.model.dialects import (
    deepseek,
    dsml,
    functionary,
    gemma,
    harmony,
    json_blocks,
    json_reply,
    kimi,
    llama,
    minimax_m2,
    mistral,
    pythonic,
    reasoning,
    tagged,
    tool_calls_tag,
)
from sneakycode.agent.model.dialects.base import Block, Dialect
from sneakycode.agent.model.text_call_args import Schemas

DIALECTS: tuple[Dialect, ...] = (
    reasoning.DIALECT,
    harmony.DIALECT,
    deepseek.DIALECT,
    dsml.DIALECT,
    kimi.DIALECT,
    minimax_m2.DIALECT,
    gemma.DIALECT,
    json_blocks.COMMAND_R,
    json_blocks.INTERNLM,
    json_blocks.GRANITE,
    json_blocks.FUNCTOOLS_LIST,
    tool_calls_tag.DIALECT,
    mistral.DIALECT,
    llama.DIALECT,
    functionary.DIALECT,
    tagged.DIALECT,
    pythonic.DIALECT,
    json_reply.DIALECT,
)

# Families whose dialect is read by a parser registered under another name.
_PARSER_OF_FAMILY = {
    "qwen3_coder": "hermes",
    "glm45": "hermes",
    "glm47": "hermes",
    "deepseek_v31": "deepseek_v3",
    "deepseek_r1": "deepseek_v3",
    "minimax": "jamba",
    "hunyuan": "jamba",
    "xlam": "json",
    "olmo": "pythonic",
    "functiongemma": "gemma",
}

MARKERS: tuple[str, ...] = tuple(marker for dialect in DIALECTS for marker in dialect.markers)
# Where a block may start mid-reply: streamed text from here on is held back until the reply is complete.
OPENERS = re.compile(
    "|".join(d.opener.pattern for d in DIALECTS if d.name not in ("reasoning", "json", "pythonic", "functionary_v3"))
    + r"|<\|python_start\|>|<function_calls>|<\|tool_call_start\|>|>>>[A-Za-z_]|\[\s*[A-Za-z_][\w.]*\s*\("
)


def find_blocks(content: str, schemas: Schemas, family: str | None) -> list[Block]:
    """The outermost blocks of every dialect in `content`, in order."""
    preferred = _PARSER_OF_FAMILY.get(family or "", family)
    ranked = sorted(range(len(DIALECTS)), key=lambda i: (DIALECTS[i].name != preferred, i))
    found: list[tuple[int, int, int, Block]] = []
    for rank, index in enumerate(ranked):
        dialect = DIALECTS[index]
        if dialect.opener.search(content) is None:
            continue
        found.extend((block.start, rank, -block.end, block) for block in dialect.find(content, schemas, family))
    found.sort(key=lambda item: item[:3])
    kept: list[Block] = []
    reach = -1
    for start, _rank, _end, block in found:
        if start >= reach:
            kept.append(block)
            reach = max(block.end, start + 1)
    return kept
