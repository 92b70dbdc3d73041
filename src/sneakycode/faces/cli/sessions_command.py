"""`sneakycode sessions`: the saved agent sessions of this workspace, oldest first."""

from __future__ import annotations

import argparse
import time

from sneakycode.config import state_dir
from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings
from sneakycode.session.folders import list_sessions
from sneakycode.session.transcript import TRANSCRIPT, load_transcript


def run_sessions_command(args: argparse.Namespace) -> int:
    """`sneakycode sessions`: the saved agent sessions of this workspace, oldest first."""
    try:
        loaded = workspace_settings(args.workspace)
        found = list_sessions(state_dir(loaded.settings), loaded.workspace)
    except ConfigError as exc:
        return config_error_exit("sessions", exc)
    infos = [s for s in found if (s.dir / TRANSCRIPT).exists()]
    if not infos:
        print(f"No saved sessions for {loaded.workspace}.")
        return ExitCode.OK
    print(f"{'ID':<30} {'STARTED':<17} {'TURNS':>5}  {'STATUS':<11} TASK")
    for info in infos:
        saved = load_transcript(info.dir / TRANSCRIPT)
        turns = sum(1 for m in saved.messages if m.get("role") == "assistant")
        status = str(saved.outcome.get("status", "")) if saved.outcome else "unfinished"
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
        task = " ".join((saved.title or saved.first_prompt).split())
        task = task if len(task) <= 60 else task[:57] + "..."
        print(f"{info.id:<30} {started:<17} {turns:>5}  {status:<11} {task}")
    print("\nResume one with `sneakycode -p TASK --resume ID`, or the latest with `--continue`.")
    return ExitCode.OK
