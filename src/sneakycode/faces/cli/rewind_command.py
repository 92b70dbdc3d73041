"""`sneakycode rewind [--to TURN] [--files-only|--conversation-only] [--force] [--list]`: back to a checkpoint."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from sneakycode.api.errors import CheckpointError, ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings

if TYPE_CHECKING:
    from sneakycode.api.vocabulary import LoadedSettings, SessionInfo


def add_arguments(parser: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.sessions import rewind

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
        report = rewind(info, loaded, turn=args.to, files=not args.conversation_only,
                        conversation=not args.files_only, force=args.force)
    except CheckpointError as exc:
        print(f"sneakycode rewind: {exc}", file=sys.stderr)
        return ExitCode.FAILURE
    print("\n".join(report.lines()), file=sys.stdout if report.ok else sys.stderr)
    return ExitCode.OK if report.ok else ExitCode.FAILURE


def _session(loaded: LoadedSettings, session_id: str | None) -> SessionInfo | None:
    from sneakycode.api.sessions import find_session, latest_checkpointed

    if not session_id:
        return latest_checkpointed(loaded)
    info = find_session(loaded, session_id)
    if info is None:
        raise ConfigError(f"there is no session {session_id!r}; `sneakycode sessions` lists them")
    if info.workspace != loaded.workspace:
        raise ConfigError(
            f"session {session_id} worked in {info.workspace}, not {loaded.workspace}; "
            f"run it with --workspace {info.workspace}"
        )
    return info


def _print_list(info: SessionInfo) -> int:
    from sneakycode.api.sessions import checkpoints

    listed = checkpoints(info)
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
