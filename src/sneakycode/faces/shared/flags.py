"""The flags several commands take, declared once: the endpoint (`--provider`, `--model`, `--base-url`,
`--api-key`), the budgets (`--max-turns`, `--max-tokens`, `--max-cost`, `--timeout`), `--workspace`,
`--trust-project`, `--verbose` and `--mode`.

`FLAGS` is the one table: a flag's name, its argparse keywords and its help. A command adds a group
(`add_model_flags`, `add_budget_flags`) or single flags (`add_flags(parser, "--trust-project")`), and may word a
flag's help for what it means there (`help={"--max-turns": "model turns per part of the review"}`); the name,
type and metavar stay the table's. A new shared flag is one row here (and a group tuple if it comes in one).

Imports nothing heavy: `sneakycode --help` builds its parser from here without loading the settings.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sneakycode.api.errors import ConfigError


@dataclass(frozen=True)
class Flag:
    """One flag: its argparse keywords (help included)."""

    names: tuple[str, ...]
    keywords: dict[str, Any] = field(default_factory=dict)


# The permission modes, written out so `--help` does not import the settings (and pydantic) to list them;
# tests/faces/cli/test_main.py checks them against PermissionMode.
MODES = {
    "default": "ask before edits and commands",
    "auto-edit": "edit files without asking, ask before commands",
    "plan": "read only: nothing is written or run",
    "yolo": "run every call that no deny rule blocks",
}
MODE_HELP = "the permission mode: " + "; ".join(f"{name} ({what})" for name, what in MODES.items())


def permission_mode(value: str) -> str:
    """The --mode value, checked against the modes `api.permissions` knows; imported here, so `--help` does
    not load the settings models (and pydantic) just to list the modes."""
    from sneakycode.api.permissions import MODES as KNOWN

    if value not in KNOWN:
        raise argparse.ArgumentTypeError(f"{value!r} is not a mode; use one of {', '.join(KNOWN)}")
    return value


FLAGS: dict[str, Flag] = {
    "--provider": Flag(("--provider",), {"help": "groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom"}),
    "--model": Flag(("--model",), {"help": "the model's name at the provider (default: the provider's or config's)"}),
    "--base-url": Flag(("--base-url",), {"metavar": "URL",
                                         "help": "an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1"}),
    "--api-key": Flag(("--api-key",), {"metavar": "KEY", "help": "the endpoint's key (better: GROQ_API_KEY, ...)"}),
    "--max-turns": Flag(("--max-turns",), {"type": int, "metavar": "N", "help": "stop after this many model turns"}),
    "--max-tokens": Flag(("--max-tokens",), {"type": int,
                                             "help": "stop after this many tokens (prompt + completion)"}),
    "--max-cost": Flag(("--max-cost",), {"type": float, "metavar": "USD",
                                         "help": "stop once the run has cost this much"}),
    "--timeout": Flag(("--timeout",), {"type": float, "metavar": "SECONDS",
                                       "help": "stop after this much wall-clock time"}),
    "--trust-project": Flag(("--trust-project",), {"action": "store_true",
                                                   "help": "apply .sneakycode/config.toml in full for this run"}),
    "--verbose": Flag(("--verbose",), {"action": "store_true", "help": "show debug information"}),
    "--mode": Flag(("--mode",), {"type": permission_mode, "metavar": "MODE", "help": MODE_HELP}),
    # A goal and its attempts (docs/goals.md).
    "--until": Flag(("--until",), {"metavar": "CMD",
                                   "help": "with -p: work until CMD passes (exit code 0), or a budget ends it"}),
    "--until-files": Flag(("--until-files",), {
        "action": "append", "metavar": "PATH",
        "help": "a file of the check the model may not change (repeatable; default: the files CMD names)"}),
    "--check-timeout": Flag(("--check-timeout",), {"type": int, "metavar": "SECONDS",
                                                   "help": "kill the check after this long (default 300)"}),
    "--attempts": Flag(("--attempts",), {
        "type": int, "default": 1, "metavar": "N",
        "help": "with -p: N independent attempts in their own worktrees; the passing one is kept"}),
    "--attempt-rule": Flag(("--attempt-rule",), {
        "choices": ("first", "vote"), "default": "first",
        "help": "without --until: keep the first attempt to finish, or the small model's vote"}),
    "--workers": Flag(("--workers",), {"type": int, "default": 1, "metavar": "N",
                                       "help": "with --attempts: attempts at once"}),
    "--executor": Flag(("--executor",), {"choices": ("local", "ray"), "default": "local",
                                         "help": "with --attempts: run them here or on Ray (needs sneakycode[ray])"}),
    "--escalate": Flag(("--escalate",), {
        "choices": ("after", "never", "now"), "default": "after",
        "help": "with --until: when [models] fallback takes over (default: after the main model fails)"}),
}
MODEL_FLAGS = ("--provider", "--model", "--base-url", "--api-key")
GOAL_FLAGS = ("--until", "--until-files", "--check-timeout", "--attempts", "--attempt-rule", "--workers",
              "--executor", "--escalate")
BUDGET_FLAGS = ("--max-turns", "--max-tokens", "--max-cost", "--timeout")


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *names: str,
              help: Mapping[str, str] | None = None) -> None:
    """Add these flags from the table; `help` words some of them for this command."""
    for name in names:
        flag = FLAGS[name]
        keywords = dict(flag.keywords)
        if help and name in help:
            keywords["help"] = help[name]
        parser.add_argument(*flag.names, **keywords)


def add_model_flags(parser: argparse.ArgumentParser, *, help: Mapping[str, str] | None = None) -> None:
    """--provider, --model, --base-url, --api-key: the endpoint (read by `model_flags`)."""
    add_flags(parser, *MODEL_FLAGS, help=help)


def add_budget_flags(parser: argparse.ArgumentParser, *names: str, help: Mapping[str, str] | None = None) -> None:
    """The budget flags (all four unless `names` picks some; checked by `check_budgets`)."""
    add_flags(parser, *(names or BUDGET_FLAGS), help=help)


def add_workspace_flag(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    """--workspace DIR. A nested subparser must not reset a --workspace given before its action (argparse
    copies defaults), so there it has none."""
    default = argparse.SUPPRESS if nested else None
    parser.add_argument("--workspace", metavar="DIR", default=default,
                        help="workspace root (default: current directory)")


def model_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The endpoint flags as `api.Options` keywords (None: not given)."""
    return {name.lstrip("-").replace("-", "_"): getattr(args, name.lstrip("-").replace("-", "_"), None)
            for name in MODEL_FLAGS}


def check_budgets(args: argparse.Namespace, *names: str) -> None:
    """A ConfigError naming the first budget flag (of `names`, default all four) given at 0 or below, before
    the settings are read, so the message names the flag."""
    for name in names or BUDGET_FLAGS:
        value = getattr(args, name.lstrip("-").replace("-", "_"), None)
        if value is not None and value <= 0:
            raise ConfigError(f"{name} must be above 0, got {value}")
