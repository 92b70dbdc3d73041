"""`sneakycode acp [--workspace DIR]`: the editor protocol on stdio until the client goes.

The protocol owns stdout (see stdio.py). The SDK logs through `logging` and warns through `warnings`;
those lines (and their tracebacks) go nowhere unless --verbose asks for one line each on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from pathlib import Path
from typing import Any, cast

STDIO_LIMIT = 50 * 1024 * 1024  # a line may carry an image: the SDK's own limit, enforced as it is read
WIND_DOWN_SECONDS = 5.0  # after the input ends, for answers already under way


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Speak the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim, Emacs; "
                          "see docs/editors.md).")
    parser.add_argument("--verbose", action="store_true", help="log protocol problems to stderr, one line each")
    parser.add_argument("--setup", action="store_true",
                        help="run the first-run setup (provider, URL, key, model) in this terminal and exit; editors "
                             "run it for the `sneakycode-setup` auth method")


class _OneLine(logging.Formatter):
    def formatException(self, ei: object) -> str:
        return ""


def _quiet_logging(verbose: bool) -> None:
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    handler: logging.Handler = logging.StreamHandler(sys.stderr) if verbose else logging.NullHandler()
    handler.setFormatter(_OneLine("sneakycode acp: %(message)s"))
    root.addHandler(handler)
    # The SDK warns (UserWarning) when a client calls an unstable method; a warning is a log line here too.
    logging.captureWarnings(True)


async def serve(workspace: Path | None) -> None:
    from acp.agent.connection import AgentSideConnection

    from sneakycode.faces.acp.server import SneakyAgent
    from sneakycode.faces.acp.stdio import protocol_streams
    from sneakycode.faces.acp.wire import StdioWire

    reader, writer = await protocol_streams()
    wire = StdioWire(reader, writer, STDIO_LIMIT)
    agent = SneakyAgent(workspace)
    connection = AgentSideConnection(cast(Any, agent), wire, listening=False,  # implements what it offers
                                     use_unstable_protocol=True)  # session/close and session/resume
    loop = asyncio.get_running_loop()
    listening = asyncio.ensure_future(connection.listen())
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, listening.cancel)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await agent.wind_down(WIND_DOWN_SECONDS)
    finally:
        await agent.shutdown()
        with contextlib.suppress(Exception):
            await connection.close()


def setup_in_terminal() -> int:
    """The terminal's first-run setup (faces/terminal/setup_wizard.py), for an editor's terminal-auth method:
    0 once the choice is saved to the user config (the editor then starts its session again), 1 if cancelled."""
    import getpass

    from rich.console import Console

    from sneakycode.api.models import user_config_path
    from sneakycode.faces.terminal.setup_wizard import run_setup

    def ask(question: str, secret: bool) -> str:
        return getpass.getpass(question) if secret else input(question)

    return 0 if run_setup(Console(), ask, user_config_path()) is not None else 1


def run_acp(args: argparse.Namespace) -> int:
    if getattr(args, "setup", False):
        return setup_in_terminal()
    _quiet_logging(bool(getattr(args, "verbose", False)))
    workspace = Path(args.workspace).resolve() if getattr(args, "workspace", None) else None
    if workspace is not None and not workspace.is_dir():
        print(f"sneakycode acp: --workspace {args.workspace}: not a directory", file=sys.stderr)
        return 2
    if sys.stdin.isatty():  # a person ran it by hand: say what it is, and keep serving (an editor may use a pty)
        print("sneakycode acp: speaking the Agent Client Protocol (JSON-RPC) on stdin/stdout for an editor; see "
              "docs/editors.md. For the interactive terminal run `sneakycode`. Ctrl-D or Ctrl-C ends it.",
              file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(workspace))
    return 0
