"""`sneakycode sessions`: the saved agent sessions of this workspace, oldest first."""

from __future__ import annotations

import argparse
import time

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "List the saved sessions of this workspace."


def run(args: argparse.Namespace) -> int:
    """`sneakycode sessions`: the saved agent sessions of this workspace, oldest first."""
    from sneakycode.api.sessions import saved_sessions

    try:
        loaded = workspace_settings(args.workspace)
        found = saved_sessions(loaded)
    except ConfigError as exc:
        return config_error_exit("sessions", exc)
    if not found:
        print(f"No saved sessions for {loaded.workspace}.")
        return ExitCode.OK
    print(f"{'ID':<30} {'STARTED':<17} {'TURNS':>5}  {'STATUS':<11} TASK")
    for saved in found:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(saved.info.created))
        task = saved.task if len(saved.task) <= 60 else saved.task[:57] + "..."
        print(f"{saved.info.id:<30} {started:<17} {saved.turns:>5}  {saved.status:<11} {task}")
    print("\nResume one with `sneakycode -p TASK --resume ID`, or the latest with `--continue`.")
    return ExitCode.OK
