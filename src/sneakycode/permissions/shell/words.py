"""Shell words as bash passes them to a program: quote removal, `$'...'` decoding and brace expansion.

A word whose value is only known at run time (a parameter or command expansion, a glob) keeps its literal
prefix and suffix, and a glob keeps an fnmatch pattern, so a rule can still tell whether it might match
(`$VENV/bin/pytest` is known to run a program named `pytest`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

DYNAMIC_NODES = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "brace_expression",
    }
)
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
GLOB_CHARS = frozenset("*?[")
_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "E": "\x1b"}


@dataclass(frozen=True)
class Word:
    """One shell word. `value` is the text after quote removal (dynamic parts keep their source text);
    `literal` is true when bash would pass exactly `value`; `prefix` is the literal text before the first
    dynamic part; `suffix` the literal text after the last one; `glob` is an fnmatch pattern when the only
    dynamic part is pathname expansion; `splits` is true when an unquoted expansion may split it in fields."""

    value: str
    literal: bool = True
    prefix: str = ""
    source: str = ""
    glob: str | None = None
    suffix: str = ""
    splits: bool = False

    @classmethod
    def plain(cls, value: str) -> Word:
        return cls(value, True, value, value)


def expand(node: Node, src: bytes) -> list[Word]:
    """A word after brace expansion: `{rm,-rf,x}` is three words, as bash would run them."""
    word = word_of(node, src)
    if word.literal and "{" in word.value and node.type in ("word", "concatenation") and _unquoted(node):
        expanded = brace_expand(word.value)
        if len(expanded) > 1:
            return [Word.plain(value) for value in expanded]
        if "," in word.value:
            return [Word(word.value, False, word.value.split("{", 1)[0], word.source)]
    return [word]


def _unquoted(node: Node) -> bool:
    if node.type == "word":
        return True
    return node.type == "concatenation" and all(child.type == "word" for child in node.children)


def word_of(node: Node, src: bytes) -> Word:
    source = _text(node, src)
    kind = node.type
    if kind == "word":
        return _unquoted_word(source)
    if kind in ("number", "variable_name"):
        return Word(source, True, source, source)
    if kind == "raw_string":
        value = source[1:-1]
        return Word(value, True, value, source, None)
    if kind == "ansi_c_string":
        value = decode_escapes(source[2:-1])
        return Word(value, True, value, source)
    if kind in ("string", "translated_string"):
        return _double_quoted(node, src)
    if kind == "concatenation":
        return _concatenate([word_of(child, src) for child in node.children], source)
    return Word(source, False, "", source, splits=kind in DYNAMIC_NODES)


def _unquoted_word(source: str) -> Word:
    value: list[str] = []
    pattern: list[str] = []
    globbing = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt != "\n":
                value.append(nxt)
                pattern.append(f"[{nxt}]" if nxt in GLOB_CHARS else nxt)
            i += 2
            continue
        if ch in GLOB_CHARS:
            globbing = True
        value.append(ch)
        pattern.append(ch)
        i += 1
    text = "".join(value)
    if globbing:
        first = min(source.find(ch) for ch in GLOB_CHARS if ch in source)
        return Word(text, False, _unquoted_word(source[:first]).value, source, "".join(pattern))
    return Word(text, True, text, source)


def _double_quoted(node: Node, src: bytes) -> Word:
    start, end = node.start_byte + 1, node.end_byte - 1
    if node.type == "translated_string":
        start += 1
    parts: list[Word] = []
    cursor = start
    for child in node.children:
        if child.type not in DYNAMIC_NODES:
            continue
        parts.append(_quoted_text(src[cursor : child.start_byte].decode("utf-8", errors="replace")))
        text = _text(child, src)
        parts.append(Word(text, False, "", text))
        cursor = child.end_byte
    parts.append(_quoted_text(src[cursor:end].decode("utf-8", errors="replace")))
    return _concatenate(parts, _text(node, src))


def _quoted_text(text: str) -> Word:
    value = re.sub(r"\\([$`\"\\])", r"\1", text.replace("\\\n", ""))
    return Word(value, True, value, text)


def _concatenate(parts: list[Word], source: str) -> Word:
    value = "".join(p.value for p in parts)
    if all(p.literal for p in parts):
        return Word(value, True, value, source)
    prefix: list[str] = []
    for part in parts:
        if not part.literal:
            prefix.append(part.prefix)
            break
        prefix.append(part.value)
    suffix: list[str] = []
    for part in reversed(parts):
        if not part.literal:
            suffix.append(part.suffix)
            break
        suffix.append(part.value)
    globs_only = all(p.literal or p.glob is not None for p in parts)
    glob = "".join(p.glob if p.glob is not None else _escape_glob(p.value) for p in parts) if globs_only else None
    splits = any(p.splits for p in parts)
    return Word(value, False, "".join(prefix), source, glob, "".join(reversed(suffix)), splits)


def _escape_glob(text: str) -> str:
    return "".join(f"[{c}]" if c in GLOB_CHARS else c for c in text)


def decode_escapes(body: str) -> str:
    """Decode backslash escapes the way bash does inside `$'...'` (`echo -e` and `printf` are close enough)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 == len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        i += 2
        if nxt in _C_ESCAPES:
            out.append(_C_ESCAPES[nxt])
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            digits = re.match(rf"[0-9a-fA-F]{{1,{width}}}", body[i:])
            if digits:
                out.append(chr(int(digits.group(), 16)))
                i += len(digits.group())
            else:
                out.append("\\" + nxt)
        elif nxt in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i - 1 :])
            assert digits is not None
            out.append(chr(int(digits.group(), 8) & 0xFF))
            i += len(digits.group()) - 1
        elif nxt == "c" and i < len(body):
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append(nxt if nxt in "\\'\"?" else "\\" + nxt)
    return "".join(out)


MAX_BRACE_WORDS = 256


def brace_expand(text: str) -> list[str]:
    """Bash brace expansion of comma lists (`{a,b}c` -> `ac bc`), nested; sequences are left as they are.
    Stops with [text] past MAX_BRACE_WORDS words (`{a,b}` forty times would be a trillion)."""
    try:
        return _brace_expand(text, [0])
    except OverflowError:
        return [text]


def _brace_expand(text: str, produced: list[int]) -> list[str]:
    depth, start = 0, -1
    commas: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0 and commas:
                head, tail = text[:start], text[i + 1 :]
                cuts = [start, *commas, i]
                options = [text[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                found = []
                for option in options:
                    found.extend(_brace_expand(head + option + tail, produced))
                return found
        elif ch == "," and depth == 1:
            commas.append(i)
    produced[0] += 1
    if produced[0] > MAX_BRACE_WORDS:
        raise OverflowError("brace expansion too large")
    return [text]


def is_assignment(word: Word) -> bool:
    return ASSIGNMENT.match(word.value) is not None


def _text(node: Node, src: bytes) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
