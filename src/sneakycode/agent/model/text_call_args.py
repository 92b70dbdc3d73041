"""Turning one tool call written as text into a ToolCall: the name checked against the offered tools, the
arguments read once for every dialect (a JSON object, JSON text of one, or `KEY = text` pairs typed by the
tool's JSON schema, as the XML dialects write them).

A block that cannot become a valid call still becomes a ToolCall, marked `invalid` with the reason and the
format the model should have used, so the model is told instead of the block being dropped or run.
"""

from __future__ import annotations

import ast
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from sneakycode.agent.protocol import ToolCall

Schemas = Mapping[str, Mapping[str, Any]]
INVALID_NAME = "invalid_tool_call"
ARGUMENT_KEYS = ("arguments", "parameters")

# The shape each dialect expects, shown to the model when one of its blocks cannot be used.
FORMATS = {
    "hermes": '<tool_call>\n{"name": "TOOL", "arguments": {"KEY": VALUE}}\n</tool_call>',
    "qwen_xml": "<tool_call>\n<function=TOOL>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>",
    "function_tag": '<function=TOOL>{"KEY": VALUE}</function>',
    "glm45": "<tool_call>TOOL\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n</tool_call>",
    "llama": '<|python_tag|>{"name": "TOOL", "parameters": {"KEY": VALUE}}',
    "pythonic": '[TOOL(KEY="VALUE")]',
    "mistral": '[TOOL_CALLS][{"name": "TOOL", "arguments": {"KEY": VALUE}}]',
    "deepseek": "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>TOOL\n```json\n"
    '{"KEY": VALUE}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek_v31": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>TOOL<｜tool▁sep｜>{"KEY": VALUE}<｜tool▁call▁end｜>'
    "<｜tool▁calls▁end｜>",
    "deepseek_v32": '<｜DSML｜function_calls>\n<｜DSML｜invoke name="TOOL">\n'
    '<｜DSML｜parameter name="KEY" string="true">TEXT</｜DSML｜parameter>\n'
    '<｜DSML｜parameter name="KEY" string="false">JSON VALUE</｜DSML｜parameter>\n'
    "</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "kimi_k2": "<|tool_calls_section_begin|><|tool_call_begin|>functions.TOOL:0<|tool_call_argument_begin|>"
    '{"KEY": VALUE}<|tool_call_end|><|tool_calls_section_end|>',
    "harmony": '<|channel|>commentary to=functions.TOOL <|constrain|>json<|message|>{"KEY": VALUE}<|call|>',
    "granite": '<|tool_call|>[{"name": "TOOL", "arguments": {"KEY": VALUE}}]',
    "gemma": '<|tool_call>call:TOOL{KEY:<|"|>VALUE<|"|>}<tool_call|>',
    "functiongemma": "<start_function_call>call:TOOL{KEY:<escape>VALUE<escape>}<end_function_call>",
    "functools": 'functools[{"name": "TOOL", "arguments": {"KEY": VALUE}}]',
    "jamba": '<tool_calls>[{"name": "TOOL", "arguments": {"KEY": VALUE}}]</tool_calls>',
    "hunyuan": "<tool_calls><tool_call>TOOL<tool_sep><arg_key>KEY</arg_key><arg_value>VALUE</arg_value></tool_call>"
    "</tool_calls>",
    "minimax": '<tool_calls>\n{"name": "TOOL", "arguments": {"KEY": VALUE}}\n</tool_calls>',
    "minimax_m2": '<minimax:tool_call>\n<invoke name="TOOL">\n<parameter name="KEY">VALUE</parameter>\n</invoke>\n'
    "</minimax:tool_call>",
    "functionary_v3": '>>>TOOL\n{"KEY": VALUE}',
    "command_r7b": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "TOOL", "parameters": {"KEY": VALUE}}]'
    "<|END_ACTION|>",
    "internlm": '<|action_start|><|plugin|>\n{"name": "TOOL", "parameters": {"KEY": VALUE}}<|action_end|>',
    "json": '{"name": "TOOL", "arguments": {"KEY": VALUE}}',
}


_NOT_OFFERED = "which is not an offered tool"
_MAX_LITERAL = 100_000  # a Python literal is read only up to this size: ast on huge text is slow


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


def unknown_tool_call(name: str, dialect: str, schemas: Schemas) -> ToolCall:
    """A readable call of a tool that is not offered: invalid, but it does not stop the reply's other calls."""
    return invalid_call(f"the tool call names {name!r}, {_NOT_OFFERED}", dialect, schemas, name)


def is_unknown_tool(call: ToolCall) -> bool:
    """Whether `call` is invalid only because it names a tool that is not offered (see `unknown_tool_call`)."""
    return call.invalid.startswith("the tool call names ") and _NOT_OFFERED in call.invalid.split(". Nothing")[0]


def call_from_json_object(
    obj: Any,
    dialect: str,
    schemas: Schemas,
    *,
    keys: tuple[str, ...] = ARGUMENT_KEYS,
    name_key: str = "name",
    required: bool = True,
) -> ToolCall:
    """`{"name": ..., "arguments"|"parameters": {...}}` (or OpenAI's `{"function": {...}}`) as a ToolCall.

    The arguments must be there unless `required` is off (a dialect whose own parsers default them): a call
    without them is not what the serving stacks run, and running a tool with `{}` where the model wrote
    something else is the one mistake this reader must never make.
    """
    if isinstance(obj, dict) and isinstance(obj.get("function"), dict):
        obj = obj["function"]
    if not isinstance(obj, dict) or not isinstance(obj.get(name_key), str) or not obj[name_key]:
        return invalid_call(f'the tool call names no tool (it needs a "{name_key}" key)', dialect, schemas)
    name = obj[name_key]
    present = [key for key in keys if key in obj]
    if not present and required:
        return invalid_call(f'the call of {name} has no "{keys[0]}" object', dialect, schemas, name)
    return call_with_arguments(name, obj[present[0]] if present else {}, dialect, schemas)


