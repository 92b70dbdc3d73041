"""Ripgrep's regex syntax (Rust `regex`) rewritten for RE2, the search fallback's engine.

The fallback runs on RE2 (`google-re2`) rather than Python's `re` because RE2 matches in linear time: a
backtracking engine hangs on `(a+)+$` against a long run of `a`s, and a running `re` match cannot be
interrupted. RE2's syntax is close to Rust's; what differs is translated here, or rejected with the position,
so the fallback never silently matches something ripgrep would not.

ripgrep matches line by line in CRLF mode: no class, not even `.`, matches `\\r` or `\\n`; `^` and `$` also
match next to a `\\r` inside a line; `\\A` and `\\z` are the ends of the line. The fallback hands RE2 each
line without its final `\\r` and with any other `\\r` turned into `\\n`, and compiles in multi-line mode
with never_nl, which gives exactly those rules, on one line or on a whole file.

- translated: `(?<name>..)`, `\\x{..}` / `\\u{..}`, `\\d` `\\w` `\\s` (Unicode in Rust, ASCII in RE2),
  `\\<` `\\>` `\\b{start}`.. (to `\\b`, see below), flags in the middle of a pattern (`a(?i)b`),
  stacked repetition (`a*+` is `(a*)+` in Rust, an error in RE2);
- rejected as ripgrep rejects them: look-around, backreferences, `\\Z`, `a{,3}`, a bare `{`, `\\n`, `\\r`;
- rejected because RE2 has no equivalent: `\\p{..}` Unicode classes, nested classes and `&&`/`--`/`~~`,
  `\\W` and `\\S` inside a class, the `x` and `-u` flags, counts above 1000, and `\\<` `\\>` `\\b{..}`
  unless a word character (an ASCII letter, digit, `_` or `\\w`) sits on their word side, where they
  are RE2's `\\b`.

RE2's `\\b` and `\\B` know only ASCII word characters: next to a non-ASCII letter (`café\\b`) they differ
from ripgrep's. RE2 cannot express a Unicode word boundary, and refusing `\\b` would refuse most searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_POSIX = frozenset(
    ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper",
     "word", "xdigit")
)
# Rust's \w is Unicode's (UTS #18): Alphabetic, marks, decimal digits, connector punctuation, join controls;
# the Alphabetic characters outside L, M and Nl are the circled and squared Latin letters.
_WORD = (
    "\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200C}\\x{200D}"
    "\\x{24B6}-\\x{24E9}\\x{1F130}-\\x{1F149}\\x{1F150}-\\x{1F169}\\x{1F170}-\\x{1F189}"
)
# Unicode White_Space without \n and \r, which ripgrep never matches in a line.
_SPACE = "\\t\\x{0B}\\f \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
_IN_CLASS = {"d": "\\p{Nd}", "D": "\\P{Nd}", "w": _WORD, "s": _SPACE, "t": "\\t", "f": "\\f", "v": "\\v", "a": "\\a"}
_ESCAPES = {**_IN_CLASS, "w": f"[{_WORD}]", "W": f"[^{_WORD}]", "s": f"[{_SPACE}]", "S": f"[^{_SPACE}]"}
_ESCAPES.update(b="\\b", B="\\B")
_BOUNDARY_SIDES = {"<": "start", ">": "end", "start": "start", "end": "end", "start-half": "start", "end-half": "end"}
_RE2_FLAGS = frozenset("i")
# m: every pattern runs in multi-line mode; s: never_nl keeps `.` off line ends anyway; U: greediness moves
# only where a match ends, and the fallback reads only where a line's first match starts.
_NOOP_FLAGS = frozenset("msRuU")
_MAX_COUNT = 1000  # RE2's limit on {n,m}
_COUNTED = re.compile(r"\{\s*(\d+)\s*(,\s*(\d*)\s*)?\}")
_CODEPOINT = re.compile(r"\{([0-9A-Fa-f]{1,8})\}")
_FIXED_HEX = {"x": 2, "u": 4, "U": 8}
_LINE_BREAKS = {0x0A: "n", 0x0D: "r"}


class RegexSyntaxError(ValueError):
    """The pattern is invalid in ripgrep's syntax, or has no RE2 equivalent; `position` is 0-based."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@dataclass(frozen=True)
