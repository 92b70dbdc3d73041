"""Command-line entry point: one table of subcommands, each a module with `add_arguments` and `run`.

Imports are lazy so `sneakycode tool` and `sneakycode --help` start without loading the model client or UI: a
subcommand's module is imported only when it is named. Exit codes: 0 success, 1 failure, 2 usage error, 3 a
budget ran out (turns, tokens, cost, time), 4 the provider refused the key or the model, 5 the model server
stalled, 130 interrupted (faces/shared/exit_codes.py).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from sneakycode.faces.shared.exit_codes import ExitCode


@dataclass(frozen=True)
class Subcommand:
    """A subcommand: the line `sneakycode --help` shows for it, and the module whose `add_arguments(parser)`
    and `run(args) -> exit code` it is (imported only when it is named, so `--help` and `tool` stay light)."""

    help: str
    module: str
    add_arguments: str = "add_arguments"
    run: str = "run"

    def function(self, attribute: str) -> Callable[..., object]:
        return cast("Callable[..., object]", getattr(importlib.import_module(self.module), attribute))


_HERE = "sneakycode.faces.cli."
COMMANDS: dict[str, Subcommand] = {
    "tool": Subcommand("run tools exactly as the model would: tool NAME 'JSON' ... (--list shows them)",
                       _HERE + "tool_command"),
    "undo": Subcommand("revert the file changes of the latest session", _HERE + "undo_command"),
    "rewind": Subcommand("put files and the conversation back to before a turn", _HERE + "rewind_command"),
    "sessions": Subcommand("list this workspace's saved sessions", _HERE + "sessions_command"),
    "permissions": Subcommand("check one call against the rules, or list the rules", _HERE + "permissions_command"),
    "trust": Subcommand("trust this workspace's .sneakycode/config.toml as it is now", _HERE + "trust_command"),
    "mcp": Subcommand("serve the tools over MCP on stdio, or list|add|remove MCP servers", _HERE + "mcp_command"),
    "review": Subcommand("review a change and report findings (--base REF | --staged | --commit SHA)",
                         _HERE + "review_command"),
    "batch": Subcommand("run many tasks, each in its own worktree: batch TASKS.jsonl --out DIR", _HERE + "batch"),
    "eval": Subcommand("score a model on a suite of small coding tasks (eval compare A B, eval check)",
                       _HERE + "eval_command"),
    "doctor": Subcommand("check an endpoint and model layer by layer and name the fix", _HERE + "doctor_command"),
    "map": Subcommand("print the repository map the model gets: map [PATH]", _HERE + "map_command"),
    "acp": Subcommand("serve editors over the Agent Client Protocol on stdio (Zed, JetBrains, Neovim, Emacs)",
                      "sneakycode.faces.acp.command", run="run_acp"),
}
SUBCOMMANDS = {name: command.help for name, command in COMMANDS.items()}
"""Each subcommand's `--help` line (README and tests read the names from here)."""


def _mistyped_subcommand(word: str) -> str | None:
    """The subcommand `word` is probably a typo of, when it looks like a command rather than a task: one word,
    no spaces, close to a subcommand's name (`revew` -> `review`)."""
    import difflib

    if not word or word.startswith("-") or any(ch.isspace() for ch in word):
        return None
    close = difflib.get_close_matches(word.lower(), list(COMMANDS), n=1, cutoff=0.75)
    return close[0] if close else None


def _subcommand_parser(name: str) -> argparse.ArgumentParser:
    from sneakycode.faces.shared.flags import add_workspace_flag

    parser = argparse.ArgumentParser(prog=f"sneakycode {name}", description=COMMANDS[name].help.capitalize() + ".")
    COMMANDS[name].function(COMMANDS[name].add_arguments)(parser)
    add_workspace_flag(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    name = args_list[0] if args_list and args_list[0] in COMMANDS else None
    command_line: list[str] = []
    if name == "mcp" and "--" in args_list:
        # `mcp add NAME -- COMMAND ARGS...`: split here, since argparse lets options interleave with positionals
        # and would take the server's own flags for ours.
        cut = args_list.index("--")
        args_list, command_line = args_list[:cut], args_list[cut + 1 :]
    if name is None and args_list and (typo := _mistyped_subcommand(args_list[0])) is not None:
        print(f"sneakycode: unknown command {args_list[0]!r}; did you mean `sneakycode {typo}`? "
              f"(a one-word task: sneakycode -- {args_list[0]})", file=sys.stderr)
        return ExitCode.USAGE
    if name is None:
        from sneakycode.faces.cli import agent_command

        args = agent_command.parser(SUBCOMMANDS).parse_args(args_list)
    else:
        args = _subcommand_parser(name).parse_args(args_list[1:])
    args.command_line = command_line
    from sneakycode.api.startup import harden

    # After parsing, so `--help` stays light; before any settings are read or any command runs: keys out of
    # reach, detached processes adopted.
    harden()
    if name is None:
        return agent_command.run(args)
    return cast(int, COMMANDS[name].function(COMMANDS[name].run)(args))


def acp_main() -> int:
    """The `sneakycode-acp` script: `sneakycode acp`, for editor settings that take a command without arguments."""
    return main(["acp", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
