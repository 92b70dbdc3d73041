"""Command-line entry point: parses flags and hands off; every command's work lives in its own module.

Imports are lazy so `sneakycode tool` and `sneakycode --help` start without loading the model client or UI.
Exit codes: 0 success, 1 failure, 2 usage error, 3 a budget ran out (turns, tokens, cost, time), 4 the provider
refused the key or the model, 5 the model server stalled, 130 interrupted (cli/exit_codes.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from sneakycode.faces.cli.exit_codes import ExitCode

# Each subcommand and the line `sneakycode --help` shows for it; its parser is built only when it is named, so
# `--help` and `tool` stay light.
SUBCOMMANDS = {
    "tool": "run tools exactly as the model would: tool NAME 'JSON' ... (--list shows them)",
    "undo": "revert the file changes of the latest session",
    "rewind": "put files and the conversation back to before a turn",
    "sessions": "list this workspace's saved sessions",
    "permissions": "check one call against the rules, or list the rules",
    "trust": "trust this workspace's .sneakycode/config.toml as it is now",
    "mcp": "serve the tools over MCP on stdio, or list|add|remove MCP servers",
    "review": "review a change and report findings (--base REF | --staged | --commit SHA)",
    "batch": "run many tasks, each in its own worktree: batch TASKS.jsonl --out DIR",
    "eval": "score a model on a suite of small coding tasks (eval compare A B, eval check)",
    "doctor": "check an endpoint and model layer by layer and name the fix",
    "map": "print the repository map the model gets: map [PATH]",
    "acp": "serve editors over the Agent Client Protocol on stdio (Zed, JetBrains, Neovim, Emacs)",
}
# The permission modes, written out so `--help` does not import the settings (and pydantic) to list them;
# tests/faces/cli/test_main.py checks them against PermissionMode.
MODES = {
    "default": "ask before edits and commands",
    "auto-edit": "edit files without asking, ask before commands",
    "plan": "read only: nothing is written or run",
    "yolo": "run every call that no deny rule blocks",
}
MODE_HELP = "the permission mode: " + "; ".join(f"{name} ({what})" for name, what in MODES.items())


def _epilog() -> str:
    width = max(map(len, SUBCOMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {line}" for name, line in SUBCOMMANDS.items())
    return (f"subcommands (`sneakycode SUBCOMMAND --help` for each):\n{rows}\n\n"
            "examples:\n  sneakycode                          an interactive session in this folder\n"
            '  sneakycode "fix the failing test"   the same, starting with that task\n'
            '  sneakycode -p "TASK" --yes          one task to the end, then exit\n'
            "  sneakycode -c                       continue this folder's latest session")


def permission_mode(value: str) -> str:
    """The --mode value, checked against PermissionMode; imported here, so `--help` does not load the
    settings models (and pydantic) just to list the modes."""
    from sneakycode.config import PermissionMode

    if value not in list(PermissionMode):
        raise argparse.ArgumentTypeError(f"{value!r} is not a mode; use one of {', '.join(PermissionMode)}")
    return value


def _add_workspace(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    # A nested subparser must not reset a --workspace given before its action (argparse copies defaults).
    default = argparse.SUPPRESS if nested else None
    help_text = "workspace root (default: current directory)"
    parser.add_argument("--workspace", metavar="DIR", default=default, help=help_text)


def _agent_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sneakycode",
        description="A terminal coding agent for any OpenAI-compatible model.",
        usage="sneakycode [options] [TASK]\n       sneakycode SUBCOMMAND ...",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "task", nargs="?", metavar="TASK", help="start the interactive session with this task as its first message"
    )
    _add_version(parser)
    parser.add_argument(
        "-p", "--print", dest="prompt", metavar="TASK", nargs="?", const="", help="run TASK headless ('-' reads stdin)"
    )
    parser.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text",
                        help="with -p: plain text (default), one JSON result, or JSON lines as the run goes")
    parser.add_argument(
        "--input-format", choices=("text", "stream-json"), default="text",
        help="stream-json: user messages as JSON lines on stdin, one session (implies headless)",
    )
    parser.add_argument(
        "--image", action="append", default=[], metavar="PATH", help="attach an image to the task (repeatable)"
    )
    parser.add_argument("--yes", action="store_true", help="approve every call that no deny rule blocks")
    parser.add_argument("--output-schema", metavar="FILE",
                        help="with -p: the final answer must be JSON valid against this JSON Schema")
    parser.add_argument("--provider", help="groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom")
    parser.add_argument("--model", help="the model's name at the provider (default: the provider's or config's)")
    parser.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--api-key", metavar="KEY", help="the endpoint's key (better: GROQ_API_KEY, ...)")
    parser.add_argument("--mode", type=permission_mode, metavar="MODE", help=MODE_HELP)
    parser.add_argument("--reasoning-effort", choices=("low", "medium", "high"),
                        help="how hard a reasoning model thinks (sent the way its family takes it)")
    parser.add_argument("--max-turns", type=int, metavar="N", help="stop after this many model turns")
    parser.add_argument("--max-tokens", type=int, help="stop after this many tokens (prompt + completion)")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="stop once the run has cost this much")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop after this much wall-clock time")
    _add_goal(parser)
    parser.add_argument("-c", "--continue", dest="continue_session", action="store_true",
                        help="continue the latest session of this workspace")
    parser.add_argument("-r", "--resume", metavar="ID",
                        help="continue the session with this id (see `sneakycode sessions`)")
    parser.add_argument("--verbose", action="store_true", help="show debug information")
    parser.add_argument(
        "--trust-project", action="store_true", help="apply .sneakycode/config.toml in full for this run"
    )
    _add_workspace(parser)
    parser.add_argument("--add-dir", metavar="DIR", action="append", default=[], dest="add_dirs",
                        help="another folder the tools may read and edit, like the workspace (repeatable)")
    return parser


def _add_goal(parser: argparse.ArgumentParser) -> None:
    """A goal and its attempts (docs/goals.md)."""
    parser.add_argument("--until", metavar="CMD",
                        help="with -p: work until CMD passes (exit code 0), or a budget ends it")
    parser.add_argument("--until-files", action="append", metavar="PATH",
                        help="a file of the check the model may not change (repeatable; default: the files CMD names)")
    parser.add_argument("--check-timeout", type=int, metavar="SECONDS",
                        help="kill the check after this long (default 300)")
    parser.add_argument("--attempts", type=int, default=1, metavar="N",
                        help="with -p: N independent attempts in their own worktrees; the passing one is kept")
    parser.add_argument("--attempt-rule", choices=("first", "vote"), default="first",
                        help="without --until: keep the first attempt to finish, or the small model's vote")
    parser.add_argument("--workers", type=int, default=1, metavar="N", help="with --attempts: attempts at once")


def _add_version(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-V", "--version", action=_VersionAction,
                        help="print the version and the commit it was built from")


class _VersionAction(argparse.Action):
    """`--version`: the version, and the commit when known (process/build_commit.py), then exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(version_line())
        parser.exit(0)