class Translation:
    re2: str
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
    word_atom: bool = False  # the last atom matches only word characters (at least one)
    start_boundary: int | None = None  # a `\<` (at this position) waiting for its word character
    guarded_atom: int | None = None  # the last atom is that word character: it may not become optional

    def fail(self, message: str, position: int) -> RegexSyntaxError:
        return RegexSyntaxError(message, position)

    def boundary_fail(self, position: int) -> RegexSyntaxError:
        return self.fail(
            "the Python fallback supports \\<, \\> and \\b{...} only beside a word character (a letter, digit, _ "
            "or \\w) on their word side",
            position,
        )

    def no_pending_boundary(self) -> None:
        if self.start_boundary is not None:
            raise self.boundary_fail(self.start_boundary)

    def atom(self, text: str, *, word: bool = False) -> None:
        self.guarded_atom = None
        if self.start_boundary is not None:
            if not word:
                raise self.boundary_fail(self.start_boundary)
            self.guarded_atom, self.start_boundary = self.start_boundary, None
        self.atom_index = len(self.out)
        self.out.append(text)
        self.after_quantifier = False
        self.word_atom = word

    def not_an_atom(self) -> None:
        self.no_pending_boundary()
        self.word_atom = False
        self.guarded_atom = None

    def run(self, base_flags: frozenset[str]) -> str:
        self.groups.append(_Group(base_flags, base_flags, 0))
        i = 0
        p = self.pattern
        while i < len(p):
            char = p[i]
            if char == "\\":
                i = self.escape_atom(i)
            elif char == "[":
                i = self.char_class(i)
            elif char == "(":
                self.not_an_atom()
                i = self.open_group(i)
            elif char == ")":
                if len(self.groups) == 1:
                    raise self.fail("unopened group", i)
                self.not_an_atom()
                group = self.groups.pop()
                self.out.append(")" * group.open_scopes + ")")
                self.atom_index = group.out_index
                self.after_quantifier = False
                i += 1
            elif char == "|":
                self.not_an_atom()
                self.alternate()
                i += 1
            elif char in "*+?" or (char == "{" and self.counted_at(i)):
                i = self.quantifier(i)
            elif char == "{":
                raise self.fail("repetition quantifier expects a valid decimal", i)
            elif char in ".^$":
                self.atom(char)
                i += 1
            else:
                self.atom(_literal(char), word=char.isascii() and (char.isalnum() or char == "_"))
                i += 1
        if len(self.groups) > 1:
            raise self.fail("unclosed group", self.groups[-1].out_index)
        self.no_pending_boundary()
        self.out.append(")" * self.groups[0].open_scopes)
        return "".join(self.out)

    def escape_atom(self, i: int) -> int:
        text, end = self.escape(i)
        p = self.pattern
        kind = p[i + 1] if p[i + 1] in "<>" else p[i + 3 : end - 1] if p.startswith("b{", i + 1) else ""
        side = _BOUNDARY_SIDES.get(kind)
        if side == "end" and not self.word_atom:
            raise self.boundary_fail(i)
        self.atom(text, word=p[i + 1] == "w")
        if side == "start":
            # Before a word character, "no word character before" is RE2's \b.
            self.start_boundary = i
        return end

    def counted_at(self, i: int) -> bool:
        return _COUNTED.match(self.pattern, i) is not None

    def quantifier(self, i: int) -> int:
        p = self.pattern
        if self.atom_index is None:
            raise self.fail("repetition operator missing expression", i)
        self.no_pending_boundary()
        if p[i] == "{":
            match = _COUNTED.match(p, i)
            assert match is not None
            low, high = match.group(1), match.group(3)
            if match.group(2) and high and int(high) < int(low):
                raise self.fail("invalid repetition range: the minimum is greater than the maximum", i)
            if max(int(low), int(high or 0)) > _MAX_COUNT:
                raise self.fail(f"the Python fallback supports repetition counts up to {_MAX_COUNT}", i)
            text = "{" + low + ("," + (high or "") if match.group(2) else "") + "}"
            end, minimum = match.end(), int(low)
        else:
            text, end, minimum = p[i], i + 1, int(p[i] == "+")
        if minimum == 0:
            if self.guarded_atom is not None:
                raise self.boundary_fail(self.guarded_atom)
            self.word_atom = False
        if end < len(p) and p[end] == "?":
            text, end = text + "?", end + 1
        if self.after_quantifier:
            # Rust repeats the repeated expression; RE2 refuses `a*+`.
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
            elif char in _RE2_FLAGS:
                (result.discard if negate else result.add)(char)
            elif char in _NOOP_FLAGS and not (char == "u" and negate):
                continue
            elif char in "xu":
                flag = f"{'-' if negate else ''}{char}"
                raise self.fail(f"the flag {flag} is not supported by the Python fallback", position)
            else:
                raise self.fail(f"unrecognized flag {char!r}", position)
        return frozenset(result)

    def escape(self, i: int, in_class: bool = False) -> tuple[str, int]:
        """The RE2 text for the escape at `i`, and the index after it."""
        p = self.pattern
        if i + 1 >= len(p):
            raise self.fail("incomplete escape sequence, reached end of pattern prematurely", i)
        char = p[i + 1]
        if char in "pP":
            raise self.fail("Unicode classes like \\p{...} are not supported by the Python fallback", i)
        if char in "nr":
            raise self.fail(f'the literal "\\{char}" is not allowed in a regex', i)
        if char.isdigit():
            raise self.fail("backreferences are not supported", i)
        if char in _FIXED_HEX:
            braced = _CODEPOINT.match(p, i + 2)
            if braced:
                code, end = int(braced.group(1), 16), braced.end()
            else:
                digits = p[i + 2 : i + 2 + _FIXED_HEX[char]]
                if len(digits) != _FIXED_HEX[char] or not re.fullmatch("[0-9A-Fa-f]+", digits):
                    raise self.fail("invalid hexadecimal escape", i)
                code, end = int(digits, 16), i + 2 + len(digits)
            if code in _LINE_BREAKS:
                raise self.fail(f'the literal "\\{_LINE_BREAKS[code]}" is not allowed in a regex', i)
            return f"\\x{{{code:X}}}", end
        if in_class:
            if char in "WS":
                raise self.fail(f"\\{char} inside a character class is not supported by the Python fallback", i)
            if char.isalpha() and char not in _IN_CLASS:
                raise self.fail("invalid escape sequence found in character class", i)
            return _IN_CLASS[char] if char.isalpha() else _literal(char), i + 2
        if char == "b" and p.startswith("{", i + 2):
            close = p.find("}", i + 3)
            if close < 0 or p[i + 3 : close] not in _BOUNDARY_SIDES:
                raise self.fail("unrecognized word boundary", i)
            return "\\b", close + 1
        if char in "<>":
            return "\\b", i + 2
        if char in "Az":
            self.line_anchored = True
            return "\\" + char, i + 2
        if char in _ESCAPES:
            return _ESCAPES[char], i + 2
        if char.isalnum():
            raise self.fail("unrecognized escape sequence", i)
        return _literal(char), i + 2

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
                parts.append(posix.group(0))  # RE2 has Rust's ASCII POSIX classes, negated ones too
                i += posix.end()
                continue
            if p.startswith(("&&", "--", "~~"), i):
                raise self.fail("character class set operations are not supported by the Python fallback", i)
            parts.append(_literal(char) if char != "-" else "-")
            i += 1
        parts.append("]")
        self.atom("".join(parts))
        return i + 1


def _literal(char: str) -> str:
    """`char` as RE2 text that matches only it: ASCII punctuation and controls by code, never special."""
    if char.isascii() and not (char.isalnum() or char == "_"):
        return f"\\x{{{ord(char):02X}}}"
    return char


def _scope(before: frozenset[str], after: frozenset[str]) -> str:
    """An RE2 scoped-flag group opening that turns `before` into `after` (only i matters)."""
    on = "".join(sorted((after - before) & _RE2_FLAGS))
    off = "".join(sorted((before - after) & _RE2_FLAGS))
    if not on and not off:
        return ""
    return f"(?{on}{'-' + off if off else ''}:"


def translate(pattern: str, *, ignore_case: bool = False) -> Translation:
    """The RE2 pattern that matches what ripgrep's regex matches within one line (prepared as the module
    docstring says); `ignore_case` is ripgrep's -i, which inline `(?-i)` can still turn off."""
    translator = _Translator(pattern)
    body = translator.run(frozenset("i") if ignore_case else frozenset())
    return Translation(("(?i)" if ignore_case else "") + body, translator.line_anchored)
