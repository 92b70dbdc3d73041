"""The one call the file tools make after writing: what the edit broke, as a few lines for the result.

Costs nothing when the new text parses and no checker is configured beyond one parse; the text before the
edit is only examined when the new text has findings to filter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.tools.context import ToolContext
from sneakycode.tools.diagnostics.checkers import Checker
from sneakycode.tools.diagnostics.findings import Finding
from sneakycode.tools.diagnostics.languages import language_of
from sneakycode.tools.diagnostics.report import introduced, line_map, render
from sneakycode.tools.diagnostics.syntax import syntax_errors
from sneakycode.tools.read import split_lines

# A parse of a text this big takes long enough to notice; files that size are data, not code being edited.
MAX_CHECKED_CHARS = 2_000_000


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The lines to add under the edit's status line ("" when there is nothing to say)."""
        return "\n".join(part for part in (render(self.findings, self.lines), *self.notes) if part)

    def data(self) -> dict[str, Any]:
        if not self.findings and not self.notes:
            return {}
        return {"diagnostics": [f.as_data() for f in self.findings], "diagnostic_notes": self.notes}

    def add_to(self, message: str) -> str:
        told = self.text()
        return f"{message}\n{told}" if told else message


def diagnose_edit(ctx: ToolContext, real: Path, before: str | None, after: str) -> Diagnosis:
    """What the edit from `before` (None: the file is new) to `after` introduced in the file at `real`."""
    settings = ctx.settings.diagnostics
    if not settings.enabled:
        return Diagnosis()
    try:
        return _diagnose(ctx, real, before, after)
    except Exception as exc:  # the edit is written: a bug here must not turn it into a reported failure
        return Diagnosis(notes=[f"Note: the edit was not checked for errors ({type(exc).__name__}: {exc})."])


def _diagnose(ctx: ToolContext, real: Path, before: str | None, after: str) -> Diagnosis:
    language = language_of(real.name, after)
    if language is None:
        return Diagnosis()
    if len(after) > MAX_CHECKED_CHARS:
        return Diagnosis(notes=[f"Note: not checked for errors (over {MAX_CHECKED_CHARS:,} characters)."])
    lines = split_lines(after)
    old_lines = split_lines(before) if before is not None else None
    found = syntax_errors(language, after)
    if found and before is not None and old_lines is not None:
        found = introduced(syntax_errors(language, before), found, line_map(old_lines, lines), by_message=False)
    diagnosis = Diagnosis(found, [], lines)
    _add_server_findings(ctx, diagnosis, real, language, before, after, old_lines)
    settings = ctx.settings.diagnostics
    template = settings.checkers.get(language, "").strip()
    if not template:
        return diagnosis
    checker = Checker(template, ctx.workspace.root, settings.timeout, ctx.cancel)
    if found:
        diagnosis.notes.append("Configured checkers run once the syntax errors are fixed.")
        return diagnosis
    checked = checker.run(real)
    diagnosis.notes.extend(checked.notes)
    findings = checked.findings
    if findings and before is not None and old_lines is not None:
        earlier = checker.run_on_text(real, before)
        if earlier.notes:
            diagnosis.notes.append("Note: the file before the edit could not be checked, so findings it already "
                                   "had are shown too.")
        findings = introduced(earlier.findings, findings, line_map(old_lines, lines), by_message=True)
    diagnosis.findings = sorted([*diagnosis.findings, *findings], key=lambda f: (f.line, f.column or 0))
    return diagnosis


def _add_server_findings(ctx: ToolContext, diagnosis: Diagnosis, real: Path, language: str, before: str | None,
                         after: str, old_lines: list[str] | None) -> None:
    """A running language server's errors the edit introduced (it is shown the edit either way, so its answers
    stay in step); left out where the parser already found syntax errors, which the server would repeat."""
    if not ctx.settings.lsp.enabled or not ctx.session.lsp.serve_edits:
        return
    if ctx.language_servers.spec_for(language) is None:
        return
    from sneakycode.tools.lsp.edits import server_findings  # the LSP client loads only where a server serves

    report = server_findings(ctx, real, language, before, after)
    if report is None:
        return
    diagnosis.notes.extend(report.notes)
    findings = report.findings
    if diagnosis.findings or not findings:
        return
    if report.earlier is not None and old_lines is not None:
        findings = introduced(report.earlier, findings, line_map(old_lines, diagnosis.lines), by_message=True)
    diagnosis.findings = sorted(findings, key=lambda f: (f.line, f.column or 0))
