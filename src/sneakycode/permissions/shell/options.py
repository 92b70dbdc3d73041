"""The options of the wrappers the policy looks inside (env, timeout, sudo, xargs ...): which take a value,
so that the command after them is found exactly where the wrapper itself would find it."""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.permissions.shell.words import Word


@dataclass(frozen=True)
class Options:
    short_flags: str = ""
    short_args: str = ""
    long_flags: frozenset[str] = frozenset()
    long_args: frozenset[str] = frozenset()
    numeric: bool = False


def skip_options(words: tuple[Word, ...], start: int, spec: Options) -> tuple[int, list[str], dict[str, Word]]:
    """Index of the first operand after the options, the options it did not know, and option values."""
    unknown: list[str] = []
    values: dict[str, Word] = {}
    i = start
    while i < len(words):
        word = words[i]
        text = word.value
        if not word.literal or not text.startswith("-") or text == "-":
            break
        if text == "--":
            return i + 1, unknown, values
        if text.startswith("--"):
            name, eq, rest = text.partition("=")
            if name in spec.long_args:
                if eq:
                    values[name] = Word.plain(rest)
                elif i + 1 < len(words):
                    values[name] = words[i + 1]
                i += 1 if eq else 2
                continue
            if name not in spec.long_flags:
                unknown.append(name)
            values.setdefault(name, Word.plain(rest))
            i += 1
            continue
        if spec.numeric and text[1:].isdigit():
            i += 1
            continue
        step = 1
        for j, letter in enumerate(text[1:], start=1):
            if letter in spec.short_args:
                if j + 1 < len(text):
                    values[f"-{letter}"] = Word.plain(text[j + 1 :])
                else:
                    if i + 1 < len(words):
                        values[f"-{letter}"] = words[i + 1]
                    step = 2
                break
            if letter not in spec.short_flags:
                unknown.append(f"-{letter}")
            values.setdefault(f"-{letter}", Word.plain(""))
        i += step
    return i, unknown, values


def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


ENV = Options(
    "i0v", "uCS", _flags("--ignore-environment", "--null", "--debug"), _flags("--unset", "--chdir", "--split-string")
)
COMMAND = Options("pvV")
EXEC = Options("cl", "a")
TIME = Options(
    "pavq", "of", _flags("--append", "--verbose", "--portability", "--quiet"), _flags("--output", "--format")
)
NICE = Options("", "n", frozenset(), _flags("--adjustment"), numeric=True)
TIMEOUT = Options(
    "v", "sk", _flags("--preserve-status", "--foreground", "--verbose"), _flags("--signal", "--kill-after")
)
STDBUF = Options("", "ioe", frozenset(), _flags("--input", "--output", "--error"))
SETSID = Options("cfw", "", _flags("--ctty", "--fork", "--wait"))
IONICE = Options("t", "cnp", _flags("--ignore"), _flags("--class", "--classdata", "--pid"))
WATCH = Options(
    "bdegtcxprw",
    "nq",
    _flags("--beep", "--differences", "--chgexit", "--errexit", "--no-title", "--color", "--exec", "--precise",
           "--no-wrap", "--no-color", "--no-linewrap"),
    _flags("--interval", "--equexit"),
)
XARGS = Options(
    "0rtpxoile",
    "ILnPsdEa",
    _flags("--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty", "--show-limits",
           "--replace", "--eof", "--max-lines"),
    _flags("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"),
)
SUDO = Options(
    "AbEHKknPSsielvVBNh",
    "ugCDprtTUR",
    _flags("--askpass", "--background", "--preserve-env", "--set-home", "--remove-timestamp", "--reset-timestamp",
           "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--login", "--edit", "--list",
           "--validate", "--version", "--bell", "--no-update", "--help"),
    _flags("--user", "--group", "--close-from", "--chdir", "--prompt", "--role", "--type", "--command-timeout",
           "--other-user", "--chroot", "--host"),
)
DOAS = Options("nsL", "uC")
SU = Options("lmpPf", "csgGw", _flags("--login", "--preserve-environment", "--pty", "--fast"),
             _flags("--command", "--shell", "--group", "--supp-group", "--whitelist-environment", "--session-command"))
TRAP = Options("lpP")
CHROOT = Options("", "", _flags("--skip-chdir"), _flags("--userspec", "--groups"))
