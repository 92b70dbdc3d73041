"""Commands that run other commands: what they run, so rules can look inside.

A wrapper (`sudo`, `timeout`, `xargs`, `bash -c`, `find -exec` ...) is never approved by its own prefix:
deny rules look through it to the inner command, and allow rules approve it only when the inner command is
visible and itself allowed. `unwrap` says what runs inside. The shell's own wrappers are here; the
launchers that set a process attribute and run a command (taskset, flock, strace ...) are in `launchers.py`.
A shell reading its commands from a pipe, a file or a stream runs code the policy cannot see, unless the
line shows the text (`printf 'ls' | sh`, a heredoc): that text is parsed like `bash -c`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sneakycode.permissions.shell.launchers import LAUNCHERS
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
from sneakycode.permissions.shell.wrapped import (
    Handler,
    Inner,
    Stdin,
    Unwrapped,
    command_name,
    joined,
    runs_fed,
    simple,
    stream,
    unknown_options,
)

SHELLS = frozenset({
    "sh", "bash", "rbash", "zsh", "rzsh", "dash", "ash", "hush", "ksh", "rksh", "pdksh", "mksh", "lksh", "oksh",
    "loksh", "yash", "posh", "bosh", "osh", "ysh", "csh", "tcsh", "pfsh", "pfksh", "pfbash",
})
# A shell installed under a version or variant name is that shell: `ksh93`, `bash5.2`, `zsh-5.9`, `mksh-static`.
SHELL_VARIANT = re.compile(r"([a-z]+?)(?:[-_.]?\d+(?:\.\d+)*)?(?:[-_.]static)?")
VALUE_LETTERS = frozenset("oORT")
def _command(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    start, _, values = skip_options(words, 1, COMMAND)
    if "-v" in values or "-V" in values or start >= len(words):
        return None
    return Unwrapped("command", (Inner(words[start:]),))


def _env(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    start, unknown, values = skip_options(words, 1, ENV)
    while start < len(words) and words[start].value == "-":
        start, more, found = skip_options(words, start + 1, ENV)
        unknown.extend(more)
        values.update(found)
    split = values.get("-S") or values.get("--split-string")
    if split is not None:
        rest = " ".join(w.value for w in words[start:])
        script = Word(f"{split.value} {rest}".strip(), split.literal and all(w.literal for w in words[start:]),
                      split.prefix)
        return Unwrapped("env", (Inner(script=script),), blockers=("splits a string into a command (-S)",))
    count = 0
    while start + count < len(words) and words[start + count].literal and is_assignment(words[start + count]):
        count += 1
    if start + count >= len(words):
        return None
    blockers = tuple(f"has option `{option}`, which is not known" for option in unknown)
    return Unwrapped("env", (Inner(words[start:], assignments=count),), blockers=blockers)


def _xargs(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    start, unknown, _ = skip_options(words, 1, XARGS)
    inner = words[start:] or (Word.plain("echo"),)
    maybe = (Inner(words[start + 1 :]),) if unknown and start + 1 < len(words) else ()
    return Unwrapped("xargs", (Inner(inner, open_ended=True),), blockers=unknown_options(unknown), maybe=maybe)


def _watch(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    start, unknown, values = skip_options(words, 1, WATCH)
    if start >= len(words):
        return None
    blockers = tuple(f"has option `{option}`, which is not known" for option in unknown)
    if "-x" in values or "--exec" in values:
        return Unwrapped("watch", (Inner(words[start:]),), blockers=blockers)
    return Unwrapped("watch", (Inner(script=joined(words[start:])),), blockers=blockers)


def _eval(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    if len(words) < 2:
        return None
    return Unwrapped("eval", (Inner(script=joined(words[1:])),))


def _shell(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`sh -c 'LINE'`, `sh FILE ARGS...` (the file's text is read, scripts.py), or what is fed to it."""
    name = command_name(words[0])
    has_c = reads_stdin = False
    startup: list[str] = []
    i = 1
    while i < len(words) and words[i].literal and words[i].value[:1] in "-+" and words[i].value not in ("-", "+"):
        text = words[i].value
        i += 1
        if text == "--":
            break
        if text.startswith("--"):
            if text in ("--rcfile", "--init-file"):
                startup.append(words[i].value if i < len(words) else "")
                i += 1
            continue
        has_c = has_c or (text[0] == "-" and "c" in text)
        reads_stdin = reads_stdin or (text[0] == "-" and "s" in text)
        # Letters whose value is the next word: set -o/shopt -O options, ksh's -R file, mksh's -T tty.
        i += sum(1 for letter in text[1:] if letter in VALUE_LETTERS)
    operands = words[i:]
    unseen = tuple(f"runs the startup file `{path}`, whose commands cannot be seen" for path in startup)
    if has_c:
        if not operands:
            return Unwrapped(name, blockers=("has no command string after -c",), unseen=unseen, shell=True)
        return Unwrapped(name, (Inner(script=operands[0]),), unseen=unseen, shell=True)
    fed = stdin
    if operands and not reads_stdin:
        streamed = stream(operands[0], stdin)
        if streamed is None:
            return Unwrapped(name, files=(operands[0],), unseen=unseen, shell=True)
        fed = streamed
    found = runs_fed(name, fed)
    return replace(found, unseen=unseen + found.unseen)


