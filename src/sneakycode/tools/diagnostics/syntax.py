"""Syntax errors of a text: the language's own loader where Python has one, tree-sitter for the rest.

A loader (compile, json, tomllib, yaml) is exact but stops at the first error; tree-sitter finds every
broken place but its grammars are looser than the real language. So when the loader accepts the text there
are no syntax errors at all (and tree-sitter, which could only add false alarms, is not run); when it
refuses, tree-sitter adds the other broken places, so an error the edit introduced is found even behind one
the file already had.
"""

from __future__ import annotations

import ast
import json
import re
import threading
import tomllib
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from sneakycode.tools.diagnostics.findings import Finding

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$|\s*\(at end of document\)$")
_MAX_TOKEN_CHARS = 40
_TRAILING_COMMA = "unexpected ','"
_parse_lock = threading.Lock()  # a tree-sitter Parser is not safe to share between threads


def syntax_errors(language: str, text: str) -> list[Finding]:
    """Every syntax error of `text` in `language`, by line; [] when it parses."""
    loader = LOADERS.get(language)
    if loader is None:
        return tree_sitter_errors(language, text)
    first = loader(text)
    if first is None:
        return []
    others = tree_sitter_errors(language, text)
    if not others and language == "python" and not _parses_as_python(text):
        return []
    # A broken place tree-sitter also saw is the loader's error (its message is the better one); the two often
    # disagree by a line (the bad token, the place the loader noticed it), so a neighbour counts as the same.
    others = [f for f in others if not f.line - 1 <= first.line <= (f.last_line or f.line) + 1]
    return sorted([first, *others], key=lambda f: f.line)


@lru_cache(maxsize=64)
def parser_for(language: str) -> Parser:
    """The language's parser, loaded once per process (the first load costs a few milliseconds)."""
    from tree_sitter_language_pack import SupportedLanguage, get_parser  # imported late: CLI start-up

    return get_parser(cast(SupportedLanguage, language))


def tree_sitter_errors(language: str, text: str) -> list[Finding]:
    jsonc = language == "jsonc"
    parser = parser_for("json" if jsonc else language)
    with _parse_lock:
        tree = parser.parse(text.encode("utf-8"))
    found: list[Finding] = []
    pending = [tree.root_node]
    while pending:
        node = pending.pop()
        if node.is_missing:
            found.append(Finding(node.start_point.row + 1, f"missing {_token(node.type)}", column=_col(node)))
        elif node.is_error:
            message = _describe_error(node)
            if not (jsonc and message == _TRAILING_COMMA):  # allowed where comments are
                found.append(Finding(node.start_point.row + 1, message, column=_col(node), last_line=_last(node)))
        elif node.has_error:
            pending.extend(reversed(node.children))
    return sorted(found, key=lambda f: (f.line, f.column or 0))


def _describe_error(node: Node) -> str:
    """What tree-sitter could not place: on one line, the last token it gave up on (`foo())` -> ')'),
    else the lines it could not parse (the file's own text, shown beside it, says more than a guess)."""
    first, last = node.start_point.row + 1, node.end_point.row + 1
    if first != last:
        return f"cannot parse lines {first}-{last}"
    leaf = node
    while leaf.children:
        leaf = leaf.children[-1]
    token = (leaf.text or b"").decode("utf-8", errors="replace")
    return f"unexpected {_token(token)}" if token else "syntax error"


def _token(token: str) -> str:
    if len(token) > _MAX_TOKEN_CHARS:
        token = token[:_MAX_TOKEN_CHARS] + "..."
    return token if token.isidentifier() else repr(token)


def _col(node: Node) -> int:
    return node.start_point.column + 1


def _last(node: Node) -> int:
    return node.end_point.row + 1


def _parses_as_python(text: str) -> bool:
    """Whether this interpreter's parser accepts `text`. compile() of SneakyCode's Python does not know
    syntax newer than itself (3.12 f-strings and generics, 3.14 `except A, B:`), which tree-sitter's grammar
    does; so where tree-sitter sees nothing wrong, only errors past the parser ('return' outside function,
    'break' outside loop) are trusted, and a parser error is taken for newer syntax."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def python_error(text: str) -> Finding | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings (invalid escapes) are not errors
        try:
            compile(text, "<edit>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            return Finding(exc.lineno or 1, exc.msg, column=exc.offset)
        except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
            return Finding(1, str(exc))
    return None


def json_error(text: str) -> Finding | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return Finding(exc.lineno, exc.msg, column=exc.colno)
    except RecursionError:
        return Finding(1, "nested too deeply to load")
    return None


def toml_error(text: str) -> Finding | None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's error carries the place only in its message: "... (at line 3, column 5)".
        message = str(exc)
        where = _TOML_WHERE.search(message)
        if where and where.group(1):
            return Finding(int(where.group(1)), message[: where.start()], column=int(where.group(2)))
        return Finding(max(1, text.count("\n")), message[: where.start()] if where else message)
    return None


def yaml_error(text: str) -> Finding | None:
    import yaml  # imported late: every command loads the tools, few edit YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C loader where PyYAML was built with it
    try:
        # Composed, not constructed: custom tags (`!Ref`, `!include`) are valid YAML the safe loader rejects.
        for _ in yaml.compose_all(text, Loader=loader):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        return Finding(line, " ".join(str(part) for part in (exc.context, exc.problem) if part) or "invalid YAML")
    except yaml.YAMLError as exc:
        return Finding(1, str(exc).splitlines()[0] if str(exc) else "invalid YAML")
    return None


LOADERS: dict[str, Callable[[str], Finding | None]] = {
    "python": python_error,
    "json": json_error,
    "toml": toml_error,
    "yaml": yaml_error,
}
