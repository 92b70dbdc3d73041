"""What headless and interactive runs share before the agent starts: settings from the flags, and Ctrl-C."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings, load_settings
from sneakycode.errors import ConfigError

EXIT_USAGE = 2


def workspace_settings(workspace_arg: str | None, flags: Mapping[str, Any] | None = None) -> LoadedSettings:
    """Every command's settings for `--workspace` (default: the current folder); a ConfigError when that
    folder does not exist or a layer is wrong, so no command starts on a workspace that is not there."""
    workspace = Path(workspace_arg) if workspace_arg else None
    if workspace is not None and not workspace.is_dir():
        raise ConfigError(f"--workspace {workspace_arg!r} is not a directory")
    return load_settings(workspace, flags)


def config_error_exit(command: str, exc: ConfigError) -> int:
    """How every command reports a configuration or usage problem: one line on stderr, exit 2."""
    print(f"sneakycode {command}: {exc}", file=sys.stderr)
    return EXIT_USAGE


def settings_from_args(args: argparse.Namespace) -> LoadedSettings:
    """The configuration layers with the command-line flags on top (they win over every file)."""
    flags = {
        key: value
        for key, value in {
            "provider": args.provider,
            "model": args.model,
            "base_url": args.base_url,
            "permissions.mode": args.mode,
            "max_turns": args.max_turns,
        }.items()
        if value is not None
    }
    return workspace_settings(args.workspace, flags)


@contextmanager
def cancel_on_sigint(cancel: Callable[[], None]) -> Iterator[None]:
    """The first SIGINT cancels the run cleanly (the turn closes, the transcript stays valid); a second one
    raises KeyboardInterrupt at once."""
    pressed: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if pressed:
            raise KeyboardInterrupt
        pressed.append(True)
        cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
