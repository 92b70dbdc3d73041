"""`sneakycode rewind [--to TURN] [--files-only|--conversation-only] [--force] [--list]`: back to a checkpoint."""

from __future__ import annotations

import argparse
import sys
import time

from sneakycode.config import LoadedSettings, state_dir
from sneakycode.errors import CheckpointError, ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings
from sneakycode.session.checkpoints import CHECKPOINTS_FILE
from sneakycode.session.folders import SessionInfo, latest_session, load_session
from sneakycode.session.rewind import list_checkpoints, rewind_session


def run_rewind_command(args: argparse.Namespace) -> int:
    if args.to is not None and args.to < 1:
        print("sneakycode rewind: --to must be 1 or more", file=sys.stderr)
        return ExitCode.USAGE
    try:
        loaded = workspace_settings(args.workspace)
        info = _session(loaded, args.session)
    except ConfigError as exc:
        return config_error_exit("rewind", exc)
    if info is None:
        print(f"Nothing to rewind: no session has checkpoints in {loaded.workspace}.")
        return ExitCode.OK
    try:
        if args.list:
            return _print_list(info)
        report = rewind_session(
            info.dir, info.id, info.workspace, turn=args.to, files=not args.conversation_only,
            conversation=not args.files_only, force=args.force, max_file_size=loaded.settings.max_file_size_bytes,
        )
    except CheckpointError as exc:
        print(f"sneakycode rewind: {exc}", file=sys.stderr)
        return ExitCode.FAILURE
    print("\n".join(report.lines()), file=sys.stdout if report.ok else sys.stderr)
    return ExitCode.OK if report.ok else ExitCode.FAILURE


def _session(loaded: LoadedSettings, session_id: str | None) -> SessionInfo | None:
    states = state_dir(loaded.settings)
    if not session_id:
        return latest_session(states, loaded.workspace, predicate=CHECKPOINTS_FILE)
    info = load_session(states, session_id)
    if info is None:
        raise ConfigError(f"there is no session {session_id!r}; `sneakycode sessions` lists them")
    if info.workspace != loaded.workspace:
        raise ConfigError(
            f"session {session_id} worked in {info.workspace}, not {loaded.workspace}; "
            f"run it with --workspace {info.workspace}"
        )
    return info


def _print_list(info: SessionInfo) -> int:
    listed = list_checkpoints(info.dir, info.workspace)
    if not listed:
        print(f"Session {info.id} has no checkpoints.")
        return ExitCode.OK
    print(f"Checkpoints of session {info.id} (rewind with `sneakycode rewind --to TURN`):")
    print(f"{'TURN':>5}  {'TIME':<8}  FILES CHANGED BY THE TURN")
    for record, changed in listed:
        at = time.strftime("%H:%M:%S", time.localtime(record.time))
        if isinstance(changed, str):
            files = changed
        else:
            files = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
            files = f"{len(changed)}: {files}" if changed else "0"
        print(f"{record.turn:>5}  {at:<8}  {files}")
        if record.skipped:
            print(f"{'':>5}  {'':<8}  not snapshotted (over max_file_size_bytes): {', '.join(record.skipped)}")
        if record.left_out:
            left_out = ", ".join(f"{path} ({why})" for path, why in record.left_out.items())
            print(f"{'':>5}  {'':<8}  not snapshotted: {left_out}")
    return ExitCode.OK
