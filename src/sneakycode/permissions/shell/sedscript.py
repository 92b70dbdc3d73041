"""What a sed command does besides printing: the files it writes (`-i`, the `w` command, the `s///w` flag) and
the command lines it runs (the `e` command, the `s///e` flag), GNU sed's syntax. A script this scanner does
not understand is reported as such, so the policy never approves what it could not check."""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.permissions.shell.options import Options, scan_options, values_of
from sneakycode.permissions.shell.words import Word

SED = Options(
    "nrEsuzb",
    "efl",
    frozenset({"--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered", "--null-data", "--posix",
               "--debug", "--sandbox", "--follow-symlinks", "--binary", "--help", "--version", "--zero-terminated"}),
    frozenset({"--expression", "--file", "--line-length"}),
    short_optional="i",
    long_optional=frozenset({"--in-place"}),
)
NO_ARGUMENT = frozenset("=dDgGhHnNpPxzF{}")
NUMBERED = frozenset("lLqQ")
LABELLED = frozenset("btTv:")
TEXT = frozenset("aic")
FILES = frozenset("rRwW")
S_FLAGS = frozenset("gpiImMe0123456789")


@dataclass(frozen=True)
class SedEffects:
    """`targets`: files written; `runs`: command lines run (None stands for text taken from its input);
    `unchecked`: why a script could not be checked (a script file, a script this scanner does not follow)."""

    targets: tuple[Word, ...] = ()
    runs: tuple[str | None, ...] = ()
    unchecked: tuple[str, ...] = ()


def sed_effects(words: tuple[Word, ...]) -> SedEffects:
    operands, _, found = scan_options(words, 1, SED)
    scripts = values_of(found, "-e", "--expression")
    files = values_of(found, "-f", "--file")
    if not scripts and not files and operands:
        scripts, operands = [operands[0]], operands[1:]
    in_place = bool(values_of(found, "-i", "--in-place"))
    targets: list[Word] = list(operands) if in_place else []
    runs: list[str | None] = []
    unchecked = [f"reads its script from `{file.value}`, which may write files or run commands" for file in files]
    if values_of(found, "--sandbox"):
        return SedEffects(tuple(targets), (), tuple(unchecked))
    for script in scripts:
        if not script.literal:
            unchecked.append(f"has a script only known at run time ({script.source})")
            continue
        written, ran, understood = scan_sed(script.value)
        targets.extend(Word.plain(name) for name in written)
        runs.extend(ran)
        if not understood:
            unchecked.append(f"has a script that could not be checked for `w` and `e` commands ({script.source})")
    return SedEffects(tuple(targets), tuple(runs), tuple(unchecked))


def scan_sed(script: str) -> tuple[list[str], list[str | None], bool]:
    """(files written, command lines run, understood) of one GNU sed script."""
    written: list[str] = []
    ran: list[str | None] = []
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;":
            i += 1
            continue
        if ch == "#":
            i = _line_end(script, i)
            continue
        i = _addresses(script, i)
        if i < 0 or i >= n:
            return written, ran, False
        command = script[i]
        i += 1
        if command in NO_ARGUMENT:
            continue
        if command in NUMBERED:
            while i < n and (script[i].isdigit() or script[i] in " \t"):
                i += 1
        elif command in LABELLED:
            while i < n and script[i] not in ";\n":
                i += 1
        elif command in TEXT:
            i = _text_end(script, i)
        elif command in FILES or command == "e":
            end = _line_end(script, i)
            argument = script[i:end].strip()
            if command in "wW":
                written.append(argument)
            elif command == "e":
                ran.append(argument or None)
            i = end
        elif command in "sy":
            i = _substitution(script, i, command, written, ran)
            if i < 0:
                return written, ran, False
        else:
            return written, ran, False
    return written, ran, True


def _line_end(script: str, i: int) -> int:
    end = script.find("\n", i)
    return len(script) if end < 0 else end


def _text_end(script: str, i: int) -> int:
    """The end of the text of `a`, `i`, `c`: the line, continued by a trailing backslash."""
    while i < len(script):
        if script[i] == "\\" and i + 1 < len(script):
            i += 2
            continue
        if script[i] == "\n":
            return i
        i += 1
    return i


def _delimited(script: str, i: int, delimiter: str) -> int:
    """Index after the closing `delimiter` of a part starting at `i` (backslash escapes it); -1 if none."""
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delimiter:
            return i + 1
        if script[i] == "\n" and delimiter != "\n":
            return -1
        i += 1
    return -1


def _addresses(script: str, i: int) -> int:
    """Index after the addresses (`1`, `$`, `/re/I`, `\\%re%`, `1~2`, `addr,+3`) and any `!`; -1 on error."""
    for second in (False, True):
        if i >= len(script):
            return i
        ch = script[i]
        if ch.isdigit() or (second and ch in "+~"):
            i += 1
            while i < len(script) and (script[i].isdigit() or script[i] == "~"):
                i += 1
        elif ch == "$":
            i += 1
        elif ch in "/\\":
            delimiter = "/" if ch == "/" else (script[i + 1] if i + 1 < len(script) else "")
            i = _delimited(script, i + (1 if ch == "/" else 2), delimiter) if delimiter else -1
            if i < 0:
                return -1
            while i < len(script) and script[i] in "IM":
                i += 1
        elif second:
            return -1
        else:
            break
        if second or i >= len(script) or script[i] != ",":
            break
        i += 1
    while i < len(script) and script[i] in " \t!":
        i += 1
    return i


def _substitution(script: str, i: int, command: str, written: list[str], ran: list[str | None]) -> int:
    """Index after `s/re/replacement/flags` or `y/src/dst/`; records its `w` file and `e` flag; -1 on error."""
    if i >= len(script) or script[i] in "\n\\":
        return -1
    delimiter = script[i]
    i = _delimited(script, i + 1, delimiter)
    if i < 0:
        return -1
    i = _delimited(script, i, delimiter)
    if i < 0 or command == "y":
        return i
    while i < len(script) and script[i] in S_FLAGS:
        if script[i] == "e":
            ran.append(None)
        i += 1
    if i < len(script) and script[i] == "w":
        end = _line_end(script, i)
        written.append(script[i + 1 : end].strip())
        return end
    return i
