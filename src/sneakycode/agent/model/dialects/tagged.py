"""Hermes-style tagged calls, the most common dialect and the one most families borrow.

`<tool_call>` holds JSON (Hermes 2/3, Qwen 2.5/3, Granite 3.1's list), Qwen3-Coder's `<function=NAME>` with
`<parameter=KEY>` values, or GLM-4.5's `NAME<arg_key>K</arg_key><arg_value>V</arg_value>`. A `<function=NAME>`
outside it holds parameters or, in the Llama 3.1 / Functionary v3.1 / Hermes-2-Pro form, a JSON object: a body
that is JSON is read as JSON, never as XML with no parameters. llama.cpp's lenient Hermes tags (`<function_call>`,
`<tool>`, `<tools>`, `<response>`, `<json>`, `<xml>`, `<JSON>`) count when a `{"name"` follows, and any of these
may sit inside a ```json / ```xml fence.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import (
    Block,
    Dialect,
    json_values,
    skip_space,
    unreadable_block,
    why,
)
from sneakycode.agent.model.dialects.xml_bodies import FUNCTION_OPEN, function_body, glm_body
from sneakycode.agent.model.text_call_args import Schemas, call_from_json_object
from sneakycode.agent.protocol import ToolCall

LENIENT_TAGS = ("function_call", "tool", "tools", "response", "json", "xml", "JSON")
OPENER = re.compile(
    r"(?P<fence>```(?:json|xml)?[ \t]*\n\s*)?"
    r'(?:<(?P<tag>tool_call|seed:tool_call|' + "|".join(LENIENT_TAGS) + r')>|<function=|<function name=")'
)
_NAMED_JSON = re.compile(r'\s*\{\s*"name"')
_FENCE_END = re.compile(r"\s*```")
_STRAY_CLOSE = re.compile(r"\s*</tool_call>")


def _format(family: str | None) -> str:
    return {"qwen3_coder": "qwen_xml", "glm45": "glm45", "glm47": "glm45"}.get(family or "", "hermes")


def _function_call(content: str, opened: re.Match[str], schemas: Schemas, family: str | None) -> Block:
    """`<function=NAME>` (or `<function name="NAME">`) through its `</function>`."""
    name = opened.group(1) if opened.group(1) is not None else opened.group(2)
    body_start = opened.end()
    closing = content.find("</function>", body_start)
    first = skip_space(content, body_start)
    if first < len(content) and content[first] in "{[":
        # A JSON body is read as JSON, so a `</function>` inside one of its strings does not cut it short.
        try:
            _values, json_end = json_values(content, first, separators="")
            closing = content.find("</function>", json_end)
        except ValueError:
            pass
    body_end = len(content) if closing < 0 else closing
    call = function_body(name, content[body_start:body_end], schemas)
    end = len(content) if closing < 0 else closing + len("</function>")
    stray_close = _STRAY_CLOSE.match(content, end)  # the `<tool_call>` that opened it was left out
    return Block(opened.start(), stray_close.end() if stray_close else end, [call])


def _json_body(content: str, start: int, close: str, schemas: Schemas) -> tuple[list[ToolCall], int, str]:
    """The calls in the JSON after a tag, the end of the block, and why it is unreadable ("" if it is not)."""
    try:
        values, end = json_values(content, start)
    except ValueError as exc:
        closing = content.find(close, start)
        return [], len(content) if closing < 0 else closing + len(close), f"it is not valid JSON ({why(exc)})"
    after = skip_space(content, end)
    if content.startswith(close, after):
        end = after + len(close)
    elif after < len(content) and not OPENER.match(content, after):
        closing = content.find(close, after)
        if closing >= 0 and content[after:closing].strip():
            return [], closing + len(close), "it holds text after its JSON"
    return [call_from_json_object(v, "hermes", schemas) for v in values], end, ""


def _tagged(content: str, opened: re.Match[str], schemas: Schemas, family: str | None) -> Block | None:
    tag = opened.group("tag")
    close = f"</{tag}>"
    body_start = opened.end()
    if tag in LENIENT_TAGS and not _NAMED_JSON.match(content, body_start):
        return None
    first = skip_space(content, body_start)
    if first < len(content) and content[first] in "{[":
        calls, end, problem = _json_body(content, first, close, schemas)
        if problem:
            reason = f"the <{tag}> block cannot be read: {problem}"
            return unreadable_block(opened.start(), end, reason, _format(family), schemas)
        return Block(opened.start(), end, calls)
    closing = content.find(close, body_start)
    body_end = len(content) if closing < 0 else closing
    end = len(content) if closing < 0 else closing + len(close)
    functions = list(FUNCTION_OPEN.finditer(content, first, body_end))
    if functions and functions[0].start() == first:
        calls = []
        for index, function in enumerate(functions):
            stop = functions[index + 1].start() if index + 1 < len(functions) else body_end
            inner = content[function.end() : stop]
            inner_end = inner.rfind("</function>")
            name = function.group(1) if function.group(1) is not None else function.group(2)
            if inner_end >= 0 and inner[inner_end + len("</function>") :].strip():
                reason = "the <tool_call> block holds text after </function>"
                return unreadable_block(opened.start(), end, reason, _format(family), schemas)
            calls.append(function_body(name, inner if inner_end < 0 else inner[:inner_end], schemas))
        return Block(opened.start(), end, calls)
    call = glm_body(content[body_start:body_end], schemas, family)
    if call is not None and closing < 0:  # a GLM call is read only once it is closed, as its own parsers do
        reason = "the <tool_call> block is not closed with </tool_call>"
        return unreadable_block(opened.start(), end, reason, "glm45", schemas)
    if call is not None:
        return Block(opened.start(), end, [call])
    reason = f"the <{tag}> block is neither JSON nor a <function=...> call"
    return unreadable_block(opened.start(), end, reason, _format(family), schemas)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    position = 0
    while (opened := OPENER.search(content, position)) is not None:
        if opened.group("tag") is None:
            function = FUNCTION_OPEN.match(content, opened.start() + len(opened.group("fence") or ""))
            if function is None:
                position = opened.end()
                continue
            block: Block | None = _function_call(content, function, schemas, family)
        else:
            block = _tagged(content, opened, schemas, family)
        if block is None:
            position = opened.end()
            continue
        # GLM-4.5+ tokenizers make <tool_call> one special token, which a GLM model emits only to call.
        glm_token = family in ("glm45", "glm47") and opened.group("tag") == "tool_call"
        block.token = glm_token and content.startswith("</tool_call>", block.end - len("</tool_call>"))
        if opened.group("fence"):
            block.start = opened.start()
            fence_end = _FENCE_END.match(content, block.end)
            block.end = fence_end.end() if fence_end else block.end
        yield block
        position = max(block.end, opened.end())


DIALECT = Dialect(
    "hermes",
    re.compile(
        r'<tool_call>|<seed:tool_call>|<function=|<function name="|<(?:' + "|".join(LENIENT_TAGS) + r')>\s*\{\s*"name"'
    ),
    ("<tool_call>", "<seed:tool_call>", "<function=", "<function_call>"),
    find,
)
