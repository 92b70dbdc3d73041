"""Tool calls that a model wrote into its text instead of the `tool_calls` field, in every common dialect.

Models served without a tool-call parser answer in their training format: Hermes/Qwen2.5
``<tool_call>{json}</tool_call>``, Qwen3-Coder ``<tool_call><function=NAME><parameter=KEY>``, Llama 3.x
``<|python_tag|>{json}``, Mistral ``[TOOL_CALLS][...]``, DeepSeek's ``<｜tool▁call▁begin｜>`` form, or nothing
but a (fenced) JSON object. A marked block always means a call, so one that cannot run comes back invalid
(see `text_call_args`) rather than lost; an unmarked JSON object counts only when it is the whole reply and
names an offered tool, so a reply that merely shows JSON is left alone.

Unless `anywhere` is set, only the marked blocks that close the reply count: a block quoted inside prose,
with more prose after it, is an explanation, not a call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from sneakycode.agent.model.text_call_args import (
    Schemas,
    call_from_json_object,
    call_from_xml_parameters,
    call_with_arguments,
    invalid_call,
)
from sneakycode.agent.protocol import ToolCall

DS_CALLS_BEGIN, DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL_BEGIN, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
MARKERS = ("<tool_call>", "<function=", "<|python_tag|>", "[TOOL_CALLS]", DS_CALLS_BEGIN, DS_CALL_BEGIN)
# Special tokens some servers leave in the text after a call; they end the reply, they are not prose.
END_TOKENS = re.compile(r"(?:<\|eom_id\|>|<\|eot_id\|>|</s>|<｜end▁of▁sentence｜>|<\|im_end\|>|\s)*$")
_JSON_OPENERS = ("{", "[{", "```json", "```\n{")

_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\n]*)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)
_DS_CALL = re.compile(re.escape(DS_CALL_BEGIN) + r"(.*?)(?:" + re.escape(DS_CALL_END) + r"|$)", re.DOTALL)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*(.*?)\s*```$", re.DOTALL)
_MISTRAL_NAMED = re.compile(r"\s*([A-Za-z_][\w.-]*)\[ARGS\]")
_DECODER = json.JSONDecoder()

Span = tuple[int, int, list[ToolCall]]


def _why(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"


def _xml_call(name: str, body: str, schemas: Schemas) -> ToolCall:
    parameters = [(m.group(1).strip(), m.group(2)) for m in _PARAMETER.finditer(body)]
    return call_from_xml_parameters(name.strip(), parameters, schemas)


def _tagged(content: str, schemas: Schemas) -> Iterator[Span]:
    """Hermes/Qwen2.5 JSON and Qwen3-Coder XML inside `<tool_call>`; a lone `<function=...>` too."""
    pattern = _TAGGED if "<tool_call>" in content else _FUNCTION
    for match in pattern.finditer(content):
        if pattern is _FUNCTION:
            yield match.start(), match.end(), [_xml_call(match.group(1), match.group(2), schemas)]
            continue
        body = match.group(1).strip()
        function = _FUNCTION.match(body)
        if function:
            yield match.start(), match.end(), [_xml_call(function.group(1), function.group(2), schemas)]
            continue
        try:
            call = call_from_json_object(json.loads(body), "hermes", schemas)
        except (json.JSONDecodeError, RecursionError) as exc:
            call = invalid_call(f"the <tool_call> block is not valid JSON ({_why(exc)})", "hermes", schemas)
        yield match.start(), match.end(), [call]


def _json_values(text: str, start: int) -> tuple[list[Any], int]:
    """The JSON values from `start` on (separated by whitespace or `;`), and where they stop."""
    values: list[Any] = []
    index = start
    while True:
        while index < len(text) and (text[index].isspace() or text[index] == ";"):
            index += 1
        if index >= len(text) or text[index] not in "[{":
            return values, index
        value, index = _DECODER.raw_decode(text, index)
        values.extend(value if isinstance(value, list) else [value])


def _after_marker(content: str, schemas: Schemas, marker: str, dialect: str) -> Iterator[Span]:
    """Llama's `<|python_tag|>` and Mistral's `[TOOL_CALLS]`: JSON (or Mistral's `NAME[ARGS]{...}`) follows."""
    position = content.find(marker)
    while position >= 0:
        body = position + len(marker)
        named = _MISTRAL_NAMED.match(content, body) if dialect == "mistral" else None
        try:
            if named:
                values, end = _json_values(content, named.end())
                calls = [call_with_arguments(named.group(1), values[0] if values else None, dialect, schemas)]
            else:
                values, end = _json_values(content, body)
                calls = [call_from_json_object(v, dialect, schemas) for v in values]
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = f"the {marker} call is not valid JSON ({_why(exc)})"
            calls, end = [invalid_call(reason, dialect, schemas)], len(content)
        if not calls:
            # A reply that opens with the marker meant a call; the marker named inside prose is a mention.
            end = len(content) if not content[:position].strip() else body
            calls = [invalid_call(f"no JSON tool call follows {marker}", dialect, schemas)]
        yield position, end, calls
        position = content.find(marker, end)


def _llama(content: str, schemas: Schemas) -> Iterator[Span]:
    return _after_marker(content, schemas, "<|python_tag|>", "llama")


def _mistral(content: str, schemas: Schemas) -> Iterator[Span]:
    return _after_marker(content, schemas, "[TOOL_CALLS]", "mistral")


def _deepseek_call(inner: str, schemas: Schemas) -> ToolCall:
    head, sep, tail = inner.partition(DS_SEP)
    if not sep:
        return invalid_call("the DeepSeek tool call has no <｜tool▁sep｜>", "deepseek", schemas)
    if head.strip() == "function":  # V3/R1: function<sep>NAME, then the arguments in a json fence
        name, _, arguments = tail.partition("\n")
    else:  # V3.1: NAME<sep>{arguments}
        name, arguments = head, tail
    fenced = _FENCE.match(arguments.strip())
    return call_with_arguments(name.strip(), fenced.group(1) if fenced else arguments, "deepseek", schemas)


def _deepseek(content: str, schemas: Schemas) -> Iterator[Span]:
    start = content.find(DS_CALLS_BEGIN)
    start = content.find(DS_CALL_BEGIN) if start < 0 else start
    closing = content.find(DS_CALLS_END, start)
    end = len(content) if closing < 0 else closing + len(DS_CALLS_END)
    calls = [_deepseek_call(m.group(1), schemas) for m in _DS_CALL.finditer(content, start, end)]
    yield start, end, calls or [invalid_call("the DeepSeek tool-call block holds no call", "deepseek", schemas)]


DIALECTS: list[tuple[str, Callable[[str, Schemas], Iterator[Span]]]] = [
    (DS_CALL_BEGIN, _deepseek),
    ("[TOOL_CALLS]", _mistral),
    ("<|python_tag|>", _llama),
    ("<tool_call>", _tagged),
    ("<function=", _tagged),
]


def _closing_spans(content: str, spans: list[Span]) -> list[Span]:
    """The spans that close the reply: the last one with only whitespace (or end tokens) after it, and those
    before it separated by whitespace alone."""
    kept: list[Span] = []
    after = len(content)
    for span in reversed(spans):
        gap = content[span[1] : after]
        closes = END_TOKENS.fullmatch(gap) is not None if not kept else not gap.strip()
        if not closes:
            break
        kept.insert(0, span)
        after = span[0]
    return kept


def _unmarked(content: str, schemas: Schemas) -> list[ToolCall]:
    """A reply that is nothing but a JSON object (or list, or fenced JSON) naming offered tools."""
    text = END_TOKENS.sub("", content.strip())
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    if not text.startswith(("{", "[")):
        return []
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    objects = value if isinstance(value, list) else [value]
    for obj in objects:
        inner = obj.get("function", obj) if isinstance(obj, dict) else None
        if not isinstance(inner, dict) or inner.get("name") not in schemas:
            return []
    return [call_from_json_object(obj, "json", schemas) for obj in objects]


def parse_text_tool_calls(content: str, schemas: Schemas, *, anywhere: bool = False) -> tuple[list[ToolCall], str]:
    """The tool calls written in `content` and the text left once they are removed (([], content) if none).

    `schemas` maps each offered tool to its parameters' JSON schema. Calls that cannot run come back with
    `invalid` set. Without `anywhere`, marked blocks count only where they close the reply.
    """
    for marker, finder in DIALECTS:
        if marker not in content:
            continue
        spans = list(finder(content, schemas))
        chosen = spans if anywhere else _closing_spans(content, spans)
        if not chosen:
            return [], content
        rest, cursor = [], 0
        for start, end, _calls in chosen:
            rest.append(content[cursor:start])
            cursor = end
        rest.append(content[cursor:])
        remaining = END_TOKENS.sub("", "".join(rest).strip())
        return [call for span in chosen for call in span[2]], remaining
    calls = _unmarked(content, schemas)
    return (calls, "") if calls else ([], content)


def held_back_length(content: str) -> int:
    """How many trailing characters of streamed text to withhold because they may start a tool call.

    Everything from the first call marker on, a reply that opens like JSON, and a tail that could be the
    start of a marker are held back; the rest can be shown to the user as it arrives.
    """
    found = [index for index in (content.find(marker) for marker in MARKERS) if index >= 0]
    if found:
        return len(content) - min(found)
    stripped = content.lstrip()
    if any(stripped.startswith(opener) or opener.startswith(stripped) for opener in _JSON_OPENERS):
        return len(content)
    longest = max(len(marker) for marker in MARKERS) - 1
    for size in range(min(longest, len(content)), 0, -1):
        if any(marker.startswith(content[-size:]) for marker in MARKERS):
            return size
    return 0
