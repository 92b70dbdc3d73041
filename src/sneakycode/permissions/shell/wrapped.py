"""What a wrapper runs: the answer every wrapper handler gives (`Unwrapped`), what a command reads on its
standard input (`Stdin`), and the `simple` handler most wrappers share (`NAME [options] COMMAND ARGS...`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from sneakycode.permissions.shell.options import Options, skip_options
from sneakycode.permissions.shell.words import Word

STDIN_PATHS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
STREAM_PATH = re.compile(r"/dev/(fd/\d+|tcp/.*|udp/.*)|/proc/[^/]+/fd/\d+")
PRIVILEGED = frozenset({"sudo", "doas", "su", "chroot", "runuser", "setpriv", "sg", "pkexec", "systemd-run", "nsenter"})


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
    `blockers` say why no allow rule can approve it; `maybe` are further things it might run (an unknown
    option may take a value), for deny and ask rules only; `unseen` say why it runs code that cannot be
    seen (a shell reading a pipe): never approved, and refused while deny rules exist; `binds` are names
    made to run another program (`hash -p PATH NAME`); `files` are script files it runs, whose text deny
    and ask rules read (scripts.py; allow rules match the command as written); `shell` says it is a shell,
    which startup variables (`BASH_ENV`) make run files no word names."""

    wrapper: str
    inner: tuple[Inner, ...] = ()
    own: tuple[Word, ...] | None = None
    privileged: bool = False
    blockers: tuple[str, ...] = ()
    write_targets: tuple[Word, ...] = ()
    maybe: tuple[Inner, ...] = ()
    unseen: tuple[str, ...] = ()
    binds: tuple[tuple[str, Word], ...] = ()
    files: tuple[Word, ...] = ()
    shell: bool = False


@dataclass(frozen=True)
class Stdin:
    """What a command reads on standard input: `text` when the line shows it (a heredoc, a herestring, a
    literal `echo` or `printf` piped in); otherwise `origin` says where it comes from."""

    text: Word | None = None
    origin: str = "standard input"


Handler = Callable[[tuple[Word, ...], Stdin], "Unwrapped | None"]


def posix_basename(text: str) -> str:
    return text.rsplit("/", 1)[-1] or text


def command_name(word: Word) -> str:
    """The program bash would look up, path stripped: `/usr/bin/rm` and `rm` are both `rm`."""
    return posixpath.basename(word.value) or word.value


def known_name(word: Word) -> str | None:
    """The program name of a command word, when it is known before the line runs: always for a literal
    word, and for `"$VENV"/bin/pytest` (expansions only before the last `/`, and none that splits)."""
    if word.literal:
        return command_name(word)
    if word.splits or word.glob is not None or "/" not in word.suffix:
        return None
    return word.suffix.rsplit("/", 1)[-1] or None


def unknown_options(unknown: list[str]) -> tuple[str, ...]:
    return tuple(f"has option `{option}`, which is not known, so the command it runs is unclear" for option in unknown)


def simple(
    name: str, spec: Options, operands: int = 0, writes: tuple[str, ...] = (), no_command: tuple[str, ...] = ()
) -> Handler:
    """A wrapper `NAME [options] [operands] COMMAND ARGS...` (timeout, nice, stdbuf, nohup, sudo, taskset ...).
    `writes`: options whose value is a file it writes; `no_command`: options that make it act on a running
    process instead of starting a command (`taskset -p`)."""
    privileged = name in PRIVILEGED

    def unwrap(words: tuple[Word, ...], stdin: Stdin) -> Unwrapped | None:
        start, unknown, values = skip_options(words, 1, spec)
        if any(option in values for option in no_command):
            return None
        start += operands
        if privileged and ("-e" in values or "--edit" in values) and name in ("sudo", "doas"):
            return Unwrapped(name, privileged=True, blockers=("edits files as another user",))
        if start >= len(words):
            if privileged:
                return Unwrapped(name, privileged=True, blockers=("acts as another user without naming a command",))
            return None
        maybe = (Inner(words[start + 1 :]),) if unknown and start + 1 < len(words) else ()
        written = tuple(values[key] for key in writes if key in values)
        return Unwrapped(name, (Inner(words[start:]),), blockers=unknown_options(unknown), maybe=maybe,
                         write_targets=written, privileged=privileged)

    return unwrap


def joined(words: tuple[Word, ...]) -> Word:
    """The arguments joined with spaces, as `eval` and `watch` hand them to the shell."""
    literal = all(w.literal for w in words)
    prefix: list[str] = []
    for w in words:
        prefix.append(w.value if w.literal else w.prefix)
        if not w.literal:
            break
    return Word(" ".join(w.value for w in words), literal, " ".join(prefix), " ".join(w.source for w in words))


def stream(word: Word, stdin: Stdin) -> Stdin | None:
    """What a script operand reads when it is a stream rather than a file: standard input (`-`,
    `/dev/stdin`), another descriptor or socket, or a process substitution. None for a file."""
    if word.literal:
        if word.value in STDIN_PATHS:
            return stdin
        return Stdin(None, f"`{word.value}`") if STREAM_PATH.fullmatch(word.value) else None
    if word.value.startswith(("<(", ">(")):
        return Stdin(None, f"`{word.source}`")
    return None


def runs_fed(name: str, feed: Stdin) -> Unwrapped:
    """A shell running the commands fed to it: parsed when the line shows them, unseen otherwise."""
    if feed.text is not None:
        return Unwrapped(name, (Inner(script=feed.text),), shell=True)
    return Unwrapped(name, unseen=(f"runs the commands it reads from {feed.origin}, which cannot be seen",), shell=True)
