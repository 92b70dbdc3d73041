"""The doctor's report as text for a terminal: one line per check, and under a check that did not pass, the
layer at fault and the fix."""

from __future__ import annotations

import json
import textwrap

from sneakycode.doctor.checks import Report

_MARK = {"pass": "pass", "warn": "WARN", "fail": "FAIL", "skip": "skip"}
WIDTH = 100


def render_text(report: Report) -> str:
    server = f", {report.server_kind} server" if report.server_kind else ""
    lines = [f"sneakycode doctor: {report.model} at {report.base_url} ({report.provider}{server})", ""]
    width = max(len(check.name) for check in report.checks) if report.checks else 0
    indent = " " * (width + 10)
    for check in report.checks:
        head = f"  {_MARK[check.verdict]}  {check.name.ljust(width)}  "
        lines.append(textwrap.fill(check.measured, WIDTH, initial_indent=head, subsequent_indent=indent))
        if check.verdict in ("warn", "fail") and (check.layer or check.fix):
            fault = f"at fault: {check.layer}. " if check.layer else ""
            fix = f"fix: {check.fix}" if check.fix else ""
            lines.append(textwrap.fill(fault + fix, WIDTH, initial_indent=indent, subsequent_indent=indent + "  "))
    if report.settings:
        shown = ", ".join(f"{key} = {json.dumps(value)}" for key, value in report.settings.items())
        lines += ["", f"Settings that worked for {report.model}: {shown}"]
        lines.append(f"  written to {report.saved_to}" if report.saved_to else
                     "  (`sneakycode doctor --save` writes them to your config for this model)")
    counts = report.counts()
    words = {"pass": "passed", "warn": "warning", "fail": "failed", "skip": "skipped"}
    summary = ", ".join(f"{n} {words[v]}{'s' if v == 'warn' and n > 1 else ''}" for v, n in counts.items() if n)
    lines += ["", f"{summary}: {'not ready (exit 1)' if report.failed else 'ready (exit 0)'}"]
    return "\n".join(lines)
