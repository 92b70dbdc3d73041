"""What a command the model wrote runs with: bash, the user's environment without credentials, and no
pager, editor or prompt that would wait for a person who is not there."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

# Variables that may hold credentials (matched on the upper-cased name): the model API keys SneakyCode
# reads must never reach a command the model wrote.
SECRET_VARIABLES = (
    "*_API_KEY",
    "*_TOKEN",
    "*_SECRET*",
    "*_PASSWORD",
    "OPENAI_*",
    "GROQ_*",
    "OPENROUTER_*",
    "ANTHROPIC_*",
    "SNEAKYCODE_API_KEY",
)
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


def command_environment(base: Mapping[str, str] | None = None, *, also_remove: Iterable[str] = ()) -> dict[str, str]:
    """The user's environment without credentials (and without `also_remove`), plus NON_INTERACTIVE."""
    source = os.environ if base is None else base
    extra = {name.upper() for name in also_remove}
    env = {
        name: value
        for name, value in source.items()
        if name.upper() not in extra and not any(fnmatch.fnmatchcase(name.upper(), p) for p in SECRET_VARIABLES)
    }
    env.update(NON_INTERACTIVE)
    return env


def shell_argv(command: str) -> list[str]:
    """`bash -c command`, or `sh -c` where bash is missing."""
    shell = "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"
    return [shell, "-c", command]
