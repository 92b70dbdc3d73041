"""What a command the model wrote runs with: bash, the user's environment without credentials, and no
pager, editor or prompt that would wait for a person who is not there.

Credentials are recognised by name, in any case. Those that look like secrets are also taken out of
SneakyCode's own environment at start-up (`hold_credentials`): `os.environ` is inherited by every program
SneakyCode starts and mirrored in `/proc/PID/environ`, so the values live only here, where the model client
and `command_environment` read them through `full_environment`.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

# Names that hold secrets (matched upper-cased): taken out of the process environment at start-up and never
# passed to a command unless `tools.shell.env_keep` names them.
CREDENTIAL_VARIABLES = (
    "API_KEY", "*_API_KEY", "APIKEY", "*_APIKEY",
    "TOKEN", "*_TOKEN",
    "*SECRET*",
    "*PASSWORD", "*PASSWD", "MYSQL_PWD",
    "PRIVATE_KEY", "*_PRIVATE_KEY", "*_ACCESS_KEY",
    "CREDENTIALS", "*_CREDENTIALS",
)  # fmt: skip
# Where a model key may live: every provider's variables and SneakyCode's own. Never passed to a command,
# whatever `env_keep` says, because the model that writes the command could then read its own key.
MODEL_KEY_VARIABLES = ("OPENAI_*", "GROQ_*", "OPENROUTER_*", "ANTHROPIC_*", "SNEAKYCODE_API_KEY")
SECRET_VARIABLES = CREDENTIAL_VARIABLES + MODEL_KEY_VARIABLES
# Keep pagers, editors, prompts and colour codes out of a non-interactive run.
NON_INTERACTIVE = {
    "SNEAKYCODE": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "cat",
    "TERM": "dumb",
    "NO_COLOR": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GCM_INTERACTIVE": "never",
    "GIT_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "PYTHONUNBUFFERED": "1",
}

# Values taken out of os.environ at start-up, by name.
_held: dict[str, str] = {}


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Whether `name` matches one of the glob `patterns`, ignoring case."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def hold_variables(names: Iterable[str] = (), *, patterns: Iterable[str] = CREDENTIAL_VARIABLES) -> dict[str, str]:
    """Move the variables named in `names` or matching `patterns` from os.environ (and so from the C
    environment every child inherits) into memory; returns what was moved by this call."""
    wanted = set(names)
    chosen = [name for name in os.environ if name in wanted or matches(name, patterns)]
    moved = {name: os.environ.pop(name) for name in chosen}
    _held.update(moved)
    return moved


def full_environment() -> dict[str, str]:
    """The environment SneakyCode started with, held credentials included (for the model client)."""
    return {**os.environ, **_held}


def command_environment(
    base: Mapping[str, str] | None = None,
    *,
    also_remove: Iterable[str] = (),
    keep: Iterable[str] = (),
    strip: Iterable[str] = (),
) -> dict[str, str]:
    """The user's environment (`base`, by default the full one) without credentials, plus NON_INTERACTIVE.

    `strip` patterns remove more variables; `keep` patterns pass variables SECRET_VARIABLES would remove,
    except those in MODEL_KEY_VARIABLES and `also_remove` (the variable the configured key is read from).
    """
    source = full_environment() if base is None else base
    never = [*MODEL_KEY_VARIABLES, *also_remove]
    keep, strip = list(keep), list(strip)

    def passed(name: str) -> bool:
        if matches(name, never) or matches(name, strip):
            return False
        return not matches(name, SECRET_VARIABLES) or matches(name, keep)

    env = {name: value for name, value in source.items() if passed(name)}
    env.update(NON_INTERACTIVE)
    return env


def find_program(name: str, *, not_under: Path) -> str | None:
    """The first `name` on PATH that is not under `not_under`: SneakyCode runs it outside the sandbox, so it
    must not be one a sandboxed command could have written (a `.venv/bin` or `node_modules/.bin` on PATH)."""
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(entry, name)
        if not entry or not candidate.is_absolute() or not os.access(candidate, os.X_OK) or candidate.is_dir():
            continue
        real = Path(os.path.realpath(candidate))
        if real != not_under and not_under not in real.parents:
            return str(candidate)
    return None


def shell_argv(command: str) -> list[str]:
    """`bash -c command`, or `sh -c` where bash is missing."""
    shell = "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"
    return [shell, "-c", command]
