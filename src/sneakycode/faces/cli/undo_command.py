"""`sneakycode undo [--steps N] [--session ID] [--force]`: revert the latest session's changes, newest first."""

from __future__ import annotations

import argparse
import sys

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Revert the mutations of the latest session in this workspace (newest first)."
    parser.add_argument("--steps", type=int, help="how many mutations to revert (default: all)")
    parser.add_argument("--session", metavar="ID", help="a session id (default: the latest one)")
    parser.add_argument("--force", action="store_true", help="revert files changed since the mutation too")


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.sessions import find_session, latest_changed, undo

    if args.steps is not None and args.steps < 1:
        print("sneakycode undo: --steps must be 1 or more", file=sys.stderr)
        return ExitCode.USAGE
    try:
        loaded = workspace_settings(args.workspace)
    except ConfigError as exc:
        return config_error_exit("undo", exc)
    if args.session:
        try:
            info = find_session(loaded, args.session)
        except ConfigError as exc:
            return config_error_exit("undo", exc)
        if info is None:
            print(f"sneakycode undo: there is no session {args.session!r}", file=sys.stderr)
            return ExitCode.FAILURE
        if info.workspace != loaded.workspace:
            print(
                f"sneakycode undo: session {args.session} worked in {info.workspace}, not {loaded.workspace}; "
                f"run it with --workspace {info.workspace}",
                file=sys.stderr,
            )
            return ExitCode.FAILURE
    else:
        try:
            info = latest_changed(loaded)
        except ConfigError as exc:
            return config_error_exit("undo", exc)
        if info is None:
            print(f"Nothing to undo: no session has changed files in {loaded.workspace}.")
            return ExitCode.OK
    report = undo(info, steps=args.steps, force=args.force)
    print("\n".join(report.lines()), file=sys.stdout if report.ok else sys.stderr)
    return ExitCode.OK if report.ok else ExitCode.FAILURE
