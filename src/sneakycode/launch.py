"""What headless and interactive runs share before the agent starts: settings from the flags, and Ctrl-C."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sneakycode.config import LoadedSettings, load_settings
from sneakycode.errors import ConfigError


def settings_from_args(args: argparse.Namespace) -> LoadedSettings:
    """The configuration layers with the command-line flags on top (they win over every file)."""
    workspace = Path(args.workspace) if args.workspace else None
    if workspace is not None and not workspace.is_dir():
        raise ConfigError(f"--workspace {args.workspace!r} is not a directory")
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
    return load_settings(workspace, flags)


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
