"""What every dialect parser shares: the block it finds, how it describes itself, and the small JSON scanning
helpers the JSON dialects need.

A dialect finds *blocks*: the span of the reply that is its markup, the calls read from it, and the text (if
any) that stays in the reply in its place. A block that is clearly meant as a call but cannot be read yields
an invalid call, so nothing in the reply runs (see `text_tool_calls`) and the model is told the format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sneakycode.agent.model.text_call_args import Schemas, invalid_call
from sneakycode.agent.protocol import ToolCall


@dataclass
class Block:
    """One stretch of a reply that a dialect owns: `calls` read from it and `text` left in its place."""

    start: int
    end: int
    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    # Opened by one of the model's own special tokens (DeepSeek's `<｜tool▁calls▁begin｜>`, FunctionGemma's
    # `<start_function_call>`, ...), which a model emits only to call and never types when it explains: such a
    # closed block is a call even with prose after it, as its serving stacks read it.
    token: bool = False
    # Its calls stand alone, as its serving stacks run them (Kimi K2's section, MiniMax's lines): one that
    # cannot be read is answered on its own and does not stop the others, as with native tool calls.
    independent: bool = False


# (content, schemas, the dialect the model's family writes or None) -> the blocks found, in order.
Finder = Callable[[str, Schemas, "str | None"], Iterator[Block]]


@dataclass(frozen=True)
class Dialect:
    """A tool-call dialect: where its blocks start (`opener`), the literal markers a stream may be in the middle
    of, and the finder that reads its blocks."""

    name: str
    opener: re.Pattern[str]
    markers: tuple[str, ...]
    find: Finder


# Special tokens some servers leave in the text after a call; they end the reply, they are not prose.
END_TOKEN_LIST = (
    "<|eom_id|>", "<|eot_id|>", "<|eot|>", "</s>", "<｜end▁of▁sentence｜>", "<|im_end|>", "<|endoftext|>",
    "<|end|>", "<|return|>", "<|call|>", "<|END_OF_TURN_TOKEN|>", "<|python_end|>", "</answer>",
)
END_TOKENS = re.compile(
    r"(?:" + "|".join(re.escape(t) for t in END_TOKEN_LIST) + r"|<[｜|]end[▁_ ]of[▁_ ]sentence[｜|]>|\s)*$"
)
FENCE = re.compile(r"^```[a-zA-Z]*[ \t]*\n?(.*?)\s*```$", re.DOTALL)
_DECODER = json.JSONDecoder()


def why(exc: Exception) -> str:
    """A JSON parse failure in a few words."""
    return exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"


def skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def read_json(text: str, index: int) -> tuple[Any, int]:
    """The JSON value starting at `index` (after any whitespace) and where it ends; raises ValueError."""
    index = skip_space(text, index)
    try:
        return _DECODER.raw_decode(text, index)
    except RecursionError as exc:
        raise json.JSONDecodeError("nested too deeply", text, index) from exc


def json_values(text: str, start: int, separators: str = ";,") -> tuple[list[Any], int]:
    """The JSON objects and arrays from `start` on, separated by whitespace or `separators`, and where they stop.

    A JSON list contributes its items. Raises ValueError at the first value that opens but does not parse.
    """
    values: list[Any] = []
    index = start
    while True:
        probe = index
        while probe < len(text) and (text[probe].isspace() or (values and text[probe] in separators)):
            probe += 1
        if probe >= len(text) or text[probe] not in "[{" or (text[probe] == "[" and not _opens_json(text, probe)):
            return values, index
        value, index = read_json(text, probe)
        values.extend(value if isinstance(value, list) else [value])


def _opens_json(text: str, index: int) -> bool:
    """Whether the `[` at `index` opens a JSON array rather than a marker such as `[TOOL_CALLS]`."""
    nxt = skip_space(text, index + 1)
    if nxt >= len(text):
        return False
    return text[nxt] in '{["]-' or text[nxt].isdigit() or text.startswith(("true", "false", "null"), nxt)


def unreadable_block(start: int, end: int, reason: str, dialect: str, schemas: Schemas) -> Block:
    """A block meant as a call whose body cannot be read: it runs nothing and the model is told the format."""
    return Block(start, end, [invalid_call(reason, dialect, schemas)])


def no_call_block(
    content: str, start: int, marker_end: int, end: int, reason: str, dialect: str, schemas: Schemas
) -> Block:
    """A marker with no call after it. In a reply that opens with it, the rest of the reply (to `end`) is a call
    gone wrong; named inside prose, it is a mention, and its block is the marker alone, so the prose after it
    keeps it from counting (see `text_tool_calls`)."""
    return unreadable_block(start, marker_end if content[:start].strip() else end, reason, dialect, schemas)


def literal_markers(*markers: str) -> re.Pattern[str]:
    """An opener that is any of `markers`, written literally."""
    return re.compile("|".join(re.escape(m) for m in markers))
