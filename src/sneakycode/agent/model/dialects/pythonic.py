"""Pythonic calls: `[get_weather(city="Paris"), get_time()]` (Llama 3.2 / Llama 4, ToolACE), Llama 4's
`<|python_start|>...<|python_end|>`, OLMo's newline-separated calls in `<function_calls>`, and LFM2's
`<|tool_call_start|>[...]<|tool_call_end|>` (a call list or a JSON list).

The text is parsed with Python's `ast` and only literals are read from it (`ast.literal_eval` on each argument
node, plus JSON's `true`/`false`/`null`, which OLMo writes): nothing is ever evaluated. A positional argument
has no name to pass on, so such a call is unreadable rather than run without it.
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import re
import tokenize
from collections.abc import Iterator
from typing import Any

from sneakycode.agent.model.dialects.base import END_TOKENS, Block, Dialect, json_values, skip_space, unreadable_block
from sneakycode.agent.model.dialects.reasoning import answer_start
from sneakycode.agent.model.text_call_args import Schemas, call_from_json_object, call_with_arguments
from sneakycode.agent.protocol import ToolCall

LIST_START = re.compile(r"\s*\[\s*[A-Za-z_][\w.]*\s*\(")
_LIST_OPEN = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")
_CANDIDATES = 16  # where a closing call list may start: the last few `[name(`, so long prose stays cheap
_WRAPPERS = (
    ("<|python_start|>", "<|python_end|>"),
    ("<function_calls>", "</function_calls>"),
    ("<|tool_call_start|>", "<|tool_call_end|>"),
)
_JSON_NAMES = {"true": True, "false": False, "null": None}
_KEYWORD_SUFFIX = "_kw_"
_MAX_TEXT = 200_000  # ast on a huge reply is slow and deep; no real call list is this long


class _NotLiteral(ValueError):
    pass


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _NotLiteral("a ** expansion is not a literal")
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise _NotLiteral(f"{ast.unparse(node)[:40]!r} is not a literal value") from exc
    if not isinstance(value, str | int | float | bool | type(None)):  # sets, bytes, complex: not JSON
        raise _NotLiteral(f"{ast.unparse(node)[:40]!r} is not a JSON value")
    return value


def _call(node: ast.expr) -> tuple[str, dict[str, Any]]:
    if not isinstance(node, ast.Call):
        raise _NotLiteral("an item of the list is not a call")
    name = ast.unparse(node.func)
    if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        raise _NotLiteral(f"{name[:40]!r} is not a tool name")
    if node.args or any(k.arg is None for k in node.keywords):
        raise _NotLiteral(f"the call of {name} passes an argument without its name")
    return name, {str(k.arg).removesuffix(_KEYWORD_SUFFIX): _literal(k.value) for k in node.keywords}


def _keyword_names_renamed(text: str) -> str:
    """`text` with arguments named by a Python keyword (`from=`, OLMo writes them) renamed so `ast` reads them;
    `_call` names them back. Tokens, not a regex, find them, so a `from=` inside a string is left alone."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text
    lines = text.splitlines(keepends=True)
    for token, following in reversed(list(itertools.pairwise(tokens))):
        if token.type == tokenize.NAME and keyword.iskeyword(token.string) and following.string == "=":
            row, col = token.start
            line = lines[row - 1]
            lines[row - 1] = line[:col] + token.string + _KEYWORD_SUFFIX + line[token.end[1] :]
    return "".join(lines)


def read_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The calls in a Python list (or single call) expression; raises ValueError if it is anything else."""
    if len(text) > _MAX_TEXT:
        raise _NotLiteral("the call list is too long")
    try:
        tree = ast.parse(_keyword_names_renamed(text.strip()), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        raise _NotLiteral("it is not a Python call list") from exc
    nodes = tree.elts if isinstance(tree, ast.List) else [tree]
    if not nodes:
        raise _NotLiteral("the call list is empty")
    return [_call(node) for node in nodes]


def read_call(text: str) -> tuple[str, dict[str, Any], str]:
    """One `name(key=value, ...)` call: (name, arguments, why it cannot be read or "")."""
    try:
        calls = read_calls(text)
    except ValueError as exc:
        return "", {}, f"the call cannot be read ({exc})"
    if len(calls) != 1:
        return "", {}, "the call cannot be read (expected exactly one call)"
    return calls[0][0], calls[0][1], ""


def _calls(text: str, schemas: Schemas) -> list[ToolCall]:
    return [call_with_arguments(name, arguments, "pythonic", schemas) for name, arguments in read_calls(text)]


def _wrapped(content: str, schemas: Schemas, opening: str, closing: str) -> Iterator[Block]:
    """Each `opening ... closing` block: a call list, calls one per line, or (LFM2) a JSON list."""
    start = content.find(opening)
    while start >= 0:
        end_at = content.find(closing, start)
        body = content[start + len(opening) : len(content) if end_at < 0 else end_at]
        end = len(content) if end_at < 0 else end_at + len(closing)
        lines = [line.strip() for line in body.strip().splitlines() if line.strip()]
        text = body if LIST_START.match(body) else "[" + ", ".join(lines) + "]"
        try:
            if body.lstrip().startswith(("[{", "{")):
                values, stop = json_values(body, 0)
                if body[stop:].strip():
                    raise ValueError("text follows the JSON")
                yield Block(start, end, [call_from_json_object(v, "pythonic", schemas) for v in values])
            else:
                yield Block(start, end, _calls(text, schemas))
        except ValueError as exc:
            yield unreadable_block(start, end, f"the {opening} block cannot be read ({exc})", "pythonic", schemas)
        start = content.find(opening, end)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    for opening, closing in _WRAPPERS:
        if opening in content:
            yield from _wrapped(content, schemas, opening, closing)
            return
    start = answer_start(content)
    whole = END_TOKENS.sub("", content[start:]).strip()
    bare = family == "olmo" and re.match(r"[A-Za-z_][\w.]*\(", whole) is not None
    if LIST_START.match(whole) or bare:
        lines = [line.strip() for line in whole.splitlines() if line.strip()]
        try:  # the whole reply is the call list; anything else is prose that happens to start with `[`
            calls = _calls("[" + ", ".join(lines) + "]" if bare else whole, schemas)
        except ValueError:
            return
        yield Block(skip_space(content, start), len(content), calls)
        return
    yield from _closing_list(content, start, schemas)


def _closing_list(content: str, start: int, schemas: Schemas) -> Iterator[Block]:
    """A call list that ends the reply after prose (`Let me check: [get_weather(city="Paris")]`), as SGLang
    reads it: only when every call names an offered tool, which prose that merely shows a call rarely does."""
    for opened in list(_LIST_OPEN.finditer(content, start))[-_CANDIDATES:]:
        try:
            found = read_calls(END_TOKENS.sub("", content[opened.start() :]).strip())
        except ValueError:
            continue
        if all(name in schemas for name, _arguments in found):
            calls = [call_with_arguments(name, arguments, "pythonic", schemas) for name, arguments in found]
            yield Block(opened.start(), len(content), calls)
        return


DIALECT = Dialect(
    "pythonic",
    re.compile(
        r"<\|python_start\|>|<function_calls>|<\|tool_call_start\|>|\[\s*[A-Za-z_][\w.]*\s*\(|\A\s*[A-Za-z_][\w.]*\("
    ),
    ("<|python_start|>", "<function_calls>", "<|tool_call_start|>"),
    find,
)
