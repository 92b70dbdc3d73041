"""Ripgrep's regex syntax (Rust `regex`) rewritten for Python's `re`, for the search fallback.

ripgrep matches line by line in CRLF mode: `.` and `$` never touch `\\r` or `\\n`, `\\A` and `\\z` are the
ends of the line. Python differs in a few places; each is translated to the equivalent Python construct or
rejected with the position, so the fallback never silently matches something ripgrep would not:

- translated: `(?<name>..)`, `\\x{..}` / `\\u{..}`, `\\z`, `\\<` `\\>` `\\b{start}`.., `[[:alpha:]]`, flags
  in the middle of a pattern (`a(?i)b`), stacked repetition (`a*+` is `(a*)+` in Rust, possessive in Python);
- rejected as ripgrep rejects them: look-around, backreferences, `\\Z`, `a{,3}`, a bare `{`, `\\n`;
- rejected because Python has no equivalent: `\\p{..}` Unicode classes, nested classes and `&&`/`--`/`~~`,
  negated POSIX classes, the `U`, `x` and `-u` flags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\x0B\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_BOUNDARIES = {
    "start": r"\b(?=\w)",
    "end": r"\b(?<=\w)",
    "start-half": r"(?<!\w)",
    "end-half": r"(?!\w)",
}
_SAME_ESCAPES = frozenset("dDwWsSbBtrfva")
_PY_FLAGS = frozenset("is")
_NOOP_FLAGS = frozenset("mRu")
_COUNTED = re.compile(r"\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}")
_CODEPOINT = re.compile(r"\{([0-9A-Fa-f]{1,8})\}")
_FIXED_HEX = {"x": 2, "u": 4, "U": 8}


class RegexSyntaxError(ValueError):
    """The pattern is invalid in ripgrep's syntax, or has no Python equivalent; `position` is 0-based."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True)
class Translation:
    python: str
    line_anchored: bool  # uses \A or \z, which mean the ends of one line: no whole-file pre-check


@dataclass
class _Group:
    flags: frozenset[str]
    start_flags: frozenset[str]
    out_index: int
    open_scopes: int = 0


