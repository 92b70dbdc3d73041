"""What every command shares before its work: settings for `--workspace` (the commands that only run
tools), the agent's flags as `api.Options` (every model run goes through `api.Session`), how a
configuration problem ends a command, and Ctrl-C.

Nothing here assembles a run: that is `api/`'s, for every face alike.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import model_flags
from sneakycode.faces.shared.text import loggable

if TYPE_CHECKING:
    from sneakycode.api.options import Options
    from sneakycode.api.vocabulary import LoadedSettings


def workspace_settings(
    workspace_arg: str | None,
    flags: Mapping[str, Any] | None = None,
    *,
    trust_project: bool = False,
    notify: bool = True,
) -> LoadedSettings:
    """A tool-only command's settings for `--workspace` (default: the current folder); a ConfigError when
    that folder does not exist or a layer is wrong. What an untrusted project file asked for and did not get
    is said once on stderr (unless `notify` is off)."""
    from sneakycode.api.workspace_settings import load_workspace_settings

    workspace = Path(workspace_arg) if workspace_arg else None
    if workspace is not None and not workspace.is_dir():
        raise ConfigError(f"--workspace {workspace_arg!r} is not a directory")
    loaded = load_workspace_settings(workspace, flags, trust_project=trust_project)
    if notify:
        notify_untrusted(loaded)
    return loaded


def notify_untrusted(loaded: LoadedSettings) -> None:
    """A tool-only command's start: the model key held (see protect_key), and what an untrusted project file
    asked for and did not get said once on stderr."""
    from sneakycode.api.settings import untrusted_notice

    protect_key(loaded)
    if loaded.ignored:
        print(f"sneakycode: {loggable(untrusted_notice(loaded))}", file=sys.stderr)


def protect_key(loaded: LoadedSettings) -> None:
    """A key under a name the start-up patterns did not recognise (`api_key_env`, the search backend's
    `tools.web.search.api_key_env`) is held and wiped too."""
    from sneakycode.api.startup import protect_key as hold

    hold(loaded)


def config_error_exit(command: str, exc: ConfigError) -> int:
    """How every command reports a configuration or usage problem: one line on stderr, exit 2."""
    print(f"sneakycode {command}: {loggable(str(exc))}", file=sys.stderr)
    return ExitCode.USAGE


def workspace_option(workspace: str | None) -> str | None:
    """--workspace, checked: a ConfigError naming the flag when it is not a folder."""
    if workspace is not None and not Path(workspace).is_dir():
        raise ConfigError(f"--workspace {workspace!r} is not a directory")
    return workspace


def options_from_args(args: argparse.Namespace, **more: Any) -> Options:
    """The agent's flags as Options: a headless run's budgets are its settings' (the flags on top); an
    interactive session's the flags' alone."""
    workspace = workspace_option(args.workspace)
    headless = getattr(args, "prompt", None) is not None or getattr(args, "input_format", "text") == "stream-json"
    output_schema = getattr(args, "output_schema", None)
    if output_schema is not None and not headless:
        raise ConfigError("--output-schema applies to a headless run: give the task with -p")
    from sneakycode.api.options import Options

    return Options(
        workspace=workspace,
        add_dirs=tuple(getattr(args, "add_dirs", ())),
        **model_flags(args),
        mode=args.mode,
        max_turns=args.max_turns,
        resume=args.resume,
        continue_session=args.continue_session,
        trust_project=args.trust_project,
        interactive=not headless,
        max_tokens=getattr(args, "max_tokens", None),
        max_cost=getattr(args, "max_cost", None),
        timeout=getattr(args, "timeout", None),
        output_schema=output_schema,
        reasoning_effort=getattr(args, "reasoning_effort", None),
        until=getattr(args, "until", None),
        until_files=getattr(args, "until_files", None),
        check_timeout=getattr(args, "check_timeout", None),
        attempts=getattr(args, "attempts", 1),
        attempt_rule=getattr(args, "attempt_rule", "first"),
        escalate=getattr(args, "escalate", "after"),
        **more,
    )


def debug_printer(verbose: bool) -> Callable[[str], None] | None:
    """--verbose: debug lines on stderr."""
    if not verbose:
        return None

    def show(line: str) -> None:
        print(f"sneakycode: {loggable(line)}", file=sys.stderr, flush=True)

    return show


@contextmanager
def cancel_on_sigint(cancel: Callable[[], None], *, sigterm: bool = False) -> Iterator[None]:
    """The first SIGINT (with `sigterm`, SIGTERM too: how `sneakycode batch` stops a headless run) cancels the
    run cleanly (the turn closes, the transcript stays valid); a second one raises KeyboardInterrupt at once."""
    pressed: list[bool] = []

    def handler(signum: int, frame: object) -> None:
        if pressed:
            raise KeyboardInterrupt
        pressed.append(True)
        cancel()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, *([signal.SIGTERM] if sigterm else []))}
    try:
        yield
    finally:
        for sig, earlier in previous.items():
            signal.signal(sig, earlier)
