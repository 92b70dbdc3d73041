"""`sneakycode undo [--steps N] [--session ID] [--force]`: revert the latest session's changes, newest first."""

from __future__ import annotations

import argparse
import sys

from sneakycode.config import state_dir
from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings
from sneakycode.session.folders import latest_session, load_session
from sneakycode.session.undo import undo_session


def run_undo_command(args: argparse.Namespace) -> int:
    if args.steps is not None and args.steps < 1:
        print("sneakycode undo: --steps must be 1 or more", file=sys.stderr)
        return ExitCode.USAGE
    try:
        loaded = workspace_settings(args.workspace)
    except ConfigError as exc:
        return config_error_exit("undo", exc)
    states = state_dir(loaded.settings)
    if args.session:
        try:
            info = load_session(states, args.session)
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
            info = latest_session(states, loaded.workspace, predicate="journal")
        except ConfigError as exc:
            return config_error_exit("undo", exc)
        if info is None:
            print(f"Nothing to undo: no session has changed files in {loaded.workspace}.")
            return ExitCode.OK
    report = undo_session(info.dir, info.id, info.workspace, steps=args.steps, force=args.force)
    print("\n".join(report.lines()), file=sys.stdout if report.ok else sys.stderr)
    return ExitCode.OK if report.ok else ExitCode.FAILURE