@dataclass
class _Translator:
    pattern: str
    out: list[str] = field(default_factory=list)
    groups: list[_Group] = field(default_factory=list)
    atom_index: int | None = None
    after_quantifier: bool = False
    line_anchored: bool = False

    def fail(self, message: str, position: int) -> RegexSyntaxError:
        return RegexSyntaxError(message, position)

    def atom(self, text: str) -> None:
        self.atom_index = len(self.out)
        self.out.append(text)
        self.after_quantifier = False

    def run(self, base_flags: frozenset[str]) -> str:
        self.groups.append(_Group(base_flags, base_flags, 0))
        i = 0
        p = self.pattern
        while i < len(p):
            char = p[i]
            if char == "\\":
                text, i = self.escape(i)
                self.atom(text)
            elif char == "[":
                i = self.char_class(i)
            elif char == "(":
                i = self.open_group(i)
            elif char == ")":
                if len(self.groups) == 1:
                    raise self.fail("unopened group", i)
                group = self.groups.pop()
                self.out.append(")" * group.open_scopes + ")")
                self.atom_index = group.out_index
                self.after_quantifier = False
                i += 1
            elif char == "|":
                self.alternate()
                i += 1
            elif char in "*+?" or (char == "{" and self.counted_at(i)):
                i = self.quantifier(i)
            elif char == "{":
                raise self.fail("repetition quantifier expects a valid decimal", i)
            elif char == ".":
                self.atom("." if "s" in self.groups[-1].flags else "[^\\n\\r]")
                i += 1
            elif char == "$":
                self.atom("(?=\\r?$)")
                i += 1
            else:
                self.atom(re.escape(char) if char != "^" else "^")
                i += 1
        if len(self.groups) > 1:
            raise self.fail("unclosed group", self.groups[-1].out_index)
        self.out.append(")" * self.groups[0].open_scopes)
        return "".join(self.out)

    def counted_at(self, i: int) -> bool:
        return _COUNTED.match(self.pattern, i) is not None

    def quantifier(self, i: int) -> int:
        p = self.pattern
        if self.atom_index is None:
            raise self.fail("repetition operator missing expression", i)
        if p[i] == "{":
            match = _COUNTED.match(p, i)
            assert match is not None
            low, high = match.group(1), match.group(3)
            if match.group(2) and high and int(high) < int(low):
                raise self.fail("invalid repetition range: the minimum is greater than the maximum", i)
            text = "{" + low + ("," + (high or "") if match.group(2) else "") + "}"
            end = match.end()
        else:
            text, end = p[i], i + 1
        if end < len(p) and p[end] == "?":
            text, end = text + "?", end + 1
        if self.after_quantifier:
            # Rust repeats the repeated expression; Python would read it as possessive or refuse it.
            self.out[self.atom_index :] = ["(?:", *self.out[self.atom_index :], ")"]
        self.out.append(text)
        self.after_quantifier = True
        return end

    def alternate(self) -> None:
        group = self.groups[-1]
        self.out.append(")" * group.open_scopes + "|")
        group.open_scopes = 0
        scope = _scope(group.start_flags, group.flags)
        if scope:
            self.out.append(scope)
            group.open_scopes = 1
        self.atom_index = None
        self.after_quantifier = False

    def open_group(self, i: int) -> int:
        p = self.pattern
        flags = self.groups[-1].flags
        if not p.startswith("(?", i):
            self.groups.append(_Group(flags, flags, len(self.out)))
            self.out.append("(")
            self.atom_index = None
            return i + 1
        rest = p[i + 2 :]
        for prefix, problem in (
            ("=", "look-around, including look-ahead and look-behind, is not supported"),
            ("!", "look-around, including look-ahead and look-behind, is not supported"),
            ("<=", "look-around, including look-ahead and look-behind, is not supported"),
            ("<!", "look-around, including look-ahead and look-behind, is not supported"),
            ("P=", "backreferences are not supported"),
            (">", "atomic groups are not supported"),
            ("#", "comment groups are not supported"),
            ("(", "conditionals are not supported"),
        ):
            if rest.startswith(prefix):
                raise self.fail(problem, i)
        name = re.match(r"P?<([A-Za-z_][A-Za-z0-9_]*)>", rest)
        if name:
            self.groups.append(_Group(flags, flags, len(self.out)))
            self.out.append(f"(?P<{name.group(1)}>")
            self.atom_index = None
            return i + 2 + name.end()
        if rest.startswith(":"):
            self.groups.append(_Group(flags, flags, len(self.out)))
            self.out.append("(?:")
            self.atom_index = None
            return i + 3
        spec = re.match(r"([A-Za-z-]*)([:)])", rest)
        if not spec:
            raise self.fail("unrecognized flag or group syntax", i)
        new_flags = self.apply_flags(flags, spec.group(1), i)
        end = i + 2 + spec.end()
        if spec.group(2) == ":":
            self.groups.append(_Group(new_flags, new_flags, len(self.out)))
            self.out.append(_scope(flags, new_flags) or "(?:")
            self.atom_index = None
            return end
        group = self.groups[-1]
        group.flags = new_flags
        scope = _scope(flags, new_flags)
        if scope:
            self.out.append(scope)
            group.open_scopes += 1
        self.atom_index = None
        return end

    def apply_flags(self, flags: frozenset[str], spec: str, position: int) -> frozenset[str]:
        result = set(flags)
        negate = False
        for char in spec:
            if char == "-":
                negate = True
            elif char in _PY_FLAGS:
                (result.discard if negate else result.add)(char)
            elif char in _NOOP_FLAGS and not (char == "u" and negate):
                continue
            elif char in "Uxu":
                flag = f"{'-' if negate else ''}{char}"
                raise self.fail(f"the flag {flag} is not supported by the Python fallback", position)
            else:
                raise self.fail(f"unrecognized flag {char!r}", position)
        return frozenset(result)

    def escape(self, i: int, in_class: bool = False) -> tuple[str, int]:
        """The Python text for the escape at `i`, and the index after it."""
        p = self.pattern
        if i + 1 >= len(p):
            raise self.fail("incomplete escape sequence, reached end of pattern prematurely", i)
        char = p[i + 1]
        if char in "pP":
            raise self.fail("Unicode classes like \\p{...} are not supported by the Python fallback", i)
        if char == "n":
            raise self.fail('the literal "\\n" is not allowed in a regex', i)
        if char.isdigit():
            raise self.fail("backreferences are not supported", i)
        if char in _FIXED_HEX:
            braced = _CODEPOINT.match(p, i + 2)
            if braced:
                return f"\\U{int(braced.group(1), 16):08x}", braced.end()
            digits = p[i + 2 : i + 2 + _FIXED_HEX[char]]
            if len(digits) != _FIXED_HEX[char] or not re.fullmatch("[0-9A-Fa-f]+", digits):
                raise self.fail("invalid hexadecimal escape", i)
            return f"\\U{int(digits, 16):08x}", i + 2 + len(digits)
        if in_class:
            if char == "b" or (char.isalpha() and char not in _SAME_ESCAPES):
                raise self.fail("invalid escape sequence found in character class", i)
            return "\\" + char if char.isalpha() else re.escape(char), i + 2
        if char == "b" and p.startswith("{", i + 2):
            close = p.find("}", i + 3)
            kind = p[i + 3 : close] if close > 0 else ""
            if kind not in _BOUNDARIES:
                raise self.fail("unrecognized word boundary", i)
            return _BOUNDARIES[kind], close + 1
        if char in "<>":
            return _BOUNDARIES["start" if char == "<" else "end"], i + 2
        if char in "Az":
            self.line_anchored = True
            return "\\A" if char == "A" else "(?=\\r?\\Z)", i + 2
        if char in _SAME_ESCAPES:
            return "\\" + char, i + 2
        if char.isalnum():
            raise self.fail("unrecognized escape sequence", i)
        return re.escape(char), i + 2

    def char_class(self, i: int) -> int:
        p = self.pattern
        start = i
        i += 1
        parts = ["["]
        if i < len(p) and p[i] == "^":
            parts.append("^")
            i += 1
        first = True
        while True:
            if i >= len(p):
                raise self.fail("unclosed character class", start)
            char = p[i]
            if char == "]" and not first:
                break
            first = False
            if char == "\\":
                text, i = self.escape(i, in_class=True)
                parts.append(text)
                continue
            if char == "[":
                posix = re.match(r"\[:(\^?)([a-z]+):\]", p[i:])
                if not posix or posix.group(2) not in _POSIX:
                    raise self.fail("nested character classes are not supported by the Python fallback", i)
                if posix.group(1):
                    raise self.fail("negated POSIX classes are not supported by the Python fallback", i)
                parts.append(_POSIX[posix.group(2)])
                i += posix.end()
                continue
            if p.startswith(("&&", "--", "~~"), i):
                raise self.fail("character class set operations are not supported by the Python fallback", i)
            parts.append(re.escape(char) if char not in "-" else "-")
            i += 1
        parts.append("]")
        self.atom("".join(parts))
        return i + 1


def _scope(before: frozenset[str], after: frozenset[str]) -> str:
    """A Python scoped-flag group opening that turns `before` into `after` (only i and s matter)."""
    on = "".join(sorted((after - before) & _PY_FLAGS))
    off = "".join(sorted((before - after) & _PY_FLAGS))
    if not on and not off:
        return ""
    return f"(?{on}{'-' + off if off else ''}:"


def translate(pattern: str, *, ignore_case: bool = False) -> Translation:
    """The Python pattern that matches what ripgrep's regex matches within one line; compile it with
    re.IGNORECASE when `ignore_case` (ripgrep's -i), which inline `(?-i)` can still turn off."""
    translator = _Translator(pattern)
    python = translator.run(frozenset("i") if ignore_case else frozenset())
    return Translation(python, translator.line_anchored)
