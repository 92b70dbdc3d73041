"""Turning one tool call written as text into a ToolCall: the name checked against the offered tools, the
arguments parsed (JSON, or Qwen3-Coder's `<parameter=KEY>` values typed by the tool's JSON schema).

A block that cannot become a valid call still becomes a ToolCall, marked `invalid` with the reason and the
format the model should have used, so the model is told instead of the block being dropped or run.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

from sneakycode.agent.protocol import ToolCall

Schemas = Mapping[str, Mapping[str, Any]]
INVALID_NAME = "invalid_tool_call"

# The shape each dialect expects, shown to the model when one of its blocks cannot be used.
FORMATS = {
    "hermes": '<tool_call>\n{"name": "TOOL", "arguments": {"KEY": VALUE}}\n</tool_call>',
    "qwen_xml": "<tool_call>\n<function=TOOL>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>",
    "llama": '<|python_tag|>{"name": "TOOL", "parameters": {"KEY": VALUE}}',
    "mistral": '[TOOL_CALLS][{"name": "TOOL", "arguments": {"KEY": VALUE}}]',
    "deepseek": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>TOOL\n```json\n"
    '{"KEY": VALUE}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "json": '{"name": "TOOL", "arguments": {"KEY": VALUE}}',
}


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def invalid_call(reason: str, dialect: str, schemas: Schemas, name: str = "") -> ToolCall:
    """A call that must not run; the loop hands `invalid` back to the model as an `invalid_tool_call` error."""
    offered = ", ".join(sorted(schemas)) or "(none)"
    message = (
        f"{reason}. Nothing was run. Write the call in this format, with one of the offered tools "
        f"({offered}):\n{FORMATS[dialect]}"
    )
    return ToolCall(id=_new_id(), name=name if name in schemas else INVALID_NAME, arguments="{}", invalid=message)


def call_from_json_object(obj: Any, dialect: str, schemas: Schemas) -> ToolCall:
    """`{"name": ..., "arguments"|"parameters": {...}}` (or OpenAI's `{"function": {...}}`) as a ToolCall."""
    if isinstance(obj, dict) and isinstance(obj.get("function"), dict):
        obj = obj["function"]
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
        return invalid_call("the tool call names no tool (it needs a \"name\" key)", dialect, schemas)
    name = obj["name"]
    arguments = obj.get("arguments", obj.get("parameters", {}))
    return call_with_arguments(name, arguments, dialect, schemas)


def call_with_arguments(name: str, arguments: Any, dialect: str, schemas: Schemas) -> ToolCall:
    """A call of `name` with `arguments` (a dict, or JSON text of one); invalid unless both are usable."""
    if name not in schemas:
        return invalid_call(f"the tool call names {name!r}, which is not an offered tool", dialect, schemas, name)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return invalid_call(f"the arguments of {name} are not valid JSON ({exc.msg})", dialect, schemas, name)
        except RecursionError:
            return invalid_call(f"the arguments of {name} are nested too deeply", dialect, schemas, name)
    if not isinstance(arguments, dict):
        return invalid_call(f"the arguments of {name} are not a JSON object", dialect, schemas, name)
    return ToolCall(id=_new_id(), name=name, arguments=json.dumps(arguments))


def typed_parameter(value: str, schema: Mapping[str, Any] | None) -> Any:
    """A Qwen3-Coder `<parameter>` value as its schema's type: XML carries only text.

    Raises ValueError when the text cannot be that type; strings (and parameters the schema does not know,
    which validation then reports) are kept as written, less the newline that wraps them.
    """
    text = value.removeprefix("\n").removesuffix("\n")
    kind = (schema or {}).get("type")
    if kind == "string" or schema is None:
        return text
    if kind == "integer":
        return int(text.strip())
    if kind == "number":
        return float(text.strip())
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text.strip()!r:.40}")
        return lowered == "true"
    if kind in ("array", "object"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"expected JSON {kind}: {exc.msg}") from exc
    try:  # a union or untyped schema: JSON when it reads as JSON, text otherwise
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def call_from_xml_parameters(name: str, parameters: list[tuple[str, str]], schemas: Schemas) -> ToolCall:
    """A Qwen3-Coder `<function=NAME>` block with its `<parameter=KEY>` values typed by the tool's schema."""
    if name not in schemas:
        return invalid_call(f"the tool call names {name!r}, which is not an offered tool", "qwen_xml", schemas, name)
    properties = schemas[name].get("properties", {})
    arguments: dict[str, Any] = {}
    for key, raw in parameters:
        try:
            arguments[key] = typed_parameter(raw, properties.get(key) if isinstance(properties, dict) else None)
        except ValueError as exc:
            return invalid_call(f"parameter {key!r} of {name} has the wrong type ({exc})", "qwen_xml", schemas, name)
    return ToolCall(id=_new_id(), name=name, arguments=json.dumps(arguments))
