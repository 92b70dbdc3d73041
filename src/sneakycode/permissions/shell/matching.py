"""Command rules and how they match the words of a simple command.

Rules are prefixes matched on whole words (`git log` covers `git log -p`, not `git logout`). Deny and ask
rules compare the command name path-stripped and also see the command with its program's global options
removed (`git -C . push` is `git push`, see `programs.py`); allow rules compare the words as written. A word
only known at run time gives MAYBE when its literal parts could still produce the rule's word.
"""

from __future__ import annotations

import fnmatch
import shlex
from dataclasses import dataclass
from enum import Enum

from sneakycode.permissions.shell.programs import subcommand_forms
from sneakycode.permissions.shell.syntax import quoted
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import command_name, known_name, posix_basename


@dataclass(frozen=True)
class CommandRule:
    """One command rule. `prefix`: the command may continue after the rule's words; otherwise the whole
    command must equal them. `key` and `origin` say where the rule was configured."""

    words: tuple[str, ...]
    prefix: bool
    entry: str
    key: str
    origin: str | None = None

    @classmethod
    def parse(
        cls, pattern: str, entry: str, key: str, origin: str | None = None, *, prefix: bool = True
    ) -> CommandRule:
        """`pattern` is `PREFIX`, `PREFIX:*` or `PREFIX *`; the last two always match as prefixes."""
        text = pattern.strip()
        for star in (":*", " *"):
            if text.endswith(star):
                text, prefix = text[: -len(star)], True
        try:
            words = tuple(shlex.split(text))
        except ValueError:
            words = tuple(text.split())
        return cls(words, prefix, entry, key, origin)

    def normalised(self) -> CommandRule:
        """The same rule with its command name path-stripped, as deny and ask rules compare it."""
        if not self.words:
            return self
        first = posix_basename(self.words[0])
        return CommandRule((first, *self.words[1:]), True, self.entry, self.key, self.origin)

    def describe(self) -> str:
        where = f"{self.key} in {self.origin}" if self.origin else self.key
        return f"{quoted(self.entry)} ({where})"


@dataclass(frozen=True)
class CommandRules:
    deny: tuple[CommandRule, ...] = ()
    ask: tuple[CommandRule, ...] = ()
    allow: tuple[CommandRule, ...] = ()


@dataclass(frozen=True)
class RuleHit:
    """`part` (the command as written) matched `rule`; `via` is the wrapper that runs it, if any; `note`
    says how, when the match is indirect (`hash -p` binding a name to the rule's program)."""

    rule: CommandRule
    part: str
    via: str | None = None
    note: str = ""

    def explain(self, kind: str) -> str:
        runs = f" (run by {quoted(self.via)})" if self.via and self.via != self.part else ""
        return f"{quoted(self.part)}{runs} matches {kind} rule {self.rule.describe()}{self.note}"


@dataclass(frozen=True)
class Doubt:
    """Why a `kind` rule ("deny" or "ask") might apply although no rule matches for certain: a word only
    known at run time, code that cannot be seen, nesting too deep to follow."""

    text: str
    kind: str
    rule: CommandRule | None


class Match(Enum):
    NO = 0
    MAYBE = 1
    YES = 2


def match(rule: CommandRule, words: tuple[Word, ...], *, normalise: bool = False, open_ended: bool = False) -> Match:
    """Whole-word prefix (or exact) match. MAYBE: a word only known at run time could make it match.
    `normalise` (deny and ask rules): path-stripped names, and every form the program's global options allow."""
    if not normalise:
        return _match_words(rule, words, normalise=False, open_ended=open_ended)
    best = Match.NO
    for form, certain in subcommand_forms(words):
        found = _match_words(rule, form, normalise=True, open_ended=open_ended)
        if found is Match.YES and not certain:
            found = Match.MAYBE
        if found.value > best.value:
            best = found
    return best


def _match_words(rule: CommandRule, words: tuple[Word, ...], *, normalise: bool, open_ended: bool) -> Match:
    for index, expected in enumerate(rule.words):
        if index >= len(words):
            return Match.NO
        word = words[index]
        first = index == 0 and normalise
        if word.literal:
            actual = command_name(word) if first else word.value
            if actual != expected:
                return Match.NO
            continue
        name = known_name(word) if first else None
        if name is not None:
            if name != expected:
                return Match.NO
            continue
        return Match.MAYBE if _could_be(word, expected, first) else Match.NO
    if not rule.prefix and (len(words) != len(rule.words) or open_ended):
        return Match.NO
    return Match.YES


def _could_be(word: Word, expected: str, first: bool) -> bool:
    if word.glob is not None:
        pattern = posix_basename(word.glob) if first else word.glob
        return fnmatch.fnmatchcase(expected, pattern)
    prefix = word.prefix.rsplit("/", 1)[-1] if first else word.prefix
    return expected.startswith(prefix)