def _trap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    start, _, _ = skip_options(words, 1, TRAP)
    operands = words[start:]
    if len(operands) < 2 or operands[0].value in ("", "-"):
        return None
    return Unwrapped("trap", (Inner(script=operands[0]),))


def _alias(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    scripts = []
    for word in words[1:]:
        name, eq, value = word.value.partition("=")
        if eq and name:
            scripts.append(Inner(script=Word(value, word.literal, value if word.literal else "", word.source)))
    return Unwrapped("alias", tuple(scripts)) if scripts else None


def _source(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`. FILE` / `source FILE`: the file's commands run in this shell; deny rules read them (scripts.py),
    allow rules never approve it."""
    name = command_name(words[0])
    if len(words) > 1:
        fed = stream(words[1], stdin)
        if fed is not None:
            return runs_fed(name, fed)
    if len(words) < 2:
        return Unwrapped(name, blockers=("runs the script file `nothing`, whose commands are not visible",))
    blocker = f"runs the script file `{words[1].value}`, which allow rules do not look inside"
    return Unwrapped(name, blockers=(blocker,), files=(words[1],))


def _hash(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
    """`hash -p PATH NAME` makes NAME run PATH for the rest of the shell (the policy applies it to the line
    and refuses it when PATH is the program of a deny rule)."""
    start, _, values = skip_options(words, 1, Options("rdlt", "p"))
    path = values.get("-p")
    if path is None:
        return None
    binds = tuple((word.value, path) for word in words[start:])
    names = " ".join(f"`{name}`" for name, _ in binds) or "a name"
    return Unwrapped("hash", binds=binds, blockers=(f"makes {names} run `{path.source or path.value}`",))


FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
FIND_WRITES = {"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}


def _find(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
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
    def unwrap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
        return Unwrapped(name, (Inner(words[1:]),)) if len(words) > 1 else None

    return unwrap


WRAPPERS: dict[str, Handler] = {
    "env": _env,
    "command": _command,
    "builtin": _rest("builtin"),
    "exec": simple("exec", EXEC),
    "nohup": simple("nohup", Options()),
    "time": simple("time", TIME, writes=("-o", "--output")),
    "nice": simple("nice", NICE),
    "timeout": simple("timeout", TIMEOUT, operands=1),
    "stdbuf": simple("stdbuf", STDBUF),
    "setsid": simple("setsid", SETSID),
    "ionice": simple("ionice", IONICE, no_command=("-p", "--pid", "-P", "--pgid", "-u", "--uid")),
    "coproc": _rest("coproc"),
    "busybox": _rest("busybox"),
    "toybox": _rest("toybox"),
    "noglob": _rest("noglob"),
    "chroot": simple("chroot", CHROOT, operands=1),
    "sudo": simple("sudo", SUDO),
    "doas": simple("doas", DOAS),
    "xargs": _xargs,
    "watch": _watch,
    "eval": _eval,
    "trap": _trap,
    "alias": _alias,
    "source": _source,
    ".": _source,
    "hash": _hash,
    "find": _find,
    **dict.fromkeys(SHELLS, _shell),
    **LAUNCHERS,
}


def is_shell(name: str) -> bool:
    """Whether the program `name` is a shell (`sh`, `ksh93`, `bash5.2`, `zsh-5.9`, ...)."""
    found = SHELL_VARIANT.fullmatch(name)
    return found is not None and found.group(1) in SHELLS


def unwrap(words: tuple[Word, ...], stdin: Stdin | None = None) -> Unwrapped | None:
    """What the command `words` (assignments removed) runs, or None when it is an ordinary command."""
    if not words or not words[0].literal:
        return None
    name = command_name(words[0])
    handler = WRAPPERS.get(name) or (_shell if is_shell(name) else None)
    return handler(words, stdin or Stdin()) if handler else None
