"""What a face does to its own process before any work: the core's hardening (keys out of reach, detached
processes adopted), the early import of the model client, and the version line.

Thin verbs over `process/` and `agent/model/preload.py`, so a face never imports below `api` to start.
Imported by `sneakycode --help`'s path only after parsing: everything below is loaded lazily.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.config import LoadedSettings


def harden() -> None:
    """Keys out of reach of the commands the agent runs, detached processes adopted (process/hardening.py)."""
    from sneakycode.process.hardening import harden_process

    harden_process()


def wipe_arguments(secrets: Iterable[str | None]) -> None:
    """Overwrite these values (an `--api-key`) where /proc/PID/cmdline shows them to every process."""
    from sneakycode.process.hardening import wipe_arguments as wipe

    wipe([secret for secret in secrets if secret])


def preload_model_client() -> None:
    """Start importing the model client in the background: an agent run needs it, and its import overlaps
    the rest of the start (issue 42)."""
    from sneakycode.agent.model.preload import start_sdk_import

    start_sdk_import()


def protect_key(loaded: LoadedSettings) -> None:
    """A key under a name the start-up patterns did not recognise (`api_key_env`, the search backend's
    `tools.web.search.api_key_env`) is held and wiped too."""
    from sneakycode.process.hardening import protect_variables

    names = [name for name in (loaded.settings.api_key_env, loaded.settings.tools.web.search.key_variable) if name]
    if names:
        protect_variables(names)


def version_line() -> str:
    """`sneakycode 0.1.0 (commit 1a2b3c4d5e6f)`, or without the commit when nobody knows it."""
    from sneakycode.process.build_commit import build_commit
    from sneakycode.version import __version__

    commit = build_commit()
    return f"sneakycode {__version__}" + (f" (commit {commit})" if commit else "")
