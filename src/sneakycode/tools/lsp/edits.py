"""A running language server's side of an edit: it is shown the file's new text (didOpen, then didChange), so
its later answers match the disk, and what it then publishes joins the new-errors-only report.

Never holds an edit hostage: a server that is not up yet is started in the background and skipped this time,
and one that does not publish within lsp.diagnostics_wait (for the old text when it has not yet, then for the
new one) is skipped with a note. Only errors count (a type
checker's warnings and hints are advice, not breakage).

A file a deny rule hides is never shown to a server, and a server that could read such files (not `sealed`,
hiding.py) reports nothing: its messages may quote them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.errors import ToolError
from sneakycode.tools.context import ToolContext
from sneakycode.tools.diagnostics.findings import Finding
from sneakycode.tools.lsp.host import refresh, stamp_of, workspace_reader
from sneakycode.tools.lsp.servers import language_id

if TYPE_CHECKING:  # lsprotocol and pygls load when a server starts, not on every edit of a file it could serve
    from lsprotocol import types as lsp

    from sneakycode.tools.lsp.client import LspClient


@dataclass
class ServerReport:
    """What a server said about the new text, and about the old one (None: not known in time)."""

    findings: list[Finding] = field(default_factory=list)
    earlier: list[Finding] | None = None
    notes: list[str] = field(default_factory=list)


def server_findings(ctx: ToolContext, real: Path, language: str, before: str | None, after: str) -> ServerReport | None:
    """The errors a running server reports for `after` (and reported for `before`), or None when no server for
    `language` is up (it is then started for the next edit)."""
    if not ctx.settings.lsp.enabled:
        return None
    servers = ctx.language_servers
    spec = servers.spec_for(language)
    if spec is None:
        return None
    if ctx.hidden(ctx.workspace.display(real)) is not None:
        return None
    try:
        client = servers.ready_client(spec, real, servers.view(ctx.hidden))
    except ToolError:
        return None
    if client is None:
        return None
    if not client.sealed:
        return ServerReport(notes=[f"Note: {spec.name}'s findings are not shown: it could not be kept from the "
                                   "files a deny rule hides, so they may quote them."])
    wait = ctx.settings.lsp.diagnostics_wait
    read = workspace_reader(ctx.workspace, ctx.hidden)
    stamp = stamp_of(real) or (0, 0)

    async def check() -> tuple[list[lsp.Diagnostic] | None, list[lsp.Diagnostic] | None]:
        refresh(client, read, skip=real)  # this file is the edit's own business
        kind = language_id(language)
        earlier: list[lsp.Diagnostic] | None = []
        if before is not None:
            earlier = _current(client, real, before)
            if earlier is None:
                count = client.publishes(real)
                client.show(real, before, kind, (0, 0))
                earlier = await client.diagnostics_after(real, count, wait)
        count = client.publishes(real)
        if not client.show(real, after, kind, stamp):
            return earlier, _current(client, real, after)
        return earlier, await client.diagnostics_after(real, count, wait)

    try:
        earlier, now = servers.run(check, ctx.cancel)
    except ToolError:
        return ServerReport(notes=[f"Note: language server {spec.name} could not check the edit; it is restarted "
                                   "on the next `code` call."])
    name = spec.name
    if now is None and not client.alive:
        return ServerReport(notes=[f"Note: language server {name} {_ended(client)} while checking the edit; its "
                                   "findings are not shown (the next `code` call starts it again)."])
    if now is None:
        return ServerReport(notes=[f"Note: {name} had not reported on the edit within {wait:g} s; its findings are "
                                   "not shown."])
    report = ServerReport(_errors(now, name), None if earlier is None else _errors(earlier, name))
    if earlier is None:
        report.notes.append(f"Note: {name} did not report on the file before the edit in time, so errors it "
                            "already had are shown too.")
    return report


def _current(client: LspClient, real: Path, text: str) -> list[lsp.Diagnostic] | None:
    """What the server last published for `real`, if that was about `text`."""
    held = client.documents.get(real.as_uri())
    seen = client.published.get(real.as_uri())
    if held is None or seen is None or held.text != text or seen.count == 0:
        return None
    return seen.diagnostics if seen.version in (None, held.version) else None


def _errors(diagnostics: list[lsp.Diagnostic], source: str) -> list[Finding]:
    from lsprotocol import types as lsp  # loaded already: only a running server's answers come here

    return [
        Finding(d.range.start.line + 1, " ".join(d.message.split()), source, d.range.start.character + 1)
        for d in diagnostics
        if d.severity in (None, lsp.DiagnosticSeverity.Error)
    ]


def _ended(client: LspClient) -> str:
    code = client.process.returncode if client.process is not None else None
    return "exited" if code is not None or (client.failure or "").startswith("exited") else "stopped"
