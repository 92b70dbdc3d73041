"""Wires settings, a session folder, the workspace guard and the undo journal into a ToolContext.

The agent, `sneakycode tool` and the MCP server all build their tool context here, so the three run tools
in exactly the same conditions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.config import LoadedSettings, Settings, state_dir
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.session.folders import SessionInfo, new_session
from sneakycode.session.journal import Journal
from sneakycode.tools.codemap.background import SessionMapBuild
from sneakycode.tools.session_network import SessionNetwork
from sneakycode.tools.web.cache import WebCache
from sneakycode.workspace.files import Workspace

if TYPE_CHECKING:
    from sneakycode.process.jobs import Job, JobTable
    from sneakycode.tools.lsp.host import LanguageServers


class SessionJobs:
    """The session's one job table, made on first use (a session that starts no job never loads the job
    machinery, so `sneakycode tool read_file` stays light) and shared by every agent of the session: a
    subagent's background job is listed, reachable and killed like the main agent's."""

    def __init__(self) -> None:
        self._table: JobTable | None = None
        self._lock = threading.Lock()

    def table(self) -> JobTable:
        with self._lock:
            if self._table is None:
                from sneakycode.process.jobs import JobTable

                self._table = JobTable()
            return self._table

    @property
    def started(self) -> bool:
        """Whether any agent of the session has used the job table."""
        return self._table is not None

    def kill_all(self) -> list[Job]:
        with self._lock:
            table = self._table
        return table.kill_all() if table is not None else []


class SessionServers:
    """The session's language servers, made on first use (a session that never asks one loads no LSP code)
    and stopped with the session. Without `start_early` an edit never starts one in the background (a
    one-shot command ends before it could answer); a `code` call still starts the one it needs."""

    def __init__(self, *, start_early: bool = True) -> None:
        self.start_early = start_early
        self._host: LanguageServers | None = None
        self._lock = threading.Lock()

    def host(self, loaded: LoadedSettings, log_dir: Path) -> LanguageServers:
        with self._lock:
            if self._host is None:
                from sneakycode.tools.lsp.host import LanguageServers

                self._host = LanguageServers(loaded, log_dir, start_early=self.start_early)
            return self._host

    @property
    def current(self) -> LanguageServers | None:
        """The servers if any part of the session used them."""
        return self._host

    @property
    def serve_edits(self) -> bool:
        """Whether an edit should ask a server about its new text: when servers start early, or one runs (a
        one-shot command's earlier `code` call started it). Else an edit loads no LSP code at all."""
        host = self._host
        return self.start_early or (host is not None and bool(host.running()))

    def close(self) -> None:
        with self._lock:
            host = self._host
        if host is not None:
            host.close()


@dataclass(frozen=True)
class ToolSession:
    """What is fixed for a whole session and shared by every agent in it (the main one, its subagents): the
    workspace guard (with its read ledger and undo journal), the settings, the session folder, the jobs and
    the web cache."""

    workspace: Workspace
    loaded: LoadedSettings
    session_id: str
    session_dir: Path
    jobs: SessionJobs = field(default_factory=SessionJobs)
    web_cache: WebCache = field(default_factory=WebCache)
    lsp: SessionServers = field(default_factory=SessionServers)
    network: SessionNetwork = field(default_factory=SessionNetwork)
    map_build: SessionMapBuild = field(default_factory=SessionMapBuild)


def nothing_hidden(path: str) -> str | None:
    """The `hidden` of a session without deny rules on reading: nothing is hidden, and a tool that would walk
    the workspace for hidden files (the language servers' view) can tell so at once."""
    return None


def _refuse_path(path: str) -> str | None:
    return f"no permission gate decided {path}"


def _refuse_url(url: str) -> str | None:
    return f"no permission gate decided {url}"


@dataclass
class ToolContext:
    """Everything a tool may touch: the session's fixed part (`session`) and what one agent's run holds (its
    cancel signal, task list, output budget, the policy callbacks its gate installed).

    The policy callbacks refuse until a permission gate installs the real ones (every caller goes through
    one), so a context that skipped the gate hides everything rather than nothing."""

    session: ToolSession
    cancel: threading.Event = field(default_factory=threading.Event)
    tasks: list[dict[str, str]] = field(default_factory=list)
    # The deny rule that hides a workspace-relative path from search results (set by the permission gate).
    hidden: Callable[[str], str | None] = field(default=_refuse_path)
    # A tighter cap than max_output_bytes for this run (the agent sets it from a small context window).
    output_budget: int | None = None
    # Whether the run's model accepts images (set from the model); read_file refuses images without it.
    supports_images: bool = False
    # The deny rule that refuses a URL (set by the permission gate), asked again on every redirect hop.
    url_denied: Callable[[str], str | None] = field(default=_refuse_url)
    # The settings with a command's or skill's allowed-tools granted, while its request runs (grants.py).
    granted: LoadedSettings | None = None

    @property
    def workspace(self) -> Workspace:
        return self.session.workspace

    @property
    def loaded(self) -> LoadedSettings:
        """The settings with where each came from, so permission reasons can name a rule's file."""
        return self.granted or self.session.loaded

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def session_dir(self) -> Path:
        return self.session.session_dir

    @property
    def web_cache(self) -> WebCache:
        return self.session.web_cache

    @property
    def settings(self) -> Settings:
        return self.loaded.settings

    @property
    def language_servers(self) -> LanguageServers:
        """The session's language servers (none runs until a call or an edit needs one)."""
        return self.session.lsp.host(self.session.loaded, self.session_dir / "lsp")

    @property
    def output_limit(self) -> int:
        """The most bytes any one tool result may take: max_output_bytes, or output_budget when smaller."""
        limit = self.settings.max_output_bytes
        return limit if self.output_budget is None else min(limit, self.output_budget)

    @property
    def jobs(self) -> JobTable:
        """Commands started with run_command(background=true) by any agent of the session; `close` ends them."""
        return self.session.jobs.table()

    def for_subagent(self) -> ToolContext:
        """A subagent's context: the same session (jobs, ledger, journal, cancel signal), its own task list;
        its gate installs its own policy callbacks."""
        return ToolContext(self.session, cancel=self.cancel, output_budget=self.output_budget,
                           supports_images=self.supports_images, granted=self.granted)

    def close(self) -> list[Job]:
        """The session ends: end its running jobs (process group, SIGTERM then SIGKILL) and return them.
        Its language servers and network proxy are stopped too. Safe to call more than once."""
        try:
            return self.session.jobs.kill_all()
        finally:
            self.session.map_build.close()  # first: it never raises, and stops parsing what nobody will read
            self.session.lsp.close()
            self.session.network.close()


TOOL_TIME_BUDGET = 120.0  # seconds of in-process work any one call may take (commands have their own timeout)


@dataclass(frozen=True)
class Budget:
    """The running call's deadline and cancel signal, for loops deep inside a tool that have no context."""

    tool: str
    deadline: float
    cancel: threading.Event


_running: ContextVar[Budget | None] = ContextVar("running_tool_budget", default=None)


@contextmanager
def running_budget(tool: str, cancel: threading.Event) -> Iterator[None]:
    """The registry runs each call inside this, in the thread that runs it. The budget ends with the call: a
    budget left set made later work in the same thread (the terminal's edit preview after a cancelled call)
    report "cancelled"."""
    token = _running.set(Budget(tool, time.monotonic() + TOOL_TIME_BUDGET, cancel))
    try:
        yield
    finally:
        _running.reset(token)


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


def open_tool_context(loaded: LoadedSettings, *, kind: str = "tool", session: SessionInfo | None = None,
                      one_shot: bool = False) -> ToolContext:
    """A fresh session (or the given one) over the configured workspace; a ConfigError naming the state
    folder when it cannot hold the session (the run cannot start, as with any setting that does not work).
    A `one_shot` session (`sneakycode tool`) starts no language server ahead of need."""
    settings = loaded.settings
    info = session or new_session(state_dir(settings), loaded.workspace, kind=kind)
    workspace = Workspace(
        loaded.workspace,
        max_file_size_bytes=settings.max_file_size_bytes,
        journal=Journal(info.dir),
        extra_roots=loaded.extra_roots,
    )
    return ToolContext(ToolSession(workspace, loaded, info.id, info.dir, lsp=SessionServers(start_early=not one_shot)))
