"""Recoveries that read old_str as the model must have meant it: read_file's line numbers pasted along
(line_numbers.py), JSON escapes (`\\n`, `\\t`, `\\"`) or HTML entities (`&lt;`) written for the characters,
every backslash doubled (`'C:\\\\Users'` for `'C:\\Users'`, `/\\\\d+/` for `/\\d+/`), or a JavaScript template
literal's backticks and `${` escaped (`\\`hi ${name}\\``).

Each applies only where the file cannot mean the text as written: escapes and entities are decoded only
when none of those used occurs in the file (in a C file full of `"\\n"` an escaped newline could be either),
doubled backslashes are halved only when every run of them in old_str has an even length and none of them,
with the character after it, occurs in the file (a file with `"\\\\d"` in a RegExp string could mean either),
and line numbers are stripped only when every line carries one and they are the numbers of the lines the
text is at. The decoded old_str is then found by the ordinary strategies, so it must still match exactly one
place. new_str is decoded the same way when it is written the same way (it has no raw character that old_str
escaped, every run of backslashes is even, or it carries the numbers), so the lines the edit keeps compare
equal and keep the file's own bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from sneakycode.tools.edit.line_numbers import find_numbered, unnumbered_new
from sneakycode.tools.edit.matching import Candidate, Strategy, locate

_ESCAPE = re.compile(r"\\([\\nt\"'])")
_ESCAPED = {"\\": "\\", "n": "\n", "t": "\t", '"': '"', "'": "'"}
_ENTITY = re.compile(r"&(lt|gt|amp|quot|apos|#39);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'", "#39": "'"}
# In a template literal only ` and ${ need a backslash; an escaped backslash is read as itself, so that
# `\\`` stays a backslash before a closing backtick.
_TEMPLATE = re.compile(r"\\(\\|`|\$(?=\{))")
_TEMPLATED = {"\\": "\\\\", "`": "`", "$": "$"}
_BACKSLASHES = re.compile(r"(\\+)(.?)", re.DOTALL)

Finder = Callable[[str, str, bool], list[Candidate]]
Reading = Callable[[str, str], str | None]  # (file text, old_str) -> old_str as meant, or None: not this slip


# ---- readings ------------------------------------------------------------------------------------------


def _decoding(reading: Reading, base: Sequence[Strategy]) -> Finder:
    """A finder for old_str as `reading` reads it, found with the `base` strategies."""

    def find(text: str, old: str, replace_all: bool) -> list[Candidate]:
        decoded = reading(text, old)
        if decoded is None:
            return []
        located = locate(text, decoded, replace_all=replace_all, strategies=base)
        if located is None:
            return []
        _, candidates = located
        return [replace(cand, old=decoded if cand.old is None else cand.old) for cand in candidates]

    return find


def _escapes(pattern: re.Pattern[str], table: dict[str, str], ignored: frozenset[str]) -> Reading:
    """old_str decoded by `pattern` when it uses a form (other than `ignored` ones) that the file never has."""

    def read(text: str, old: str) -> str | None:
        used = {found.group(0) for found in pattern.finditer(old) if found.group(1) not in ignored}
        if not used or any(form in text for form in used):
            return None
        return pattern.sub(lambda found: table[found.group(1)], old)

    return read


def _decoded_new(pattern: re.Pattern[str], table: dict[str, str]) -> Callable[[str, str], str]:
    """new_str decoded like old_str when it is written the same way: none of the characters old_str wrote
    encoded appears raw in it (a raw newline next to escaped ones means new_str was not escaped)."""

    def new_text(old: str, new: str) -> str:
        encoded = {table[found.group(1)] for found in pattern.finditer(old)}
        raw = pattern.sub("", new)
        if any(char in raw for char in encoded if char != "\\"):
            return new
        return pattern.sub(lambda found: table[found.group(1)], new)

    return new_text


def _unescaped_template_new(old: str, new: str) -> str:
    """new_str with each escape old_str used read as its character, unless new_str has that character raw:
    judged per character, since a model that escapes the backticks often leaves `${` as it is."""
    used = {found.group(1) for found in _TEMPLATE.finditer(old)} - {"\\"}
    raw = _TEMPLATE.sub("", new)
    read = {char for char in used if char not in raw}
    return _TEMPLATE.sub(lambda found: found.group(1) if found.group(1) in read else found.group(0), new)


def _halved_backslashes(text: str, old: str) -> str | None:
    """old_str with every run of backslashes halved, when each run is even (every backslash was doubled)
    and no run, with the character after it, occurs in the file as written."""
    runs = list(_BACKSLASHES.finditer(old))
    if not runs or any(len(found.group(1)) % 2 for found in runs):
        return None
    # A run of n backslashes before c is in the file when one at least n long comes before c there: one
    # pass over the file, not one search per run (old_str may hold thousands of them).
    longest: dict[str, int] = {}
    for found in _BACKSLASHES.finditer(text):
        for after in {found.group(2), ""}:
            longest[after] = max(longest.get(after, 0), len(found.group(1)))
    if any(longest.get(found.group(2), 0) >= len(found.group(1)) for found in runs):
        return None
    return _halve(old)


def _halved_new(old: str, new: str) -> str:
    """new_str halved like old_str when it is doubled the same way (every run of backslashes is even)."""
    if any(len(found.group(1)) % 2 for found in _BACKSLASHES.finditer(new)):
        return new
    return _halve(new)


def _halve(text: str) -> str:
    return _BACKSLASHES.sub(lambda found: found.group(1)[: len(found.group(1)) // 2] + found.group(2), text)


def recoveries(base: Sequence[Strategy]) -> tuple[Strategy, ...]:
    """The recoveries, each finding its reading of old_str with the `base` strategies."""
    return (
        Strategy(
            "line_numbers",
            "after removing read_file's line numbers (they match the lines they claim)",
            find_numbered,
            new_text=unnumbered_new,
        ),
        Strategy(
            "escapes",
            "after reading \\n, \\t and \\\" as the characters (the file has none of those escapes)",
            _decoding(_escapes(_ESCAPE, _ESCAPED, frozenset("\\")), base),
            new_text=_decoded_new(_ESCAPE, _ESCAPED),
        ),
        Strategy(
            "html_entities",
            "after reading &lt; &gt; &amp; &quot; as the characters (the file has none of those entities)",
            _decoding(_escapes(_ENTITY, _ENTITIES, frozenset()), base),
            new_text=_decoded_new(_ENTITY, _ENTITIES),
        ),
        Strategy(
            "doubled_backslashes",
            "after reading each doubled backslash as one (the file has none of those doubled)",
            _decoding(_halved_backslashes, base),
            new_text=_halved_new,
        ),
        Strategy(
            "template_escapes",
            "after reading \\` and \\${ as ` and ${ (the file has none of those escapes)",
            _decoding(_escapes(_TEMPLATE, _TEMPLATED, frozenset("\\")), base),
            new_text=_unescaped_template_new,
        ),
    )
