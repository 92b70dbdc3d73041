"""Structured output (`-p --output-schema FILE`, `Options.output_schema`): the final answer must be one JSON
value valid against a JSON Schema.

The final answer is what ends a request: the `finish` message, or the last reply when the model ends without
a tool call. The schema is given to the model in the system prompt. When an answer does not validate, the
model is sent the validation errors once (through the loop's stop point, so the retry is the same request,
under the same budgets), and whatever it ends with then is the verdict: valid, it becomes the Result's
`structured_output`; invalid, the request ends with status `error` and code `output_schema_mismatch`.

Validation is jsonschema's (the draft the schema names in `$schema`, 2020-12 when it names none), within the
limits of schema_limits: no reference leaves the schema, patterns run on RE2, nesting is bounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.api.schema_limits import MAX_DEPTH, deeper_than, invalid, iter_answer_errors, safe_validator
from sneakycode.config.files import read_regular
from sneakycode.errors import ErrorCode

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from sneakycode.agent.events import Event
    from sneakycode.api.result import Result

SCHEMA_FILE_LIMIT = 1 << 20
MAX_ERRORS_SHOWN = 10
ANSWER_SHOWN = 2_000  # of an invalid final answer, in the error message
# One fenced block holding the whole answer (```json ... ```): models wrap JSON in one even when told not to.
_FENCED = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL)


@dataclass(frozen=True)
class OutputSchema:
    """A checked JSON Schema and its validator."""

    schema: dict[str, Any]
    validator: Validator

    def instructions(self) -> str:
        """What the system prompt tells the model about its final answer."""
        shown = json.dumps(self.schema, ensure_ascii=False, separators=(",", ":"))
        return ("# Output format\nYour final answer (the finish message, or your last reply when you end without "
                "a tool call) must be one JSON value, and nothing else, valid against this JSON Schema:\n"
                f"```json\n{shown}\n```")

    def check(self, answer: str) -> tuple[Any, list[str]]:
        """(the answer as JSON, []) when it is valid; (None, the problems) when it is not."""
        try:
            value = parse_answer(answer)
        except ValueError as exc:
            return None, [f"the answer is not JSON: {exc}"]
        except RecursionError:  # the decoder's own bound, far past MAX_DEPTH
            return None, [f"the answer nests deeper than {MAX_DEPTH} levels"]
        problems = [_cut(problem, 300) for problem in iter_answer_errors(self.validator, value)]
        if not problems:
            return value, []
        shown = problems[:MAX_ERRORS_SHOWN]
        if len(problems) > MAX_ERRORS_SHOWN:
            shown.append(f"... and {len(problems) - MAX_ERRORS_SHOWN} more")
        return None, shown


def load_output_schema(source: Mapping[str, Any] | str | Path) -> OutputSchema:
    """The schema given as a mapping or as the path of a JSON file; a ConfigError coded output_schema_invalid
    (a usage error, before any request) when the file cannot be read, is not JSON, is not a valid JSON Schema,
    or asks for what schema_limits refuses (a reference outside itself, a pattern RE2 does not run, deep nesting)."""
    import jsonschema
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    where = "the output schema"
    if isinstance(source, Mapping):
        schema: Any = dict(source)
    else:
        where = f"the output schema {str(source)!r}"
        try:
            schema = json.loads(read_regular(Path(source), SCHEMA_FILE_LIMIT).decode("utf-8"))
        except OSError as exc:
            raise invalid(where, f"cannot be read: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise invalid(where, f"is not JSON: {exc}") from None
        except RecursionError:  # the decoder's own bound, far past MAX_DEPTH
            raise invalid(where, f"nests deeper than {MAX_DEPTH} levels") from None
    if not isinstance(schema, dict):
        raise invalid(where, f"must be a JSON object (a JSON Schema), not {type(schema).__name__}")
    if deeper_than(schema, MAX_DEPTH):
        raise invalid(where, f"nests deeper than {MAX_DEPTH} levels")
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise invalid(where, f"is not a valid JSON Schema: {_cut(exc.message, 300)} (at {exc.json_path})") from None
    return OutputSchema(schema, safe_validator(cls, schema, where))


def parse_answer(answer: str) -> Any:
    """The answer as JSON: the whole text, or the one fenced block that is the whole text."""
    text = answer.strip()
    fenced = _FENCED.match(text)
    return json.loads(fenced.group("body") if fenced else text)


class AnswerCheck:
    """The loop's check of one request's final answer: the feedback for the model on the first invalid answer,
    None (let the request end) otherwise. Installed on the main agent's stop point for one request."""

    def __init__(self, schema: OutputSchema, emit: Callable[[Event], None]) -> None:
        self.schema = schema
        self.emit = emit
        self.retried = False

    def __call__(self, answer: str) -> str | None:
        if self.retried:
            return None
        _, problems = self.schema.check(answer)
        if not problems:
            return None
        self.retried = True
        self.emit({"type": "notice", "message": "the final answer does not match the output schema "
                   f"({len(problems)} problem(s)); it goes back to the model once"})
        listed = "\n".join(f"- {problem}" for problem in problems)
        return ("Your final answer does not validate against the output schema given in the system prompt:\n"
                f"{listed}\nEnd again with only the corrected JSON value (as the finish message, or as your reply).")


def apply_verdict(result: Result, schema: OutputSchema) -> None:
    """A request that ended with an answer gets its `structured_output`, or becomes a coded error."""
    if not result.success:
        return
    value, problems = schema.check(result.message)
    if not problems:
        result.structured_output = value
        return
    result.status = "error"
    result.error_code = ErrorCode.OUTPUT_SCHEMA_MISMATCH.value
    result.message = (f"[{result.error_code}] the final answer does not validate against the output schema, even "
                      f"after one retry: {'; '.join(problems)}. The answer was: {_cut(result.message, ANSWER_SHOWN)}")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
