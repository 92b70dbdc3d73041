"""Wires settings, a session folder, the workspace guard and the undo journal into a ToolContext.

The agent, `sneakycode tool` and the MCP server all build their tool context here, so the three run tools
in exactly the same conditions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.config import LoadedSettings, Settings, state_dir
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.session.folders import SessionInfo, new_session
from sneakycode.session.journal import Journal
from sneakycode.tools.web.cache import WebCache
from sneakycode.workspace.files import Workspace

if TYPE_CHECKING:
    from sneakycode.process.jobs import Job, JobTable


@dataclass
class ToolContext:
    """Everything a tool may touch: the workspace guard, settings, the session folder and a cancel signal.

    `loaded` keeps where each setting came from, so permission reasons can name a rule's file."""

    workspace: Workspace
    loaded: LoadedSettings
    session_id: str
    session_dir: Path
    cancel: threading.Event = field(default_factory=threading.Event)
    tasks: list[dict[str, str]] = field(default_factory=list)
    # The deny rule that hides a workspace-relative path from search results (set by the permission gate).
    hidden: Callable[[str], str | None] = field(default=lambda _path: None)
    # A tighter cap than max_output_bytes for this session (the agent sets it from a small context window).
    output_budget: int | None = None
    _jobs: JobTable | None = field(default=None, repr=False)
    # Whether the session's model accepts images (set by the run's wiring from the model); read_file refuses
    # images without it.
    supports_images: bool = False
    # The deny rule that refuses a URL (set by the permission gate), asked again on every redirect hop.
    url_denied: Callable[[str], str | None] = field(default=lambda _url: None)
    web_cache: WebCache = field(default_factory=WebCache)

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    @property
    def output_limit(self) -> int:
        """The most bytes any one tool result may take: max_output_bytes, or output_budget when smaller."""
        limit = self.settings.max_output_bytes
        return limit if self.output_budget is None else min(limit, self.output_budget)

    @property
    def jobs(self) -> JobTable:
        """Commands started with run_command(background=true); `close` ends them. Made on first use, so a
        session that starts no job never loads the job machinery (`sneakycode tool read_file` stays light)."""
        if self._jobs is None:
            from sneakycode.process.jobs import JobTable

            self._jobs = JobTable()
        return self._jobs

    def close(self) -> list[Job]:
        """The session ends: end its running jobs (process group, SIGTERM then SIGKILL) and return them.
        Safe to call more than once."""
        return self._jobs.kill_all() if self._jobs is not None else []


TOOL_TIME_BUDGET = 120.0  # seconds of in-process work any one call may take (commands have their own timeout)


@dataclass(frozen=True)
class Budget:
    """The running call's deadline and cancel signal, for loops deep inside a tool that have no context."""

    tool: str
    deadline: float
    cancel: threading.Event


_running: ContextVar[Budget | None] = ContextVar("running_tool_budget", default=None)


def start_budget(tool: str, cancel: threading.Event) -> None:
    """Called by the registry in the thread that runs the call."""
    _running.set(Budget(tool, time.monotonic() + TOOL_TIME_BUDGET, cancel))


def checkpoint() -> None:
    """Raise a coded error when the running call was cancelled or has used its time budget. Long loops
    (matching, patch hunks, the search fallback, directory walks) call it, so no call outlives Ctrl-C or
    hangs the run."""
    budget = _running.get()
    if budget is None:
        return
    if budget.cancel.is_set():
        raise ToolError(ErrorCode.CANCELLED, f"{budget.tool} was cancelled before it finished; nothing was changed")
    if time.monotonic() > budget.deadline:
        raise ToolError(
            ErrorCode.TIMED_OUT,
            f"{budget.tool} stopped after its time budget of {TOOL_TIME_BUDGET:.0f} s; nothing was changed",
            hint="Narrow the call: a smaller path, a simpler pattern, fewer hunks.",
        )


def open_tool_context(loaded: LoadedSettings, *, kind: str = "tool", session: SessionInfo | None = None) -> ToolContext:
    """A fresh session (or the given one) over the configured workspace; a ConfigError naming the state
    folder when it cannot hold the session (the run cannot start, as with any setting that does not work)."""
    settings = loaded.settings
    info = session or new_session(state_dir(settings), loaded.workspace, kind=kind)
    workspace = Workspace(
        loaded.workspace,
        max_file_size_bytes=settings.max_file_size_bytes,
        journal=Journal(info.dir),
    )
    return ToolContext(workspace=workspace, loaded=loaded, session_id=info.id, session_dir=info.dir)
