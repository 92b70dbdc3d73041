"""DeepSeek's tool-call tokens: V3 / R1 write `function<｜tool▁sep｜>NAME` and the arguments in a ```json fence,
V3.1 writes `NAME<｜tool▁sep｜>{json}`. The tokens reach us in several spellings (the `▁` as `_` or a space,
escaped `\\_`, the full-width `｜` as `|`, R1's `<｜tool▁calls｜>`), so the markers are matched by shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import FENCE, Block, Dialect, no_call_block
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments, invalid_call
from sneakycode.agent.protocol import ToolCall

_BAR, _GAP = r"[｜|]", r"(?:▁|_|\\_| )"


def _token(*words: str) -> str:
    return "<" + _BAR + _GAP.join(words) + _BAR + ">"


CALLS_BEGIN = re.compile(_token("tool", "calls", "begin") + "|" + _token("tool", "calls"))
CALLS_END = re.compile(_token("tool", "calls", "end"))
CALL_BEGIN = re.compile(_token("tool", "call", "begin"))
CALL_END = re.compile(_token("tool", "call", "end"))
SEP = re.compile(_token("tool", "sep"))
_BARE_FIRST = re.compile(r"\s*function" + SEP.pattern)


def _format(family: str | None) -> str:
    return "deepseek_v31" if family == "deepseek_v31" else "deepseek"


def _call(inner: str, schemas: Schemas, family: str | None) -> ToolCall:
    """One call between its begin and end tokens."""
    parts = SEP.split(inner, maxsplit=1)
    if len(parts) < 2:
        return invalid_call("the DeepSeek tool call has no <｜tool▁sep｜>", _format(family), schemas)
    head, tail = parts
    if head.strip() == "function":  # V3/R1: function<sep>NAME, then the arguments in a json fence
        name, _, arguments = tail.partition("\n")
    else:  # V3.1: NAME<sep>{arguments}
        name, arguments = head, tail
    fenced = FENCE.match(arguments.strip())
    return call_with_arguments(name.strip(), fenced.group(1) if fenced else arguments, _format(family), schemas)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    opened = CALLS_BEGIN.search(content) or CALL_BEGIN.search(content)
    if opened is None:
        return
    closing = CALLS_END.search(content, opened.end())
    end = len(content) if closing is None else closing.end()
    region = content[opened.start() : end if closing is None else closing.start()]
    calls: list[ToolCall] = []
    starts = [begin.end() for begin in CALL_BEGIN.finditer(region)]
    lead = CALLS_BEGIN.match(region)
    if lead and _BARE_FIRST.match(region, lead.end()) and CALL_END.search(region):
        starts.insert(0, lead.end())  # R1 may leave out the first call's begin token, never its end token
    for index, start in enumerate(starts):
        stop = starts[index + 1] if index + 1 < len(starts) else len(region)
        stopped = CALL_END.search(region, start, stop)
        calls.append(_call(region[start : stopped.start() if stopped else stop], schemas, family))
    if not calls:
        reason = "the DeepSeek tool-call block holds no call"
        yield no_call_block(content, opened.start(), opened.end(), end, reason, _format(family), schemas)
        return
    yield Block(opened.start(), end, calls, token=closing is not None)


DIALECT = Dialect(
    "deepseek_v3",
    re.compile(CALLS_BEGIN.pattern + "|" + CALL_BEGIN.pattern),
    ("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁calls｜>"),
    find,
)
