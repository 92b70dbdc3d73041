"""The Action's Markdown: the job summary of a `-p`, `review` or `batch` run, and the pull request's summary
comment. Cells are escaped, so a finding's text cannot break the table (or open a link the model wrote)."""

from __future__ import annotations

import json
from typing import Any

SEVERITIES = ("error", "warning", "note")
MAX_TEXT = 20_000  # GitHub keeps a step summary under 1 MiB, a comment under 64 KiB


def cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")[:300]


def usd(value: object) -> str:
    return f"${value:.4f}" if isinstance(value, int | float) else "unknown (no price)"


def clipped(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n\n… ({len(text) - MAX_TEXT} more characters)"


def run_summary(result: dict[str, Any], exit_code: int) -> str:
    """A `-p` run: how it ended, what it cost, its answer, the files it changed and the calls refused."""
    usage = result.get("usage") or {}
    cost = result.get("cost") or {}
    lines = [
        "## SneakyCode",
        "",
        "| status | exit code | turns | tool calls | tokens (in / out) | cost |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| {cell(result.get('status'))} | {exit_code} | {result.get('turns', 0)} | {result.get('tool_calls', 0)} | "
        f"{usage.get('prompt_tokens', 0):,} / {usage.get('completion_tokens', 0):,} | {usd(cost.get('usd'))} |",
        "",
    ]
    if result.get("structured_output") is not None:
        lines += ["```json", json.dumps(result["structured_output"], indent=2), "```", ""]
    else:
        lines += [clipped(str(result.get("result", ""))), ""]
    changed = result.get("files_changed") or []
    if changed:
        lines += [f"**Files changed** ({len(changed)}): " + ", ".join(f"`{cell(p)}`" for p in changed[:50]), ""]
    denied = result.get("denied") or []
    if denied:
        lines += [f"**Refused calls** ({len(denied)}):", ""]
        lines += [f"- `{cell(d.get('tool'))}`: {cell(d.get('reason'))}" for d in denied[:20]]
        lines.append("")
    return "\n".join(lines)


def counts(findings: list[dict[str, Any]]) -> str:
    numbers = {s: sum(f.get("severity") == s for f in findings) for s in SEVERITIES}
    return ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in numbers.items())


def findings_table(findings: list[dict[str, Any]]) -> list[str]:
    if not findings:
        return []
    rows = ["| severity | where | finding |", "| --- | --- | --- |"]
    for f in findings:
        where = f"{f.get('path')}:{f.get('line')}" + (f"-{f['end_line']}" if f.get("end_line") else "")
        rows.append(f"| {cell(f.get('severity'))} | `{cell(where)}` | {cell(f.get('title'))} |")
    return [*rows, ""]


def review_summary(review: dict[str, Any], *, fail_on: str, exit_code: int, where: str = "") -> str:
    """The job summary of a review: the model's summary, the counts, every finding."""
    findings = list(review.get("findings") or [])
    lines = ["## SneakyCode review", "", clipped(str(review.get("summary", ""))), "",
             f"**{len(findings)} finding{'s' if len(findings) != 1 else ''}** ({counts(findings)}); "
             f"--fail-on {fail_on}: exit code {exit_code}.", ""]
    if where:
        lines += [where, ""]
    return "\n".join([*lines, *findings_table(findings)])


def pull_request_comment(review: dict[str, Any], outside: list[dict[str, Any]], commit: str) -> str:
    """The pull request's summary comment (one per pull request, edited by each run)."""
    findings = list(review.get("findings") or [])
    lines = ["### SneakyCode review", "", clipped(str(review.get("summary", ""))), "",
             f"**{len(findings)} finding{'s' if len(findings) != 1 else ''}** ({counts(findings)}) "
             f"at {commit[:12]}.", ""]
    if outside:
        lines += ["Not on a changed line, so not commented inline:", "", *findings_table(outside)]
    return "\n".join(lines)


def review_body(placed: int, outside: list[dict[str, Any]]) -> str:
    """The body of the review that carries the inline comments."""
    text = f"SneakyCode commented on {placed} changed line{'s' if placed != 1 else ''}."
    if outside:
        text += f" {len(outside)} more finding{'s' if len(outside) != 1 else ''} in the summary comment."
    return text


def batch_summary(summary: dict[str, Any], results: list[dict[str, Any]], exit_code: int) -> str:
    lines = [
        "## SneakyCode batch", "",
        "| tasks | passed | failed | errored | tokens | cost | exit code |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {summary.get('tasks', 0)} | {summary.get('passed', 0)} | {summary.get('failed', 0)} | "
        f"{summary.get('errored', 0)} | {summary.get('tokens', 0):,} | {usd(summary.get('cost_usd'))} | {exit_code} |",
        "",
    ]  # fmt: skip
    if results:
        lines += ["| task | outcome | status | cost |", "| --- | --- | --- | --- |"]
        lines += [f"| {cell(r.get('id'))} | {cell(r.get('outcome'))} | {cell(r.get('status'))} | "
                  f"{usd(r.get('cost_usd'))} |" for r in results[:200]]
        lines.append("")
    return "\n".join(lines)
