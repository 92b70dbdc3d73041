"""The bodies of the XML-style calls: Qwen3-Coder's `<function=NAME>` with `<parameter=KEY>` values (or, in the
Llama 3.1 / Functionary / Hermes-2-Pro form, a JSON object), and GLM-4.5's `NAME<arg_key>K</arg_key>
<arg_value>V</arg_value>`. Values that arrive as text are typed by the tool's schema (`text_call_args`).

A body is read whole or not at all: text between the tags that is not whitespace means the model wrote
something we did not understand, so the call is unreadable rather than run without it.
"""

from __future__ import annotations

import re

from sneakycode.agent.model.dialects.base import read_json, skip_space, why
from sneakycode.agent.model.text_call_args import Schemas, call_from_xml_parameters, call_with_arguments, invalid_call
from sneakycode.agent.protocol import ToolCall

FUNCTION_OPEN = re.compile(r'<function=([^>\n]*)>|<function name="([^"\n]*)">')
_PARAMETER = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|(?=<parameter=)|(?=</function>)|\Z)", re.DOTALL)
# Ollama's GLM parser also takes a value whose <arg_value> or </arg_value> was left out; so do we.
_ARG_PAIR = re.compile(
    r"<arg_key>(.*?)</arg_key>\s*(?:<arg_value>)?(.*?)(?:</arg_value>|(?=<arg_key>)|\Z)", re.DOTALL
)
_NAME = re.compile(r"[^\W\d][\w.\-]*")
_INDENTED = re.compile(r"\n(.*)\n([ \t]+)", re.DOTALL)


def unindented(value: str) -> str:
    """A value laid out between indented tags (`<parameter=k>\n    v\n    </parameter>`) without that layout:
    the indentation of the closing tag is the tags', not the value's."""
    laid_out = _INDENTED.fullmatch(value)
    if laid_out is None:
        return value
    indent = laid_out.group(2)
    lines = laid_out.group(1).split("\n")
    return "\n".join(line.removeprefix(indent) for line in lines)


def function_body(name: str, body: str, schemas: Schemas, dialect: str = "qwen_xml") -> ToolCall:
    """The body of `<function=NAME>` up to `</function>`: `<parameter=KEY>` values, a JSON object, or nothing."""
    name = name.strip()
    start = skip_space(body, 0)
    if start < len(body) and body[start] in "{[":
        try:
            value, end = read_json(body, start)
        except ValueError as exc:
            reason = f"the arguments of {name} are not valid JSON ({why(exc)})"
            return invalid_call(reason, "function_tag", schemas, name)
        if body[end:].strip():
            return invalid_call(f"the arguments of {name} are followed by stray text", "function_tag", schemas, name)
        return call_with_arguments(name, value, "function_tag", schemas)
    parameters = list(_PARAMETER.finditer(body))
    if _PARAMETER.sub("", body).strip():
        reason = f"the body of <function={name}> is neither <parameter=...> tags nor a JSON object"
        return invalid_call(reason, dialect, schemas, name)
    pairs = [(m.group(1).strip(), unindented(m.group(2))) for m in parameters]
    return call_from_xml_parameters(name, pairs, schemas, dialect)


def glm_body(body: str, schemas: Schemas, family: str | None) -> ToolCall | None:
    """GLM-4.5+ `NAME<arg_key>K</arg_key><arg_value>V</arg_value>...`; None when the body is not that shape.

    A bare `NAME` with no arguments is a call only when it names an offered tool and is laid out as GLM-4.5
    writes it (the name on its own line) or the model is GLM-4.7 or later, which drops the newline.
    """
    first = body.find("<arg_key>")
    head = body if first < 0 else body[:first]
    name = _NAME.fullmatch(head.strip())
    bare_ok = name is not None and name.group() in schemas and (head.rstrip(" \t").endswith("\n") or family == "glm47")
    if name is None or (first < 0 and not bare_ok):
        return None
    rest = body[first:] if first >= 0 else ""
    if _ARG_PAIR.sub("", rest).strip():
        reason = f"the arguments of {name.group()} are not <arg_key>/<arg_value> pairs"
        return invalid_call(reason, "glm45", schemas, name.group())
    pairs = [(m.group(1).strip(), m.group(2).strip()) for m in _ARG_PAIR.finditer(rest)]
    return call_from_xml_parameters(name.group(), pairs, schemas, "glm45")