def call_with_arguments(name: str, arguments: Any, dialect: str, schemas: Schemas) -> ToolCall:
    """A call of `name` with `arguments` (a dict, or JSON text of one); invalid unless both are usable."""
    if name not in schemas:
        return unknown_tool_call(name, dialect, schemas)
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


def _kinds(schema: Mapping[str, Any] | None) -> set[str]:
    """The JSON types a property schema allows (`type`, a list of types, or `anyOf`/`oneOf` members)."""
    if not schema:
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    members = schema.get("anyOf") or schema.get("oneOf") or []
    return {k for member in members if isinstance(member, Mapping) for k in _kinds(member)}


def _unquoted(text: str) -> str:
    """A scalar the model may have written as a JSON string (`"42"`), without the quotes."""
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == stripped[-1] == '"':
        try:
            inner = json.loads(stripped)
        except json.JSONDecodeError:
            return stripped
        return inner.strip() if isinstance(inner, str) else stripped
    return stripped


def _structured(text: str, kind: str) -> Any:
    """An array or object written as JSON or, as some models do, as a Python literal (`{'k': 'v'}`), which
    `ast.literal_eval` reads without evaluating anything."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        if len(text) > _MAX_LITERAL:
            raise ValueError(f"expected JSON {kind}: {exc.msg}") from exc
        try:
            parsed = json.loads(json.dumps(ast.literal_eval(text.strip())))
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            parsed = _unescaped(text)
            if parsed is None:
                raise ValueError(f"expected JSON {kind}: {exc.msg}") from exc
    if not isinstance(parsed, list if kind == "array" else dict):
        raise ValueError(f"expected a JSON {kind}")
    return parsed


def _unescaped(text: str) -> Any:
    """JSON that a model escaped once too often (`[{\\"id\\": \\"1\\"}]`, as GLM-4.7 writes an array value):
    read with its quotes unescaped, or None. Only a value with no bare quote at all is read so: one that mixes
    escaped and bare quotes is ambiguous."""
    stripped = text.strip()
    if '\\"' not in stripped or '"' in stripped.replace('\\"', ""):
        return None
    try:
        return json.loads(stripped.replace('\\"', '"'))
    except (json.JSONDecodeError, RecursionError):
        return None


def typed_parameter(value: str, schema: Mapping[str, Any] | None) -> Any:
    """A parameter written as text (the XML dialects' values) as its schema's type: XML carries only text.

    Raises ValueError when an array or object cannot be read; strings, a number or boolean that is not one,
    and parameters the schema does not know (validation then reports both) are kept as written, less the
    newline that wraps them.
    """
    text = value.removeprefix("\n").removesuffix("\n")
    kinds = _kinds(schema) - {"null"}
    if schema is None or kinds == {"string"}:
        return text
    if len(kinds) == 1 and next(iter(kinds)) in ("integer", "number", "boolean"):
        try:
            return _scalar(text, next(iter(kinds)))
        except ValueError:
            # Kept as written, as the serving stacks keep it: the tool's schema check then refuses it with a
            # coded error naming the parameter, and nothing runs with a value the model did not write.
            return text
    if len(kinds) == 1:
        kind = next(iter(kinds))
        if kind in ("array", "object"):
            return _structured(text, kind)
    try:  # a union or untyped schema: JSON when it reads as JSON, text otherwise
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _scalar(text: str, kind: str) -> Any:
    """A number or boolean written as text; raises ValueError when it is not one."""
    scalar = _unquoted(text)
    if kind == "integer":
        return int(scalar)
    if kind == "number":
        number = float(scalar)
        return int(number) if number.is_integer() and not any(c in scalar for c in ".eE") else number
    lowered = scalar.lower()
    if lowered not in ("true", "false"):
        raise ValueError(f"expected true or false, got {text.strip()!r:.40}")
    return lowered == "true"


def _properties(schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The properties a parameters schema declares, also through a top-level `anyOf`/`oneOf`/`allOf`."""
    found: dict[str, Mapping[str, Any]] = {}
    own = schema.get("properties")
    if isinstance(own, Mapping):
        found.update({k: v for k, v in own.items() if isinstance(v, Mapping)})
    for combinator in ("anyOf", "oneOf", "allOf"):
        for member in schema.get(combinator) or []:
            if isinstance(member, Mapping):
                found.update({k: v for k, v in _properties(member).items() if k not in found})
    return found


def call_from_xml_parameters(
    name: str, parameters: Iterable[tuple[str, str]], schemas: Schemas, dialect: str = "qwen_xml"
) -> ToolCall:
    """A call whose arguments came as `KEY = text` pairs (Qwen3-Coder's `<parameter=KEY>`, GLM's `<arg_key>`,
    MiniMax's `<parameter name=KEY>`, Hunyuan's), each value typed by the tool's schema."""
    if name not in schemas:
        return unknown_tool_call(name, dialect, schemas)
    properties = _properties(schemas[name])
    arguments: dict[str, Any] = {}
    for key, raw in parameters:
        try:
            arguments[key] = typed_parameter(raw, properties.get(key))
        except ValueError as exc:
            return invalid_call(f"parameter {key!r} of {name} has the wrong type ({exc})", dialect, schemas, name)
    return ToolCall(id=_new_id(), name=name, arguments=json.dumps(arguments))
