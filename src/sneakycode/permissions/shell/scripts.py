"""Script files a shell runs (`sh x.sh`, `bash ./x.sh`, `. x.sh`, `source x.sh`), read so deny rules see them.

A shell that runs a file runs commands the line does not show. When the file lies in the workspace, its
text is read (a regular file of at most SCRIPT_LIMIT bytes, through config/files.py's bounded reader, so a
FIFO or `/dev/zero` cannot hang the check) and judged like text fed to a shell. When it cannot be (a path
only known at run time, outside the workspace, relative after a `cd`, missing, not a regular file, too
large, not text), its commands are code the line does not show: refused while deny rules exist.

The text is read when the line is judged and runs a moment later, so it counts only while nothing the line
does can change it first: the shell must be the first command the line runs (`git checkout x.sh; sh x.sh`
would run another text than the one read), and no write the line shows may reach the file (`sh x.sh >>
x.sh`, or `echo cmd >> "$0"` inside it: bash reads a script as it runs). A program that rewrites it unseen
while it runs (`python3 -c ...` in the same pipeline) is beyond any policy, as is whatever that program
could run itself (docs/permissions.md: allowing an interpreter allows whatever it does).

Variables make a shell run startup files no word of the line names (`BASH_ENV`, `ENV`, `ZDOTDIR`, `HOME`):
a line that sets one of them and starts a shell runs code it does not show.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.permissions.shell.syntax import ParsedLine, quoted
from sneakycode.permissions.shell.words import Word
from sneakycode.permissions.shell.wrapped import command_name
from sneakycode.workspace.paths import locate

# Scripts worth reading are small; the limit bounds the read and the parse (each nested script is one more).
SCRIPT_LIMIT = 256 << 10
STARTUP_VARIABLES = frozenset({"BASH_ENV", "ENV", "ZDOTDIR", "HOME"})
EXPORTERS = frozenset({"export", "declare", "typeset", "readonly", "local", "env"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Script:
    """A script file's commands (`text`) and where it is, or why they cannot be seen (`why`)."""

    text: str | None
    real: Path | None = None
    why: str = ""


def read_script(workspace: Path, base: Path | None, word: Word, moved: bool) -> Script:
    """The script `word` names, relative to `base` (the command's folder; None when it is not known)."""
    if not word.literal:
        return Script(None, why="its path is only known at run time")
    value = word.value
    if value.startswith("~"):
        return Script(None, why="it is in a home folder, outside the workspace")
    if not os.path.isabs(value) and (moved or base is None):
        return Script(None, why="its path is relative to a directory changed in the line")
    place = value if os.path.isabs(value) or base is None else os.path.join(base, value)
    located = locate(workspace, place)
    if located.problem is not None or not located.real_inside:
        return Script(None, why="it is outside the workspace")
    try:
        data = read_regular(located.real, SCRIPT_LIMIT)
    except NotRegularFile as exc:
        return Script(None, why=f"it is {exc.kind}, not a regular file")
    except OverLimit:
        return Script(None, why=f"it is larger than {SCRIPT_LIMIT} bytes")
    except FileNotFoundError:
        return Script(None, why="it does not exist yet")
    except OSError as exc:
        return Script(None, why=f"it cannot be read ({exc.strerror or exc})")
    if b"\x00" in data:
        return Script(None, why="it is not text")
    return Script(data.decode("utf-8", errors="replace"), located.real)


def may_write(target: Word, script: Path, base: Path | None) -> bool:
    """Whether a write to `target` may reach `script` (literal: the same file or name; otherwise any path
    whose known start and end fit it)."""
    if target.literal:
        if target.value.rsplit("/", 1)[-1] == script.name:
            return True
        place = target.value if os.path.isabs(target.value) or base is None else os.path.join(base, target.value)
        return os.path.realpath(place) == str(script)
    if not script.name.endswith(target.suffix):
        return False
    prefix = target.prefix
    if not prefix or prefix.startswith((".", "~")):
        return True
    candidates = [str(script), script.name]
    if base is not None and script.is_relative_to(base):
        candidates.append(script.relative_to(base).as_posix())
    return any(candidate.startswith(prefix) for candidate in candidates)


def sets_startup_variable(parsed: ParsedLine) -> str | None:
    """The startup variable the line assigns or exports (`BASH_ENV=x`, `export ENV`), or None."""
    for command in parsed.commands:
        named = list(command.words[: command.assignments])
        core = command.core
        if core and core[0].literal and command_name(core[0]) in EXPORTERS:
            named.extend(core[1:])
        for word in named:
            text = word.value if word.literal else word.prefix
            name = text.split("=", 1)[0]
            if _NAME.fullmatch(name) and name in STARTUP_VARIABLES:
                return name
    return None


def startup_reason(variable: str, text: str) -> str:
    return f"{quoted(text)} starts a shell after `{variable}` was set, so it runs startup files the line does not show"
