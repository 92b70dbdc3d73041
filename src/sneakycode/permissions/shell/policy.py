"""The command policy: one shell command line and the command rules -> what denies, asks for or approves it.

Rules are prefixes matched on whole words (`git log` covers `git log -p`, not `git logout`). Deny and ask
rules see a command the way bash runs it: quotes removed, the path stripped from the command name,
`VAR=value` prefixes skipped, and through wrappers (`sudo`, `timeout`, `bash -c '...'`, `xargs`,
`find -exec` ...). Allow rules match the command as written, and approve a line only when every simple
command in it is covered and nothing in it escapes the check: no command or process substitution, no
`${var@P}`, no redirection outside the workspace (`/dev/null` is fine), no syntax error. One denied part
denies the whole line. `permissions.decide` turns the verdict into allow / ask / deny.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from sneakycode.permissions.shell.syntax import ParsedLine, Redirect, parse_line, quoted
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrappers import command_name, option_blockers, unwrap
from sneakycode.workspace.paths import locate

MAX_DEPTH = 16
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})
READ_OPERATORS = frozenset({"<", "<&"})


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


def posix_basename(text: str) -> str:
    return text.rsplit("/", 1)[-1] or text


@dataclass(frozen=True)
class CommandRules:
    deny: tuple[CommandRule, ...] = ()
    ask: tuple[CommandRule, ...] = ()
    allow: tuple[CommandRule, ...] = ()


@dataclass(frozen=True)
class RuleHit:
    """`part` (the command as written) matched `rule`; `via` is the wrapper that runs it, if any."""

    rule: CommandRule
    part: str
    via: str | None = None

    def explain(self, kind: str, *, maybe: bool = False) -> str:
        runs = f" (run by {quoted(self.via)})" if self.via and self.via != self.part else ""
        verb = "might match" if maybe else "matches"
        known = " once its run-time words are known" if maybe else ""
        return f"{quoted(self.part)}{runs} {verb} {kind} rule {self.rule.describe()}{known}"


@dataclass(frozen=True)
class Doubt:
    text: str
    rule: CommandRule | None


@dataclass(frozen=True)
class LineVerdict:
    """`not_approved` is why the allow rules do not approve the whole line (None: they do);
    `doubt` says why a deny or ask rule might still apply (a word only known at run time, nesting too deep
    to follow): such a line is asked about even in yolo mode."""

    line: str
    commands: tuple[str, ...]
    denied: RuleHit | None
    asked: RuleHit | None
    approved: tuple[RuleHit, ...]
    not_approved: str | None
    doubt: Doubt | None = None


class Match(Enum):
    NO = 0
    MAYBE = 1
    YES = 2


@dataclass
class _Result:
    """`maybe`: doubts about deny and ask rules; `blocks`: reasons no allow rule can approve the line;
    `uncovered`: parts no allow rule matched."""

    denied: RuleHit | None = None
    asked: RuleHit | None = None
    maybe: list[Doubt] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    approved: list[RuleHit] = field(default_factory=list)

    def restrictions_from(self, other: _Result, via: str | None) -> None:
        if self.denied is None and other.denied is not None:
            self.denied = _via(other.denied, via)
        if self.asked is None and other.asked is not None:
            self.asked = _via(other.asked, via)
        self.maybe.extend(other.maybe)

    def absorb(self, other: _Result, via: str | None = None) -> None:
        self.restrictions_from(other, via)
        self.blocks.extend(other.blocks)
        self.uncovered.extend(other.uncovered)
        self.approved.extend(other.approved)


def _via(hit: RuleHit, via: str | None) -> RuleHit:
    return hit if hit.via is not None or via is None else RuleHit(hit.rule, hit.part, via)


def evaluate(line: str, rules: CommandRules, workspace: Path) -> LineVerdict:
    """Judge one command line without running it."""
    parsed = parse_line(line)
    judge = _Judge(rules, workspace.resolve())
    result = judge.line(parsed, 0)
    commands = tuple(command.source for command in parsed.commands if not command.fallback)
    suspects = [doubt.text for doubt in result.maybe]
    problems = list(dict.fromkeys([*result.blocks, *suspects, *result.uncovered]))
    if not parsed.commands and not problems:
        problems.append("the command line is empty")
    return LineVerdict(
        line=line,
        commands=commands,
        denied=result.denied,
        asked=result.asked,
        approved=tuple(result.approved),
        not_approved=_summarise(problems) if problems else None,
        doubt=result.maybe[0] if result.maybe else None,
    )


def _summarise(problems: list[str], limit: int = 3) -> str:
    shown = "; ".join(problems[:limit])
    return shown if len(problems) <= limit else f"{shown}; and {len(problems) - limit} more"


def show(words: tuple[Word, ...]) -> str:
    return " ".join(word.source or word.value for word in words)


class _Judge:
    def __init__(self, rules: CommandRules, workspace: Path) -> None:
        self.workspace = workspace
        self.allow = rules.allow
        self.deny = tuple(rule.normalised() for rule in rules.deny if rule.words)
        self.ask = tuple(rule.normalised() for rule in rules.ask if rule.words)

    def line(self, parsed: ParsedLine, depth: int) -> _Result:
        result = _Result(blocks=list(parsed.hazards))
        moved = any(
            command.core and command.core[0].literal and command_name(command.core[0]) in DIRECTORY_CHANGES
            for command in parsed.commands
        )
        for command in parsed.commands:
            judged = self.command(command.words, command.assignments, command.stdin, depth, source=command.source)
            if command.fallback:
                result.restrictions_from(judged, None)
            else:
                result.absorb(judged)
            if command.name_expanded:
                result.blocks.append(f"the command name in {quoted(command.source)} comes from brace expansion")
        for redirect in parsed.redirects:
            problem = self.redirect_problem(redirect, moved)
            if problem:
                result.blocks.append(problem)
        return result

    def command(
        self,
        words: tuple[Word, ...],
        assignments: int,
        stdin: Word | None,
        depth: int,
        *,
        open_ended: bool = False,
        source: str | None = None,
    ) -> _Result:
        result = _Result()
        text = source or show(words)
        core = words[assignments:]
        if not core:
            hit = self.allowed(words, open_ended)
            if hit is None:
                result.uncovered.append(f"{quoted(text)} sets shell variables and matches no allowed command")
            else:
                result.approved.append(hit)
            return result
        self.restrict(core, text, result)
        if not core[0].literal:
            result.blocks.append(f"the command name {quoted(core[0].source)} is only known at run time")
        result.blocks.extend(option_blockers(core))
        wrapped = unwrap(core, stdin)
        if wrapped is None:
            hit = self.allowed(words, open_ended)
            if hit is None:
                result.uncovered.append(f"{quoted(text)} matches no allowed command")
            else:
                result.approved.append(hit)
            return result
        result.blocks.extend(f"{quoted(text)} {blocker}" for blocker in wrapped.blockers)
        for target in wrapped.write_targets:
            problem = self.path_problem(target, f"{quoted(text)} writes", moved=False)
            if problem:
                result.blocks.append(problem)
        if depth >= MAX_DEPTH:
            result.maybe.append(Doubt(f"{quoted(text)} nests commands too deeply to check", None))
            return result
        inner_results = []
        for inner in wrapped.inner:
            if inner.script is not None:
                judged = self.script(inner.script, depth + 1, text)
                judged.uncovered = [
                    f"{quoted(text)} hands a command string to be parsed again; deny rules look inside it, "
                    "allow rules never approve it"
                ]
            else:
                judged = self.command(inner.words, inner.assignments, None, depth + 1, open_ended=inner.open_ended)
            inner_results.append(judged)
            result.restrictions_from(judged, text)
            result.blocks.extend(judged.blocks)
        for words_maybe in wrapped.maybe:
            result.restrictions_from(self.command(words_maybe, 0, None, depth + 1), text)
        whole = None
        if len(wrapped.inner) == 1 and wrapped.inner[0].words and wrapped.own is None:
            inner_words = wrapped.inner[0].words
            whole = self.allowed(words, open_ended or wrapped.inner[0].open_ended, beyond=len(words) - len(inner_words))
        if whole is not None:
            result.approved.append(whole)
            return result
        if wrapped.inner and (wrapped.privileged or assignments):
            who = "as another user" if wrapped.privileged else "with changed variables"
            result.uncovered.append(
                f"{quoted(text)} runs a command {who}; only an allow rule naming the whole command approves it"
            )
            return result
        if wrapped.own is not None and self.allowed(wrapped.own, False) is None:
            result.uncovered.append(f"{quoted(show(wrapped.own))} matches no allowed command")
        for judged in inner_results:
            result.uncovered.extend(judged.uncovered)
            result.approved.extend(judged.approved)
        return result

    def script(self, script: Word, depth: int, via: str) -> _Result:
        """A command line a wrapper parses itself (`bash -c`, `eval`, a heredoc fed to a shell)."""
        parsed = parse_line(script.value)
        result = self.line(parsed, depth)
        if not script.literal:
            result.blocks.insert(0, f"{quoted(via)} runs a command string only known at run time")
        return result

    def restrict(self, core: tuple[Word, ...], text: str, result: _Result) -> None:
        for rules, kind in ((self.deny, "deny"), (self.ask, "ask")):
            for rule in rules:
                found = match(rule, core, normalise=True)
                if found is Match.YES:
                    hit = RuleHit(rule, text)
                    if kind == "deny" and result.denied is None:
                        result.denied = hit
                    elif kind == "ask" and result.asked is None:
                        result.asked = hit
                elif found is Match.MAYBE:
                    result.maybe.append(Doubt(RuleHit(rule, text).explain(kind, maybe=True), rule))

    def allowed(self, words: tuple[Word, ...], open_ended: bool, beyond: int = 0) -> RuleHit | None:
        for rule in self.allow:
            if len(rule.words) > beyond and match(rule, words, open_ended=open_ended) is Match.YES:
                return RuleHit(rule, show(words))
        return None

    def redirect_problem(self, redirect: Redirect, moved: bool) -> str | None:
        if redirect.target is None:
            return None
        verb = "reads" if redirect.operator in READ_OPERATORS else "writes"
        return self.path_problem(redirect.target, f"redirection {quoted(redirect.source)} {verb}", moved)

    def path_problem(self, target: Word, what: str, moved: bool) -> str | None:
        if not target.literal:
            return f"{what} a path only known at run time"
        value = target.value
        if value in HARMLESS_TARGETS:
            return None
        if value.startswith("~"):
            return f"{what} {quoted(value)} in a home folder, outside the workspace"
        if not os.path.isabs(value) and moved:
            return f"{what} {quoted(value)} relative to a directory changed earlier in the line (cd, pushd, popd)"
        if locate(self.workspace, value).real_inside:
            return None
        return f"{what} {quoted(value)}, outside the workspace"


def match(rule: CommandRule, words: tuple[Word, ...], *, normalise: bool = False, open_ended: bool = False) -> Match:
    """Whole-word prefix (or exact) match. MAYBE: a word only known at run time could make it match."""
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
