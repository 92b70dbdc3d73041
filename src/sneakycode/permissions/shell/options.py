"""The options of the wrappers the policy looks inside (env, timeout, sudo, xargs ...): which take a value,
so that the command after them is found exactly where the wrapper itself would find it. `launchers.py`
keeps the option tables of the launchers (taskset, flock, strace ...)."""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.permissions.shell.words import Word


@dataclass(frozen=True)
class Options:
    """Short letters and long names that take no value (`flags`), a value (`args`), or a value only when
    attached (`optional`: `-n1024`, `--mount=FILE`); `numeric`: `-10` is an option (nice)."""

    short_flags: str = ""
    short_args: str = ""
    long_flags: frozenset[str] = frozenset()
    long_args: frozenset[str] = frozenset()
    numeric: bool = False
    short_optional: str = ""
    long_optional: frozenset[str] = frozenset()


Found = list[tuple[str, Word]]


def option_at(words: tuple[Word, ...], i: int, spec: Options) -> tuple[int, Found, list[str]] | None:
    """The option word at `i`: the index after it (and its value), the (name, value) pairs it sets (flags get
    an empty value) and the names `spec` does not know; None when `words[i]` is not an option. A word like
    `--output=$f` is an option whose value is only known at run time."""
    word = words[i]
    text = word.value if word.literal else word.prefix
    if not text.startswith("-") or text == "-" or (not word.literal and len(text) < 2):
        return None
    if text.startswith("--"):
        name, eq, _ = text.partition("=")
        if not eq and not word.literal:
            return i + 1, [], [word.source]
        if name in spec.long_args and not eq:
            return (i + 2, [(name, words[i + 1])], []) if i + 1 < len(words) else (i + 1, [], [])
        known = name in spec.long_args or name in spec.long_flags or name in spec.long_optional
        return i + 1, [(name, _rest_of(word, len(name) + 1) if eq else Word.plain(""))], [] if known else [name]
    if spec.numeric and text[1:].isdigit() and word.literal:
        return i + 1, [], []
    found: Found = []
    unknown: list[str] = []
    for j, letter in enumerate(text[1:], start=1):
        if letter in spec.short_optional:
            return i + 1, [*found, (f"-{letter}", _rest_of(word, j + 1))], unknown
        if letter in spec.short_args:
            if j + 1 < len(word.value):
                return i + 1, [*found, (f"-{letter}", _rest_of(word, j + 1))], unknown
            if i + 1 < len(words):
                return i + 2, [*found, (f"-{letter}", words[i + 1])], unknown
            return i + 1, found, unknown
        if letter not in spec.short_flags:
            unknown.append(f"-{letter}")
        found.append((f"-{letter}", Word.plain("")))
    if not word.literal:
        unknown.append(word.source)
    return i + 1, found, unknown


def skip_options(words: tuple[Word, ...], start: int, spec: Options) -> tuple[int, list[str], dict[str, Word]]:
    """Index of the first operand after the options, the options it did not know, and option values."""
    unknown: list[str] = []
    values: dict[str, Word] = {}
    i = start
    while i < len(words):
        if words[i].literal and words[i].value == "--":
            return i + 1, unknown, values
        step = option_at(words, i, spec)
        if step is None:
            break
        i, found, more = step
        for name, value in found:
            if value.value or not value.literal or name not in values:
                values[name] = value
        unknown.extend(more)
    return i, unknown, values


def _rest_of(word: Word, cut: int) -> Word:
    """The part of an option word after its first `cut` characters (its attached value)."""
    if word.literal:
        return Word.plain(word.value[cut:])
    return Word(word.value[cut:], False, word.prefix[cut:], word.source[cut:], None, word.suffix, word.splits)


def scan_options(words: tuple[Word, ...], start: int, spec: Options) -> tuple[list[Word], list[str], Found]:
    """For programs that take options anywhere (GNU `sort`, `sed`, `cp`, `curl` ...): the operands, the
    options it did not know, and every (name, value) pair in order (`curl -o a -o b` writes both)."""
    operands: list[Word] = []
    unknown: list[str] = []
    found: Found = []
    i = start
    while i < len(words):
        if words[i].literal and words[i].value == "--":
            operands.extend(words[i + 1 :])
            break
        step = option_at(words, i, spec)
        if step is None:
            operands.append(words[i])
            i += 1
            continue
        i, pairs, more = step
        found.extend(pairs)
        unknown.extend(more)
    return operands, unknown, found


def values_of(found: Found, *names: str) -> list[Word]:
    return [value for name, value in found if name in names]


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
