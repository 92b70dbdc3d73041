"""Commands that run other commands: what they run, so rules can look inside.

A wrapper (`sudo`, `timeout`, `xargs`, `bash -c`, `find -exec` ...) is never approved by its own prefix:
deny rules look through it to the inner command, and allow rules approve it only when the inner command is
visible and itself allowed. `unwrap` says what runs inside; `option_blockers` names options of ordinary
programs that make them run another program (`rg --pre`, `git -c core.pager=...`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from sneakycode.permissions.shell.options import (
    CHROOT,
    COMMAND,
    DOAS,
    ENV,
    EXEC,
    IONICE,
    NICE,
    SETSID,
    STDBUF,
    SU,
    SUDO,
    TIME,
    TIMEOUT,
    TRAP,
    WATCH,
    XARGS,
    Options,
    skip_options,
)
from sneakycode.permissions.shell.words import Word, is_assignment

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})
PRIVILEGED = frozenset({"sudo", "doas", "su", "chroot"})


@dataclass(frozen=True)
class Inner:
    """What a wrapper runs: a command (`words`, its first `assignments` words being VAR=value) or a command
    line it parses itself (`script`). `open_ended`: more arguments are appended at run time (xargs)."""

    words: tuple[Word, ...] = ()
    script: Word | None = None
    assignments: int = 0
    open_ended: bool = False


@dataclass(frozen=True)
class Unwrapped:
    """`own` is the wrapper's own command when it must be allowed too (find without its -exec clauses);
    `blockers` say why no allow rule can approve it; `maybe` are further places the inner command might
    start (an unknown option may take a value), for deny rules only."""

    wrapper: str
    inner: tuple[Inner, ...] = ()
    own: tuple[Word, ...] | None = None
    privileged: bool = False
    blockers: tuple[str, ...] = ()
    write_targets: tuple[Word, ...] = ()
    maybe: tuple[tuple[Word, ...], ...] = ()


def command_name(word: Word) -> str:
    """The program bash would look up, path stripped: `/usr/bin/rm` and `rm` are both `rm`."""
    return posixpath.basename(word.value) or word.value


Handler = Callable[[tuple[Word, ...], Word | None], "Unwrapped | None"]


def _simple(name: str, spec: Options, operands: int = 0, writes: tuple[str, ...] = ()) -> Handler:
    """A wrapper `NAME [options] [operands] COMMAND ARGS...` (timeout, nice, stdbuf, nohup, sudo, ...)."""
    privileged = name in PRIVILEGED

    def unwrap(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
        start, unknown, values = skip_options(words, 1, spec)
        start += operands
        if privileged and ("-e" in values or "--edit" in values):
            return Unwrapped(name, privileged=True, blockers=("edits files as another user",))
        if start >= len(words):
            if privileged:
                return Unwrapped(name, privileged=True, blockers=("acts as another user without naming a command",))
            return None
        blockers = tuple(f"has option `{option}`, which is not known, so the command it runs is unclear"
                         for option in unknown)
        maybe = (words[start + 1 :],) if unknown and start + 1 < len(words) else ()
        written = tuple(values[key] for key in writes if key in values)
        return Unwrapped(name, (Inner(words[start:]),), blockers=blockers, maybe=maybe, write_targets=written,
                         privileged=privileged)

    return unwrap


def _command(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    start, _, values = skip_options(words, 1, COMMAND)
    if "-v" in values or "-V" in values or start >= len(words):
        return None
    return Unwrapped("command", (Inner(words[start:]),))


def _env(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    start, unknown, values = skip_options(words, 1, ENV)
    while start < len(words) and words[start].value == "-":
        start, more, found = skip_options(words, start + 1, ENV)
        unknown.extend(more)
        values.update(found)
    split = values.get("-S") or values.get("--split-string")
    if split is not None:
        rest = " ".join(w.value for w in words[start:])
        script = Word(f"{split.value} {rest}".strip(), split.literal, split.prefix)
        return Unwrapped("env", (Inner(script=script),), blockers=("splits a string into a command (-S)",))
    count = 0
    while start + count < len(words) and words[start + count].literal and is_assignment(words[start + count]):
        count += 1
    if start + count >= len(words):
        return None
    blockers = tuple(f"has option `{option}`, which is not known" for option in unknown)
    return Unwrapped("env", (Inner(words[start:], assignments=count),), blockers=blockers)


def _xargs(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    start, unknown, _ = skip_options(words, 1, XARGS)
    inner = words[start:] or (Word.plain("echo"),)
    blockers = tuple(f"has option `{option}`, which is not known, so the command it runs is unclear"
                     for option in unknown)
    maybe = (words[start + 1 :],) if unknown and start + 1 < len(words) else ()
    return Unwrapped("xargs", (Inner(inner, open_ended=True),), blockers=blockers, maybe=maybe)


def _watch(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    start, unknown, values = skip_options(words, 1, WATCH)
    if start >= len(words):
        return None
    blockers = tuple(f"has option `{option}`, which is not known" for option in unknown)
    if "-x" in values or "--exec" in values:
        return Unwrapped("watch", (Inner(words[start:]),), blockers=blockers)
    return Unwrapped("watch", (Inner(script=_joined(words[start:])),), blockers=blockers)


def _joined(words: tuple[Word, ...]) -> Word:
    """The arguments joined with spaces, as `eval` and `watch` hand them to the shell."""
    literal = all(w.literal for w in words)
    prefix: list[str] = []
    for w in words:
        prefix.append(w.value if w.literal else w.prefix)
        if not w.literal:
            break
    return Word(" ".join(w.value for w in words), literal, " ".join(prefix), " ".join(w.source for w in words))


def _eval(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    if len(words) < 2:
        return None
    return Unwrapped("eval", (Inner(script=_joined(words[1:])),))


def _shell(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    name = command_name(words[0])
    has_c = reads_stdin = False
    i = 1
    while i < len(words) and words[i].literal and words[i].value[:1] in "-+" and words[i].value not in ("-", "+"):
        text = words[i].value
        i += 1
        if text == "--":
            break
        if text.startswith("--"):
            if text in ("--rcfile", "--init-file"):
                i += 1
            continue
        has_c = has_c or (text[0] == "-" and "c" in text)
        reads_stdin = reads_stdin or (text[0] == "-" and "s" in text)
        i += sum(1 for letter in text[1:] if letter in "oO")
    operands = words[i:]
    if has_c:
        if not operands:
            return Unwrapped(name, blockers=("has no command string after -c",))
        return Unwrapped(name, (Inner(script=operands[0]),))
    if operands and not reads_stdin:
        return None
    if stdin is not None:
        return Unwrapped(name, (Inner(script=stdin),))
    return Unwrapped(name, blockers=("reads the commands it runs from standard input, which is not visible",))


def _su(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    values: dict[str, Word] = {}
    i = 1
    while i < len(words):
        step, _, found = skip_options(words, i, SU)
        values.update(found)
        i = step + 1 if step == i else step
    command = values.get("-c") or values.get("--command") or values.get("--session-command")
    if command is None:
        return Unwrapped("su", privileged=True, blockers=("opens a shell as another user",))
    return Unwrapped("su", (Inner(script=command),), privileged=True)


def _trap(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    start, _, _ = skip_options(words, 1, TRAP)
    operands = words[start:]
    if len(operands) < 2 or operands[0].value in ("", "-"):
        return None
    return Unwrapped("trap", (Inner(script=operands[0]),))


def _alias(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    scripts = []
    for word in words[1:]:
        name, eq, value = word.value.partition("=")
        if eq and name:
            scripts.append(Inner(script=Word(value, word.literal, value if word.literal else "", word.source)))
    return Unwrapped("alias", tuple(scripts)) if scripts else None


def _source(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    script = words[1].value if len(words) > 1 else "nothing"
    why = f"runs the script file `{script}`, whose commands are not visible"
    return Unwrapped(command_name(words[0]), blockers=(why,))


FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
FIND_WRITES = {"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}


def _find(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
    own: list[Word] = []
    inner: list[Inner] = []
    blockers: list[str] = []
    targets: list[Word] = []
    i = 0
    while i < len(words):
        text = words[i].value
        if text in FIND_EXEC:
            end = i + 1
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            if end >= len(words):
                blockers.append(f"has no terminating `;` or `+` after {text}")
            inner.append(Inner(words[i + 1 : end], open_ended=end < len(words) and words[end].value == "+"))
            i = end + 1
            continue
        if text == "-delete":
            blockers.append("deletes files (-delete)")
        if text in FIND_WRITES and i + 1 < len(words):
            targets.append(words[i + 1])
        own.append(words[i])
        i += 1
    if not inner and not blockers and not targets:
        return None
    return Unwrapped("find", tuple(inner), own=tuple(own), blockers=tuple(blockers), write_targets=tuple(targets))


def _rest(name: str) -> Handler:
    def unwrap(words: tuple[Word, ...], stdin: Word | None) -> Unwrapped | None:
        return Unwrapped(name, (Inner(words[1:]),)) if len(words) > 1 else None

    return unwrap


WRAPPERS: dict[str, Handler] = {
    "env": _env,
    "command": _command,
    "builtin": _rest("builtin"),
    "exec": _simple("exec", EXEC),
    "nohup": _simple("nohup", Options()),
    "time": _simple("time", TIME, writes=("-o", "--output")),
    "nice": _simple("nice", NICE),
    "timeout": _simple("timeout", TIMEOUT, operands=1),
    "stdbuf": _simple("stdbuf", STDBUF),
    "setsid": _simple("setsid", SETSID),
    "ionice": _simple("ionice", IONICE),
    "coproc": _rest("coproc"),
    "busybox": _rest("busybox"),
    "noglob": _rest("noglob"),
    "chroot": _simple("chroot", CHROOT, operands=1),
    "sudo": _simple("sudo", SUDO),
    "doas": _simple("doas", DOAS),
    "su": _su,
    "xargs": _xargs,
    "watch": _watch,
    "eval": _eval,
    "trap": _trap,
    "alias": _alias,
    "source": _source,
    ".": _source,
    "find": _find,
    **dict.fromkeys(SHELLS, _shell),
}


def unwrap(words: tuple[Word, ...], stdin: Word | None = None) -> Unwrapped | None:
    """What the command `words` (assignments removed) runs, or None when it is an ordinary command."""
    if not words or not words[0].literal:
        return None
    handler = WRAPPERS.get(command_name(words[0]))
    return handler(words, stdin) if handler else None


RUNS_PROGRAM = {
    "rg": ("--pre", "--hostname-bin"),
    "tar": ("--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
            "--new-volume-script", "-F"),
    "sort": ("--compress-program",),
}


def option_blockers(words: tuple[Word, ...]) -> list[str]:
    """Options that make an ordinary program run another program chosen on the command line."""
    if not words or not words[0].literal:
        return []
    name = command_name(words[0])
    if name == "git":
        return _git_blockers(words)
    found = []
    for option in RUNS_PROGRAM.get(name, ()):
        for word in words[1:]:
            if word.value == option or word.value.startswith(option + ("=" if option.startswith("--") else "")):
                found.append(f"`{name} {option}` runs another program")
                break
    return found


def _git_blockers(words: tuple[Word, ...]) -> list[str]:
    i = 1
    while i < len(words) and words[i].value.startswith("-"):
        text = words[i].value
        if text.startswith("-c") or text.startswith("--config-env") or text.startswith("--exec-path="):
            return [f"`git {text.split('=')[0]}` can set an option that runs a program (core.pager, alias.*)"]
        i += 2 if text in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
    return []
