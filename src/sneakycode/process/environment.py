"""What a command the model wrote runs with: bash, the user's environment without credentials, and no
pager, editor or prompt that would wait for a person who is not there.

Credentials are recognised by name, in any case, by glob (`*_API_KEY`) and by the words the name is made of
(`TOKEN`, `db_password`, `githubToken`, `ACCESS_KEY`), so a bare `TOKEN` or `SECRET` is one as much as
`GITHUB_TOKEN`. Those that look like secrets are also taken out of
SneakyCode's own environment at start-up (`hold_credentials`): `os.environ` is inherited by every program
SneakyCode starts and mirrored in `/proc/PID/environ`, so the values live only here, where the model client
and `command_environment` read them through `full_environment`.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

# Names that hold secrets (matched upper-cased): taken out of the process environment at start-up and never
# passed to a command unless `tools.shell.env_keep` names them.
CREDENTIAL_VARIABLES = (
    "API_KEY", "*_API_KEY", "APIKEY", "*_APIKEY",
    "TOKEN", "*_TOKEN",
    "*SECRET*",
    "*PASSWORD", "*PASSWD", "MYSQL_PWD",
    "PRIVATE_KEY", "*_PRIVATE_KEY", "ACCESS_KEY", "*_ACCESS_KEY",
    "CREDENTIALS", "*_CREDENTIALS",
    # An OpenTelemetry collector's headers carry its key (telemetry reads them through full_environment).
    "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_*_HEADERS",
)  # fmt: skip
# Where a model key may live: every provider's variables and SneakyCode's own. Never passed to a command,
# whatever `env_keep` says, because the model that writes the command could then read its own key.
MODEL_KEY_VARIABLES = ("OPENAI_*", "GROQ_*", "OPENROUTER_*", "ANTHROPIC_*", "SNEAKYCODE_API_KEY")
# The globs miss names whose secret word is not at the end, or is a word of a camelCase name: `TOKEN_GITHUB`,
# `ACCESS_KEY`, `SMTP_PASS`, `GH_PAT`, `awsAccessKey`. So a name is also split into words (at `_`, `-`, `.`
# and camelCase humps, then upper-cased) and is a credential when a word is one of CREDENTIAL_WORDS, ends
# in one of CREDENTIAL_ENDINGS (`NGROK_AUTHTOKEN`), two adjacent words are one of CREDENTIAL_PAIRS, or its
# last word (after another) is one of CREDENTIAL_LAST_WORDS. Words, not substrings: `TOKENIZERS_PARALLELISM`,
# `GIT_ASKPASS`, `PWD`, `OLDPWD` and `SSH_AUTH_SOCK` are passed as they are; so is a name of a place.
CREDENTIAL_WORDS = frozenset({
    "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE", "PASS", "PAT",
    "APIKEY", "CREDENTIAL", "CREDENTIALS",
})
CREDENTIAL_ENDINGS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "ACCESSKEY", "PRIVATEKEY", "SECRETKEY")
CREDENTIAL_PAIRS = frozenset({
    ("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY"), ("SIGNING", "KEY"),
    ("ENCRYPTION", "KEY"), ("MASTER", "KEY"), ("SESSION", "KEY"), ("AUTH", "KEY"),
})
CREDENTIAL_LAST_WORDS = frozenset({"AUTH", "PWD"})  # `NPM_CONFIG__AUTH`, `MYSQL_PWD`; not `SSH_AUTH_SOCK`, `PWD`
# A name whose last word says it holds a place is no secret by its words: `PASSWORD_STORE_DIR`, `TOKEN_FILE`.
LOCATION_WORDS = frozenset({"DIR", "DIRECTORY", "PATH", "FILE", "HOME", "SOCK", "SOCKET", "URL"})
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATOR = re.compile(r"[^A-Za-z0-9]+")
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


def name_words(name: str) -> list[str]:
    """The words of a variable name, upper-cased: `githubToken` and `GITHUB_TOKEN` are GITHUB, TOKEN."""
    return [word.upper() for part in _SEPARATOR.split(name) for word in _HUMP.split(part) if word]


def is_credential(name: str) -> bool:
    """Whether the variable `name` holds a secret, by CREDENTIAL_VARIABLES or by the words it is made of."""
    if matches(name, CREDENTIAL_VARIABLES):
        return True
    words = name_words(name)
    # SneakyCode's own settings (`SNEAKYCODE_API_KEY_ENV` names a variable) are read from the environment
    # after start-up, so they stay; the one secret among them, SNEAKYCODE_API_KEY, is matched above.
    if not words or words[-1] in LOCATION_WORDS or words[0] == "SNEAKYCODE":
        return False
    if any(word in CREDENTIAL_WORDS or word.endswith(CREDENTIAL_ENDINGS) for word in words):
        return True
    if any(pair in CREDENTIAL_PAIRS for pair in itertools.pairwise(words)):
        return True
    return len(words) > 1 and words[-1] in CREDENTIAL_LAST_WORDS


def hold_variables(names: Iterable[str] = (), *, patterns: Iterable[str] | None = None) -> dict[str, str]:
    """Move the variables named in `names`, and those matching `patterns` (by default: every credential,
    `is_credential`), from os.environ (and so from the C environment every child inherits) into memory;
    returns what was moved by this call."""
    wanted = set(names)
    chosen = [
        name for name in os.environ
        if name in wanted or (is_credential(name) if patterns is None else matches(name, patterns))
    ]
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

    `strip` patterns remove more variables; `keep` patterns pass credentials (`is_credential`) anyway,
    except those in MODEL_KEY_VARIABLES and `also_remove` (the variable the configured key is read from).
    """
    source = full_environment() if base is None else base
    never = [*MODEL_KEY_VARIABLES, *also_remove]
    keep, strip = list(keep), list(strip)

    def passed(name: str) -> bool:
        if matches(name, never) or matches(name, strip):
            return False
        return not is_credential(name) or matches(name, keep)

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