def version_line() -> str:
    """`sneakycode 0.1.0 (commit 1a2b3c4d5e6f)`, or without the commit when nobody knows it."""
    from sneakycode.process.build_commit import build_commit
    from sneakycode.version import __version__

    commit = build_commit()
    return f"sneakycode {__version__}" + (f" (commit {commit})" if commit else "")


def _mistyped_subcommand(word: str) -> str | None:
    """The subcommand `word` is probably a typo of, when it looks like a command rather than a task: one word,
    no spaces, close to a subcommand's name (`revew` -> `review`)."""
    import difflib

    if not word or word.startswith("-") or any(ch.isspace() for ch in word):
        return None
    close = difflib.get_close_matches(word.lower(), list(SUBCOMMANDS), n=1, cutoff=0.75)
    return close[0] if close else None


def _subcommand_parser(name: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"sneakycode {name}", description=SUBCOMMANDS[name].capitalize() + ".")
    if name == "tool":
        parser.description = "Run tools exactly as the model would, in one session, and print what it would see."
        parser.add_argument("calls", nargs="*", metavar="NAME 'JSON-ARGS'", help="tool name and JSON arguments")
        parser.add_argument("--json", action="store_true", help="print one structured result per line")
        parser.add_argument("--list", action="store_true", help="list the tools with their tiers")
    elif name == "undo":
        parser.description = "Revert the mutations of the latest session in this workspace (newest first)."
        parser.add_argument("--steps", type=int, help="how many mutations to revert (default: all)")
        parser.add_argument("--session", metavar="ID", help="a session id (default: the latest one)")
        parser.add_argument("--force", action="store_true", help="revert files changed since the mutation too")
    elif name == "rewind":
        parser.description = (
            "Put the files (run_command's changes included) and the conversation back to the checkpoint taken "
            "before a turn of the latest session in this workspace (see docs/checkpoints.md)."
        )
        parser.add_argument("--to", type=int, metavar="TURN", help="the turn to go back before (default: the last)")
        only = parser.add_mutually_exclusive_group()
        only.add_argument("--files-only", action="store_true", help="restore the files, keep the conversation")
        only.add_argument("--conversation-only", action="store_true", help="rewind the conversation, keep the files")
        parser.add_argument("--force", action="store_true", help="restore files changed by someone else since, too")
        parser.add_argument("--list", action="store_true", help="list the checkpoints and the files each turn changed")
        parser.add_argument("--session", metavar="ID", help="a session id (default: the latest one)")
    elif name == "mcp":
        parser.description = (
            "Serve the tools over the Model Context Protocol on stdio (`serve`, the default), or manage the MCP "
            "servers whose tools the model gets."
        )
        sub = parser.add_subparsers(dest="action")
        _add_workspace(sub.add_parser("serve", help="serve the tools on stdio (what `sneakycode mcp` does)"),
                       nested=True)
        _add_workspace(sub.add_parser("list", help="the configured servers: status, tool count, where configured"),
                       nested=True)
        add = sub.add_parser("add", help="add a server: NAME -- COMMAND ARGS..., or NAME --url URL",
                             usage="sneakycode mcp add NAME [options] (-- COMMAND ARGS... | --url URL)")
        add.add_argument("server", metavar="NAME")
        add.add_argument("--url", help="a remote server's endpoint (streamable HTTP; SSE when --transport sse)")
        add.add_argument("--transport", choices=("stdio", "http", "sse"))
        add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="a variable for the server")
        add.add_argument("--header", action="append", default=[], metavar="KEY=VALUE", help="an HTTP header")
        add.add_argument("--scope", choices=("user", "project"), default="user",
                         help="user: your config (default); project: the workspace's .sneakycode/config.toml")
        _add_workspace(add, nested=True)
        remove = sub.add_parser("remove", help="remove a server from the user or project config")
        remove.add_argument("server", metavar="NAME")
        remove.add_argument("--scope", choices=("user", "project"), help="where to remove it from (default: both)")
        _add_workspace(remove, nested=True)
    elif name == "permissions":
        parser.description = "See and test permission decisions without running anything."
        sub = parser.add_subparsers(dest="action", required=True)
        check = sub.add_parser("check", help="decide one call: allow, ask or deny, and why")
        check.add_argument("tool")
        check.add_argument("args", nargs="?", default="{}", metavar="JSON-ARGS")
        check.add_argument("--mode", type=permission_mode, help=MODE_HELP)
        check.add_argument("--json", action="store_true")
        _add_workspace(check, nested=True)
        listing = sub.add_parser("list", help="the effective rules and where each came from")
        _add_workspace(listing, nested=True)
    elif name == "sessions":
        parser.description = "List the saved sessions of this workspace."
    elif name == "trust":
        parser.description = (
            "Trust this workspace's .sneakycode/config.toml as it is now: what it asks for that loosens permissions "
            "or redirects SneakyCode (provider, allow rules, a looser mode, ...) applies from now on, until the file "
            "changes."
        )
        parser.add_argument("--revoke", action="store_true", help="stop trusting this workspace")
    elif name == "acp":
        from sneakycode.faces.acp.command import add_arguments

        add_arguments(parser)
    elif name == "batch":
        from sneakycode.faces.cli.batch import add_batch_arguments

        add_batch_arguments(parser)
    elif name == "eval":
        from sneakycode.faces.cli.eval_command import add_eval_arguments

        add_eval_arguments(parser)
    elif name == "review":
        from sneakycode.review.arguments import add_review_arguments

        add_review_arguments(parser)
    elif name == "doctor":
        from sneakycode.faces.cli.doctor_command import add_doctor_arguments

        add_doctor_arguments(parser)
    elif name == "map":
        from sneakycode.faces.cli.map_command import add_map_arguments

        add_map_arguments(parser)
    _add_workspace(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    name = args_list[0] if args_list and args_list[0] in SUBCOMMANDS else None
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
    args = _subcommand_parser(name).parse_args(args_list[1:]) if name else _agent_parser().parse_args(args_list)
    args.command_line = command_line
    from sneakycode.process.hardening import harden_process, wipe_arguments

    # After parsing, so `--help` stays light; before any settings are read or any command runs: keys out of
    # reach, detached processes adopted.
    harden_process()
    if name is None:
        from sneakycode.agent.model.preload import start_sdk_import

        start_sdk_import()  # an agent run needs the model client: its import overlaps the start (issue 42)
        wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
        if args.prompt == "" and args.task:  # `sneakycode "TASK" -p`: the task before the flag
            args.prompt, args.task = args.task, None
        if args.prompt is not None and args.task:
            print(f"sneakycode: two tasks: -p {args.prompt!r} and {args.task!r}; give one", file=sys.stderr)
            return ExitCode.USAGE
        if args.prompt is not None or args.input_format == "stream-json":
            from sneakycode.faces.cli.headless import run_headless

            return run_headless(args)
        if not (_is_terminal(sys.stdin) and _is_terminal(sys.stdout)):
            # Said before anything starts: prompt_toolkit would only warn "Input is not a terminal" and then
            # read the pipe as keystrokes.
            print('sneakycode: the interactive session needs a terminal (on stdin and stdout); without one, run a '
                  'task with -p "TASK" (or -p - to read the task from stdin)', file=sys.stderr)
            return ExitCode.USAGE
        from sneakycode.faces.terminal.app import run_interactive

        return run_interactive(args)
    if name == "tool":
        from sneakycode.faces.cli.tool_command import run_tool_command

        return run_tool_command(args)
    if name == "undo":
        from sneakycode.faces.cli.undo_command import run_undo_command

        return run_undo_command(args)
    if name == "rewind":
        from sneakycode.faces.cli.rewind_command import run_rewind_command

        return run_rewind_command(args)
    if name == "mcp":
        from sneakycode.faces.cli.mcp_command import run_mcp_command

        return run_mcp_command(args)
    if name == "permissions":
        from sneakycode.faces.cli.permissions_command import run_permissions_command

        return run_permissions_command(args)
    if name == "trust":
        from sneakycode.faces.cli.trust_command import run_trust_command

        return run_trust_command(args)
    if name == "acp":
        from sneakycode.faces.acp.command import run_acp

        return run_acp(args)
    if name == "batch":
        from sneakycode.faces.cli.batch import run_batch_command

        return run_batch_command(args)
    if name == "eval":
        from sneakycode.faces.cli.eval_command import run_eval_command

        wipe_arguments([args.api_key])
        return run_eval_command(args)
    if name == "review":
        from sneakycode.faces.cli.review_command import run_review_command

        return run_review_command(args)
    if name == "doctor":
        from sneakycode.faces.cli.doctor_command import run_doctor_command

        wipe_arguments([args.api_key])
        return run_doctor_command(args)
    if name == "map":
        from sneakycode.faces.cli.map_command import run_map_command

        return run_map_command(args)
    from sneakycode.faces.cli.sessions_command import run_sessions_command

    return run_sessions_command(args)


def _is_terminal(stream: TextIO | None) -> bool:
    """Whether `stream` is open on a terminal (None: its descriptor was closed when we started)."""
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # closed
        return False


def acp_main() -> int:
    """The `sneakycode-acp` script: `sneakycode acp`, for editor settings that take a command without arguments."""
    return main(["acp", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
