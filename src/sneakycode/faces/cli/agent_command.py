"""`sneakycode [TASK]` and `sneakycode -p TASK`: the agent itself, interactive in a terminal or headless.

The flags are the shared ones (faces/shared/flags.py) and the agent's own; the work is `headless.py` (-p,
--input-format stream-json) or the terminal face (faces/terminal/app.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import GOAL_FLAGS, add_budget_flags, add_flags, add_model_flags, add_workspace_flag


def _epilog(subcommands: Mapping[str, str]) -> str:
    width = max(map(len, subcommands))
    rows = "\n".join(f"  {name:<{width}}  {line}" for name, line in subcommands.items())
    return (f"subcommands (`sneakycode SUBCOMMAND --help` for each):\n{rows}\n\n"
            "examples:\n  sneakycode                          an interactive session in this folder\n"
            '  sneakycode "fix the failing test"   the same, starting with that task\n'
            '  sneakycode -p "TASK" --yes          one task to the end, then exit\n'
            "  sneakycode -c                       continue this folder's latest session")


def parser(subcommands: Mapping[str, str]) -> argparse.ArgumentParser:
    """The agent's parser; its epilog lists `subcommands` (name -> help line)."""
    parser = argparse.ArgumentParser(
        prog="sneakycode",
        description="A terminal coding agent for any OpenAI-compatible model.",
        usage="sneakycode [options] [TASK]\n       sneakycode SUBCOMMAND ...",
        epilog=_epilog(subcommands),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "task", nargs="?", metavar="TASK", help="start the interactive session with this task as its first message"
    )
    parser.add_argument("-V", "--version", action=_VersionAction,
                        help="print the version and the commit it was built from")
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
    add_model_flags(parser)
    add_flags(parser, "--mode")
    parser.add_argument("--reasoning-effort", choices=("low", "medium", "high"),
                        help="how hard a reasoning model thinks (sent the way its family takes it)")
    add_budget_flags(parser)
    add_flags(parser, *GOAL_FLAGS)
    parser.add_argument("-c", "--continue", dest="continue_session", action="store_true",
                        help="continue the latest session of this workspace")
    parser.add_argument("-r", "--resume", metavar="ID",
                        help="continue the session with this id (see `sneakycode sessions`)")
    add_flags(parser, "--verbose", "--trust-project")
    add_workspace_flag(parser)
    parser.add_argument("--add-dir", metavar="DIR", action="append", default=[], dest="add_dirs",
                        help="another folder the tools may read and edit, like the workspace (repeatable)")
    return parser


class _VersionAction(argparse.Action):
    """`--version`: the version, and the commit when known, then exit 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from sneakycode.api.startup import version_line

        print(version_line())
        parser.exit(0)


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.startup import preload_model_client, wipe_arguments

    preload_model_client()  # an agent run needs the model client: its import overlaps the start (issue 42)
    wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
    if args.prompt == "" and args.task:  # `sneakycode "TASK" -p`: the task before the flag
        args.prompt, args.task = args.task, None
    if args.prompt is not None and args.task:
        print(f"sneakycode: two tasks: -p {args.prompt!r} and {args.task!r}; give one", file=sys.stderr)
        return ExitCode.USAGE
    if args.attempts != 1 and args.prompt is None and args.input_format != "stream-json":
        # Said rather than ignored: the terminal runs attempts with /attempts N TASK, after it starts.
        print("sneakycode: --attempts runs a task headless: sneakycode -p TASK --attempts N (in the terminal: "
              "/attempts N TASK)", file=sys.stderr)
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


def _is_terminal(stream: TextIO | None) -> bool:
    """Whether `stream` is open on a terminal (None: its descriptor was closed when we started)."""
    try:
        return stream is not None and stream.isatty()
    except ValueError:  # closed
        return False
