"""What an output schema may not do: reach out for a `$ref` (over the network, or to a local file whose text would
reach the model in the retry message), run a `pattern` that backtracks past the run's timeout, or nest so deeply
that checking it overflows the stack.

So a schema is checked before any request: every reference must resolve inside the schema itself (or to a
meta-schema jsonschema ships), every pattern must compile on RE2 (`google-re2`, the engine the search tools run
untrusted patterns on: linear time whatever the pattern), and neither the schema nor an answer may nest deeper
than MAX_DEPTH. A schema that fails raises a ConfigError coded `output_schema_invalid`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator
from types import FunctionType, ModuleType
from typing import TYPE_CHECKING, Any

import re2

from sneakycode.errors import ConfigError, ErrorCode

if TYPE_CHECKING:
    from jsonschema.protocols import Validator
    from referencing import Registry, Resource
    from referencing._core import Resolver

# JSON nesting (objects and arrays) of a schema or an answer. Real schemas stay well under it; checking one
# level takes a handful of Python frames, so this keeps validation far from the recursion limit.
MAX_DEPTH = 64
_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
_PROBES: tuple[Any, ...] = (None, True, 0, "", [], {})


def invalid(where: str, problem: str) -> ConfigError:
    return ConfigError(f"[{ErrorCode.OUTPUT_SCHEMA_INVALID}] {where} {problem}")


def deeper_than(value: Any, limit: int) -> bool:
    """True when `value` nests objects and arrays more than `limit` deep. Iterative, so a value nested past
    the recursion limit is measured rather than overflowing the stack."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def safe_validator(cls: type[Validator], schema: dict[str, Any], where: str) -> Validator:
    """The validator of `schema` (already checked against its meta-schema): references resolved inside the
    schema only, patterns matched on RE2. A ConfigError names the first reference or pattern that fails."""
    registry = _local_registry()
    _check_subschemas(_resolver(cls, schema, registry), schema, _specification(cls), where)
    validator: Validator = _on_re2(cls)(schema, registry=registry)
    try:
        for probe in _PROBES:  # a reference that loops at the top overflows whatever the answer; say so now
            validator.is_valid(probe)
    except RecursionError:
        raise invalid(where, "refers to itself in a loop (a $ref that reaches itself without descending into "
                             "the answer)") from None
    return validator


def refuse_retrieval(uri: str) -> Resource:
    """The registry's `retrieve`: an output schema fetches nothing, from the network or from a file."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class


def _local_registry() -> Registry:
    from jsonschema_specifications import REGISTRY as META_SCHEMAS  # type: ignore[import-untyped]
    from referencing import Registry

    # The meta-schemas jsonschema ships stay reachable (`$ref` to the draft's own meta-schema); nothing else.
    registry: Registry = META_SCHEMAS.combine(Registry(retrieve=refuse_retrieval))  # type: ignore[call-arg]
    return registry


def _specification(cls: type[Validator]) -> Any:
    from referencing.jsonschema import DRAFT202012, specification_with

    meta = cls.META_SCHEMA
    return specification_with(str(meta.get("$id") or meta.get("id") or ""), default=DRAFT202012)


def _resolver(cls: type[Validator], schema: dict[str, Any], registry: Registry) -> Resolver:
    return registry.resolver_with_root(_specification(cls).create_resource(schema))


def _check_subschemas(resolver: Resolver, schema: Any, specification: Any, where: str) -> None:
    """Every reference of `schema` and its subschemas resolves without retrieval; every pattern compiles on RE2.
    Recursive, but only over a schema already known to nest at most MAX_DEPTH deep."""
    from referencing.exceptions import Unresolvable

    if not isinstance(schema, dict):
        return
    resolver = resolver.in_subresource(specification.create_resource(schema))
    for keyword in _REF_KEYWORDS:
        ref = schema.get(keyword)
        if not isinstance(ref, str):
            continue
        try:
            resolver.lookup(ref)
        except Unresolvable:
            raise invalid(where, f"has {keyword} {ref!r}, which does not point inside the schema: an output schema "
                                 "resolves no remote or file reference (put the definition under $defs and refer "
                                 "to it as #/$defs/NAME)") from None
    patterns = [schema["pattern"]] if isinstance(schema.get("pattern"), str) else []
    if isinstance(schema.get("patternProperties"), dict):
        patterns += list(schema["patternProperties"])
    for pattern in patterns:
        try:
            _compiled(pattern)
        except re2.error as exc:
            raise invalid(where, f"has the pattern {pattern!r}, which RE2 (the linear-time engine patterns run on) "
                                 f"does not accept: {_text(exc)}. Lookarounds and backreferences are not "
                                 "supported") from None
    for subschema in specification.subresources_of(schema):
        _check_subschemas(resolver, subschema, specification, where)


def _text(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    return reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    options = re2.Options()
    options.log_errors = False  # reported as output_schema_invalid, not on stderr
    return re2.compile(pattern, options)


class _RE2Search:
    """Stands in for the `re` module inside jsonschema's keyword functions, which call only `re.search`."""

    @staticmethod
    def search(pattern: str, text: str) -> Any:
        return _compiled(pattern).search(text)


# Hand-written because jsonschema offers no hook for the regular-expression engine: `pattern`,
# `patternProperties`, `additionalProperties` and `unevaluatedProperties` call `re.search` in its keyword and
# helper modules. Rather than a second copy of those keywords, each is run as a copy of jsonschema's own
# function whose module globals name RE2 as `re` (the modules themselves are left alone).
_KEYWORD_MODULES = ("jsonschema._keywords", "jsonschema._legacy_keywords", "jsonschema._utils")


@functools.cache
def _shadow_spaces() -> dict[str, dict[str, Any]]:
    modules: dict[str, ModuleType] = {name: importlib.import_module(name) for name in _KEYWORD_MODULES}
    spaces = {name: dict(vars(module), re=_RE2Search) for name, module in modules.items()}
    for space in spaces.values():
        for name, value in list(space.items()):
            if isinstance(value, FunctionType) and value.__module__ in spaces:
                space[name] = _rebound(value, spaces[value.__module__])
    return spaces


def _rebound(function: FunctionType, space: dict[str, Any]) -> FunctionType:
    copy = FunctionType(function.__code__, space, function.__name__, function.__defaults__, function.__closure__)
    copy.__kwdefaults__ = function.__kwdefaults__
    return copy


@functools.cache
def _on_re2(cls: type[Validator]) -> type[Validator]:
    from jsonschema.validators import extend

    spaces = _shadow_spaces()
    keywords = {name: spaces[f.__module__][f.__name__] for name, f in cls.VALIDATORS.items()
                if isinstance(f, FunctionType) and f.__module__ in spaces}
    extended: type[Validator] = extend(cls, keywords)  # type: ignore[no-untyped-call]
    return extended


def iter_answer_errors(validator: Validator, value: Any) -> Iterator[str]:
    """What is wrong with an answer, as messages; an answer nested past MAX_DEPTH is not walked at all."""
    if deeper_than(value, MAX_DEPTH):
        yield f"the answer nests deeper than {MAX_DEPTH} levels"
        return
    from referencing.exceptions import Unresolvable

    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:  # a reference loop the up-front probes did not reach (under a property, say)
        yield "the output schema refers to itself in a loop for this answer; the answer could not be checked"
        return
    except Unresolvable as exc:  # never expected after the up-front walk; the registry refused to fetch it
        yield f"the output schema's reference {getattr(exc, 'ref', '')!r} points outside it and was not fetched"
        return
    for error in errors:
        yield f"at {error.json_path}: {error.message}"
