"""The command policy: one shell command line and the command rules -> what denies, asks for or approves it.

Deny and ask rules see a command the way bash runs it: quotes removed, the path stripped from the command
name, `VAR=value` prefixes skipped, global options skipped (`git -C . push`), through wrappers (`sudo`,
`timeout`, `bash -c '...'`, `xargs`, `find -exec`, `taskset`, `flock` ...), through text piped into a shell
when the line shows it, through the script files a shell runs (scripts.py) and through `hash -p` bindings.
What might match a deny rule (a command name only known at run time, code fed to a shell that cannot be
seen) is reported as a doubt, which `decide` refuses.
Allow rules match the command as written, and approve a line only when every simple command in it is covered
and nothing in it escapes the check: no substitution, no `${var@P}`, no read or write outside the workspace,
no syntax error. A visible write into `.sneakycode/` or `.git/` (redirection, `tee`, `cp`, `git config` ...)
is `protected`: asked about in every mode. One denied part denies the whole line.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.permissions.shell.feeds import feed_of
from sneakycode.permissions.shell.matching import CommandRule, CommandRules, Doubt, Match, RuleHit, match
from sneakycode.permissions.shell.programs import option_blockers, runs_inside
from sneakycode.permissions.shell.scripts import may_write, read_script, sets_startup_variable, startup_reason
from sneakycode.permissions.shell.syntax import ParsedLine, Redirect, parse_line, quoted
from sneakycode.permissions.shell.targets import directory_changes, path_problem, protected_problem
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import Inner, Stdin, command_name, known_name
from sneakycode.permissions.shell.wrappers import unwrap
from sneakycode.permissions.shell.writes import writes_of
from sneakycode.workspace.paths import locate

MAX_DEPTH = 16
DIRECTORY_CHANGES = frozenset({"cd", "pushd", "popd"})
READ_OPERATORS = frozenset({"<", "<&"})


@dataclass(frozen=True)
class LineVerdict:
    """`not_approved` is why the allow rules do not approve the whole line (None: they do); `doubt` says why
    a deny or ask rule might still apply (a deny doubt first); `protected` why the line writes where a
    person must approve it whatever the mode."""

    line: str
    commands: tuple[str, ...]
    denied: RuleHit | None
    asked: RuleHit | None
    approved: tuple[RuleHit, ...]
    not_approved: str | None
    doubt: Doubt | None = None
    protected: str | None = None


@dataclass
class _Result:
    """`maybe`: doubts about deny and ask rules; `protected`: writes a person must approve; `blocks`: reasons
    no allow rule can approve the line; `uncovered`: parts no allow rule matched."""

    denied: RuleHit | None = None
    asked: RuleHit | None = None
    maybe: list[Doubt] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    approved: list[RuleHit] = field(default_factory=list)

    def restrictions_from(self, other: _Result, via: str | None) -> None:
        if self.denied is None and other.denied is not None:
            self.denied = _via(other.denied, via)
        if self.asked is None and other.asked is not None:
            self.asked = _via(other.asked, via)
        self.maybe.extend(other.maybe)
        self.protected.extend(other.protected)

    def absorb(self, other: _Result, via: str | None = None) -> None:
        self.restrictions_from(other, via)
        self.blocks.extend(other.blocks)
        self.uncovered.extend(other.uncovered)
        self.approved.extend(other.approved)


def _via(hit: RuleHit, via: str | None) -> RuleHit:
    return hit if hit.via is not None or via is None else RuleHit(hit.rule, hit.part, via, hit.note)


def evaluate(line: str, rules: CommandRules, workspace: Path, cwd: str | None = None,
             extra_roots: Sequence[Path] = ()) -> LineVerdict:
    """Judge one command line without running it; `cwd` is the folder it runs in (default: the workspace).
    A write into the protected places of an extra root (`--add-dir`) needs a person as in the workspace."""
    parsed = parse_line(line)
    judge = _Judge(rules, workspace.resolve(), cwd or "", tuple(extra_roots))
    result = judge.line(parsed, 0)
    judge.settle(result)
    commands = tuple(command.source for command in parsed.commands if not command.fallback)
    suspects = [doubt.text for doubt in result.maybe]
    problems = list(dict.fromkeys([*result.blocks, *suspects, *result.uncovered]))
    if not parsed.commands and not problems:
        problems.append("the command line is empty")
    denials = [doubt for doubt in result.maybe if doubt.kind == "deny"] or result.maybe
    return LineVerdict(
        line=line,
        commands=commands,
        denied=result.denied,
        asked=result.asked,
        approved=tuple(result.approved),
        not_approved=_summarise(problems) if problems else None,
        doubt=denials[0] if denials else None,
        protected=result.protected[0] if result.protected else None,
    )


def _summarise(problems: list[str], limit: int = 3) -> str:
    shown = "; ".join(problems[:limit])
    return shown if len(problems) <= limit else f"{shown}; and {len(problems) - limit} more"


def show(words: tuple[Word, ...]) -> str:
    return " ".join(word.source or word.value for word in words)


class _Judge:
    def __init__(self, rules: CommandRules, workspace: Path, cwd: str, extra_roots: tuple[Path, ...] = ()) -> None:
        self.workspace = workspace
        self.extra_roots = extra_roots
        self.allow = rules.allow
        self.deny = tuple(rule.normalised() for rule in rules.deny if rule.words)
        self.ask = tuple(rule.normalised() for rule in rules.ask if rule.words)
        self.rebound: dict[str, Word] = {}
        # Relative paths of the line start from `cwd`; a `cd` in the line makes where they point uncertain.
        self.cwd = "" if cwd in ("", ".") else cwd
        located = locate(workspace, self.cwd or ".")
        self.base = located.real if located.problem is None and located.real_inside else None
        self.folders: tuple[str, ...] = (self.cwd,) if self.cwd else ()
        self.moved = False
        # Script files: read only while nothing ran before them; checked at the end against the line's writes.
        self.fresh = True
        self.scripts: list[tuple[Path, str]] = []
        self.written: list[Word] = []
        self.startup: str | None = None

    def line(self, parsed: ParsedLine, depth: int) -> _Result:
        result = _Result(blocks=list(parsed.hazards))
        changes = [c.core for c in parsed.commands if c.core and c.core[0].literal and
                   command_name(c.core[0]) in DIRECTORY_CHANGES]
        self.moved = self.moved or bool(changes)
        changed = directory_changes([core[1] if len(core) > 1 else None for core in changes])
        self.folders = (*self.folders, *(posixpath.join(self.cwd, folder) for folder in changed))
        self.startup = self.startup or sets_startup_variable(parsed)
        for command in parsed.commands:
            if command.core and command.core[0].literal and command_name(command.core[0]) == "hash":
                found = unwrap(command.core)
                self.rebound.update(found.binds if found else ())
        # Substitutions run before the command that holds them: with one, no command is known to run first.
        fresh = self.fresh and not parsed.hazards
        for index, command in enumerate(parsed.commands):
            self.fresh = fresh and index == 0
            judged = self.command(command.words, command.assignments, feed_of(command), depth, source=command.source)
            if command.fallback:
                result.restrictions_from(judged, None)
            else:
                result.absorb(judged)
            if command.name_expanded:
                result.blocks.append(f"the command name in {quoted(command.source)} comes from brace expansion")
        for redirect in parsed.redirects:
            self.redirect(redirect, result)
        self.fresh = False
        return result

    def command(
        self,
        words: tuple[Word, ...],
        assignments: int,
        stdin: Stdin,
        depth: int,
        *,
        open_ended: bool = False,
        source: str | None = None,
    ) -> _Result:
        try:
            return self._command(words, assignments, stdin, depth, open_ended, source)
        finally:
            self.fresh = False  # whatever runs next runs after this command

    def _command(
        self,
        words: tuple[Word, ...],
        assignments: int,
        stdin: Stdin,
        depth: int,
        open_ended: bool,
        source: str | None,
    ) -> _Result:
        result = _Result()
        text = source or show(words)
        core = words[assignments:]
        if not core:
            self.approve(words, open_ended, f"{quoted(text)} sets shell variables and matches no allowed command",
                         result)
            return result
        self.restrict(core, text, result)
        if not core[0].literal:
            result.blocks.append(f"the command name {quoted(core[0].source)} is only known at run time")
        self.rebinding(core, text, result)
        result.blocks.extend(option_blockers(core))
        inside = runs_inside(core)
        wrapped = unwrap(core, stdin)
        if (inside or wrapped) and depth >= MAX_DEPTH:
            kind = "deny" if self.deny else "ask"
            result.maybe.append(Doubt(f"{quoted(text)} nests commands too deeply to check", kind, None))
            return result
        for inner in inside:
            result.restrictions_from(self.inner(inner, stdin, depth, text), text)
        if wrapped is None:
            self.writes(core, text, result)
            self.approve(words, open_ended, f"{quoted(text)} matches no allowed command", result)
            return result
        result.blocks.extend(f"{quoted(text)} {blocker}" for blocker in wrapped.blockers)
        for reason in wrapped.unseen:
            self.unseen(f"{quoted(text)} {reason}", result)
        for name, path in wrapped.binds:
            self.binding(name, path, text, result)
        for target in wrapped.write_targets:
            self.check_write(target, f"{quoted(text)} writes", result)
        if wrapped.shell and self.startup is not None:
            self.unseen(startup_reason(self.startup, text), result)
        for file in wrapped.files:
            result.restrictions_from(self.script_file(file, depth, text), text)
        inner_results = []
        for inner in wrapped.inner:
            judged = self.inner(inner, stdin, depth, text)
            inner_results.append(judged)
            result.restrictions_from(judged, text)
            result.blocks.extend(judged.blocks)
        for inner in wrapped.maybe:
            result.restrictions_from(self.inner(inner, stdin, depth, text), text)
        if not wrapped.inner and wrapped.own is None:
            self.approve(words, open_ended, f"{quoted(text)} matches no allowed command", result)
            return result
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

    def inner(self, inner: Inner, stdin: Stdin, depth: int, via: str) -> _Result:
        if inner.script is None:
            return self.command(inner.words, inner.assignments, stdin, depth + 1, open_ended=inner.open_ended)
        judged = self.script(inner.script, depth + 1, via)
        judged.uncovered = [
            f"{quoted(via)} hands a command string to be parsed again; deny rules look inside it, "
            "allow rules never approve it"
        ]
        return judged

    def script(self, script: Word, depth: int, via: str) -> _Result:
        """A command line a wrapper parses itself (`bash -c`, `eval`, text fed to a shell)."""
        parsed = parse_line(script.value)
        result = self.line(parsed, depth)
        if not script.literal:
            self.unseen(f"{quoted(via)} runs a command string only known at run time", result, first=True)
        return result

    def script_file(self, file: Word, depth: int, via: str) -> _Result:
        """A script file a shell runs: its text judged like text fed to a shell, when it can be seen."""
        result = _Result()
        what = f"{quoted(via)} runs the script file {quoted(file.source or file.value)}"
        if not self.fresh:
            self.unseen(f"{what} after other commands of the line, which may change it first, so its commands "
                        "cannot be seen", result, block=False)
            return result
        found = read_script(self.workspace, self.base, file, self.moved)
        if found.text is None or found.real is None:
            self.unseen(f"{what}, whose commands cannot be seen ({found.why})", result, block=False)
            return result
        self.scripts.append((found.real, what))
        return self.script(Word.plain(found.text), depth + 1, via)

    def settle(self, result: _Result) -> None:
        """A script whose text was read runs another text when a write of the line may reach it."""
        for real, what in self.scripts:
            if any(may_write(target, real, self.base) for target in self.written):
                self.unseen(f"{what}, which the line also writes, so what runs cannot be seen", result, block=False)

    def approve(self, words: tuple[Word, ...], open_ended: bool, miss: str, result: _Result) -> None:
        hit = self.allowed(words, open_ended)
        if hit is None:
            result.uncovered.append(miss)
        else:
            result.approved.append(hit)

    def unseen(self, text: str, result: _Result, *, first: bool = False, block: bool = True) -> None:
        """Code runs that the line does not show: any deny (or ask) rule might match it, and no allow rule
        approves it (unless `block` is off: a script file, which allow rules match as written)."""
        if first:
            result.blocks.insert(0, text)
        elif block:
            result.blocks.append(text)
        for rules, kind in ((self.deny, "deny"), (self.ask, "ask")):
            if rules:
                more = f" (or any of {len(rules) - 1} more)" if len(rules) > 1 else ""
                result.maybe.append(Doubt(f"{text}: it might match {kind} rule {rules[0].describe()}{more}",
                                          kind, rules[0]))
                return

    def restrict(self, core: tuple[Word, ...], text: str, result: _Result, note: str = "") -> None:
        unknown_name = not core[0].literal and known_name(core[0]) is None
        dynamic = any(not word.literal for word in core)
        for rules, kind in ((self.deny, "deny"), (self.ask, "ask")):
            for rule in rules:
                found = match(rule, core, normalise=True)
                if found is Match.YES:
                    hit = RuleHit(rule, text, note=note)
                    if kind == "deny" and result.denied is None:
                        result.denied = hit
                    elif kind == "ask" and result.asked is None:
                        result.asked = hit
                elif found is Match.MAYBE:
                    result.maybe.append(Doubt(_maybe(core, text, kind, rule, unknown_name, dynamic), kind, rule))

    def rebinding(self, core: tuple[Word, ...], text: str, result: _Result) -> None:
        """A name `hash -p` bound earlier in the line runs the bound program."""
        path = self.rebound.get(core[0].value) if core[0].literal and "/" not in core[0].value else None
        if path is None:
            return
        bound = f"`hash -p` made `{core[0].value}` run `{path.value}`"
        result.blocks.append(f"{quoted(text)} runs `{path.value}` ({bound})")
        self.restrict((path, *core[1:]), text, result, note=f" ({bound})")

    def binding(self, name: str, path: Word, text: str, result: _Result) -> None:
        """`hash -p PATH NAME` itself: refused when PATH is the program a deny rule names."""
        program = known_name(path)
        if program is None:
            self.unseen(f"{quoted(text)} makes `{name}` run a program only known at run time", result)
            return
        note = f" (it makes `{name}` run `{path.value}`, the program that rule names)"
        for rule in self.deny:
            if rule.words[0] == program and result.denied is None:
                result.denied = RuleHit(rule, text, note=note)
        for rule in self.ask:
            if rule.words[0] == program and result.asked is None:
                result.asked = RuleHit(rule, text, note=note)

    def writes(self, core: tuple[Word, ...], text: str, result: _Result) -> None:
        found = writes_of(core)
        for target in found.targets:
            self.check_write(target, f"{quoted(text)} writes", result)
        result.blocks.extend(f"{quoted(text)} {why}" for why in found.unseen)
        for why in found.protected:
            reason = f"{quoted(text)} {why}; SneakyCode never approves that by itself"
            result.protected.append(reason)
            result.blocks.append(reason)

    def check_write(self, target: Word, what: str, result: _Result) -> None:
        self.written.append(target)
        problem = path_problem(self.workspace, target, what, self.moved, self.cwd)
        if problem:
            result.blocks.append(problem)
        guarded = protected_problem(self.workspace, target, what, self.folders, self.extra_roots)
        if guarded:
            result.protected.append(guarded)
            result.blocks.append(guarded)

    def redirect(self, redirect: Redirect, result: _Result) -> None:
        if redirect.target is None:
            return
        if redirect.operator in READ_OPERATORS:
            what = f"redirection {quoted(redirect.source)} reads"
            problem = path_problem(self.workspace, redirect.target, what, self.moved, self.cwd)
            result.blocks.extend([problem] if problem else [])
            return
        self.check_write(redirect.target, f"redirection {quoted(redirect.source)} writes", result)

    def allowed(self, words: tuple[Word, ...], open_ended: bool, beyond: int = 0) -> RuleHit | None:
        for rule in self.allow:
            if len(rule.words) > beyond and match(rule, words, open_ended=open_ended) is Match.YES:
                return RuleHit(rule, show(words))
        return None


def _maybe(core: tuple[Word, ...], text: str, kind: str, rule: CommandRule, unknown_name: bool, dynamic: bool) -> str:
    if unknown_name:
        return (f"the command name {quoted(core[0].source)} is only known at run time, so {quoted(text)} might "
                f"match {kind} rule {rule.describe()}")
    why = "once its run-time words are known" if dynamic else "(it has an option SneakyCode does not know)"
    return f"{quoted(text)} might match {kind} rule {rule.describe()} {why}"
