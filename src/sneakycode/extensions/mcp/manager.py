"""The MCP servers of one session: started together when it starts, their tools handed to the model (all of
them, or `mcp_search` when they would exceed the tool budget), a server that fails withdrawn with one
report, and every server stopped when the session ends.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sneakycode.config import LoadedSettings
from sneakycode.extensions.mcp.config import HeldBack, ServerSpec, configured_servers
from sneakycode.extensions.mcp.search import schema_chars, search_tool
from sneakycode.tools.base import Tool

if TYPE_CHECKING:
    # The SDK (and its HTTP client) load only when a server is configured: a run without one starts as fast.
    from sneakycode.extensions.mcp.connection import Connection
    from sneakycode.extensions.mcp.prompts import McpPrompt
    from sneakycode.extensions.mcp.tools import McpTool

# Beyond the slowest startup_timeout: the time a failed start takes to stop its process.
_SETTLE_SLACK_SECONDS = 5.0
_STOP_SECONDS = 10.0


class ToolHost(Protocol):
    """The session the tools are offered in (the Agent): tools join or leave its list between requests."""

    def offer_tools(self, tools: tuple[Tool, ...]) -> None: ...

    def withdraw_tools(self, names: Collection[str], note: str) -> None: ...


@dataclass(frozen=True)
class ServerRow:
    """One line of `sneakycode mcp list` and `/mcp`."""

    name: str
    status: str
    tools: int | None
    target: str
    origin: str
    detail: str = ""


class McpServers:
    """Start with `start()`; `tools()` is what to offer; `close()` (always, in a finally) stops everything."""

    def __init__(self, loaded: LoadedSettings, log_dir: Path) -> None:
        self.loaded = loaded
        self.log_dir = log_dir
        self.specs, self.held_back = configured_servers(loaded)
        self.connections: list[Connection] = []
        self.notices: list[str] = []
        self.host: ToolHost | None = None
        self._tools: dict[str, list[McpTool]] = {}
        self.prompts: list[McpPrompt] = []
        self._withdrawn: set[str] = set()
        self._lock = threading.Lock()
        self._stack = ExitStack()

    def start(self) -> None:
        """Start every enabled server at once and wait until each is up or has failed (each within its
        startup_timeout); what failed goes to `notices`, with its stderr tail."""
        runnable = [spec for spec in self.specs if spec.settings.enabled and spec.problem is None]
        for spec in self.specs:
            if spec.settings.enabled and spec.problem is not None:
                self.notices.append(f"MCP server {spec.name} ({spec.origin}) was not started: {spec.problem}.")
        if self.held_back:
            self.notices.append(held_back_notice(self.held_back))
        if not runnable:
            return
        from anyio.from_thread import start_blocking_portal

        from sneakycode.extensions.mcp.connection import Connection
        from sneakycode.extensions.mcp.prompts import server_prompts
        from sneakycode.extensions.mcp.tools import adapt_tools

        portal = self._stack.enter_context(start_blocking_portal(name="sneakycode-mcp"))
        for spec in runnable:
            connection = Connection(spec, self.loaded.workspace, self.log_dir, portal)
            self.connections.append(connection)
            connection.start()
        deadline = time.monotonic() + max(s.settings.startup_timeout for s in runnable) + _SETTLE_SLACK_SECONDS
        taken: set[str] = set()
        prompt_names: set[str] = set()
        for connection in self.connections:
            connection.settled.wait(max(0.0, deadline - time.monotonic()))
            if connection.status == "ready":
                self._tools[connection.name] = adapt_tools(
                    connection, taken, self.mark_unavailable, self.notices.append
                )
                self.prompts += server_prompts(connection, prompt_names, self.mark_unavailable)
            else:
                self.notices.append(self._failure_report(connection, "did not start"))

    def tools(self) -> tuple[Tool, ...]:
        """Every server tool, or just `mcp_search` when their schemas exceed mcp.max_tool_chars."""
        everything = self.live_tools()
        if not everything:
            return ()
        if schema_chars(everything) <= self.loaded.settings.mcp.max_tool_chars:
            return tuple(everything)
        return (search_tool(self.live_tools, lambda: self.host.offer_tools if self.host else None),)

    def live_tools(self) -> list[Tool]:
        with self._lock:
            return [t for name, tools in self._tools.items() if name not in self._withdrawn for t in tools]

    def connected(self, name: str) -> Connection | None:
        """The server called `name` if it started (it may have stopped since: a request then says so)."""
        return next((c for c in self.connections if c.name == name and c.name in self._tools), None)

    def attach(self, host: ToolHost) -> None:
        self.host = host

    def mark_unavailable(self, connection: Connection) -> None:
        """A request found the server down: withdraw its tools and say so, once."""
        with self._lock:
            if connection.name in self._withdrawn:
                return
            self._withdrawn.add(connection.name)
            names = [t.name for t in self._tools.get(connection.name, [])]
        report = self._failure_report(connection, "stopped", f"Its {len(names)} tool(s) were withdrawn.")
        if self.host is not None:
            self.host.withdraw_tools(names, report)

    def _failure_report(self, connection: Connection, what: str, then: str = "") -> str:
        reason = connection.error or connection.status
        notes = "".join(f" {note}" for note in [*connection.process.notes, then] if note)  # why it was stopped
        tail = connection.stderr_tail()
        said = f"\nIts stderr ended with:\n{_indent(tail)}" if tail else ""
        log = f" (log: {connection.process.stderr_log})" if tail else ""
        return f"MCP server {connection.name} {what}: {reason}{log}.{notes}{said}"

    def rows(self) -> list[ServerRow]:
        """Every configured or held-back server with its status and tool count, for listings."""
        by_name = {c.name: c for c in self.connections}
        rows = []
        for spec in self.specs:
            rows.append(_row(spec, by_name.get(spec.name)))
        rows.extend(ServerRow(h.name, "not trusted", None, h.target, h.origin, "run `sneakycode trust`")
                    for h in self.held_back)
        return rows

    def close(self) -> None:
        """Stop every server (closing each connection stops its process) and the event-loop thread."""
        for connection in self.connections:
            with contextlib.suppress(Exception):
                connection.request_stop()
        deadline = time.monotonic() + _STOP_SECONDS
        for connection in self.connections:
            connection.wait_stopped(max(0.1, deadline - time.monotonic()))
        self._stack.close()


def _row(spec: ServerSpec, connection: Connection | None) -> ServerRow:
    if spec.problem is not None:
        return ServerRow(spec.name, "misconfigured", None, spec.target, spec.origin, spec.problem)
    if not spec.settings.enabled:
        return ServerRow(spec.name, "disabled", None, spec.target, spec.origin)
    if connection is None:
        return ServerRow(spec.name, "not started", None, spec.target, spec.origin)
    status = "connected" if connection.status == "ready" else connection.status
    detail = connection.error or ""
    return ServerRow(spec.name, status, len(connection.tools) if connection.status == "ready" else None,
                     spec.target, spec.origin, detail)


def held_back_notice(held: list[HeldBack]) -> str:
    listed = ", ".join(f"{h.name} ({h.origin})" for h in held)
    return (f"MCP servers were not started because this workspace is not trusted: {listed}. Read those files; "
            "to use them, run `sneakycode trust` in this workspace (or pass --trust-project for one run).")


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


@contextlib.contextmanager
def running_servers(loaded: LoadedSettings, log_dir: Path) -> Iterator[McpServers]:
    """Servers started for a block (`sneakycode mcp list`); always stopped at its end."""
    servers = McpServers(loaded, log_dir)
    try:
        servers.start()
        yield servers
    finally:
        servers.close()
