"""An MCP tool's arguments checked against the server's `inputSchema` before the call is sent.

The checking is jsonschema's (a well-kept validator, the one the MCP SDK itself depends on), with a validator
built once per tool when the server connects. A call that fails it is `invalid_arguments` with the
validator's messages, as a built-in tool's bad arguments are, and never reaches the server. A schema that is
not valid JSON Schema checks nothing: that tool is called without local validation (the server still checks
its own arguments), and the user is told so when the server connects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import Draft202012Validator, validator_for
from referencing.exceptions import Unresolvable

MAX_PROBLEMS = 8  # a model fixes the first few; the rest would only crowd the message
MAX_PROBLEM_CHARS = 300  # a message quotes the offending value, which the model may have made huge


def input_validator(schema: Mapping[str, Any]) -> tuple[Validator | None, str]:
    """A validator for `schema` (JSON Schema 2020-12, the MCP default, unless `$schema` names another draft),
    or None and the reason the schema itself is invalid."""
    # With a default, an unknown `$schema` falls back to it quietly instead of warning.
    kind = validator_for(schema, default=Draft202012Validator)
    try:
        kind.check_schema(dict(schema))
    except SchemaError as exc:
        return None, _clip(exc.message)
    return kind(schema), ""


def argument_problems(validator: Validator, arguments: Mapping[str, Any]) -> list[str]:
    """What is wrong with `arguments`, one line each (`LOCATION: message`); [] when they are valid."""
    try:
        errors = list(validator.iter_errors(arguments))
    except (Unresolvable, RecursionError):
        # A `$ref` this side cannot resolve (remote, or missing): the server checks the call itself.
        return []
    problems = []
    for error in errors[:MAX_PROBLEMS]:
        location = ".".join(str(part) for part in error.absolute_path) or "(arguments)"
        problems.append(f"{location}: {_clip(error.message)}")
    if len(errors) > MAX_PROBLEMS:
        problems.append(f"... and {len(errors) - MAX_PROBLEMS} more")
    return problems


def _clip(text: str) -> str:
    return text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 3] + "..."
