"""Running a review: one Session (through the Python API, like every face) in plan mode with the read-only
tools, whose every request must end with the findings schema as structured output; one request per part of
the change (review/plan.py); the findings placed on lines the diff shows (review/findings.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from sneakycode.api.options import Options
from sneakycode.api.result import Result
from sneakycode.review.findings import Finding, findings_schema, place_findings
from sneakycode.review.plan import part_budget, plan_parts, review_request

if TYPE_CHECKING:
    from sneakycode.agent.protocol import EventSink
    from sneakycode.api.session import Session
    from sneakycode.permissions.gate import Unattended
    from sneakycode.review.diff import Change


@dataclass
class Review:
    """What a review found. `failed` is the Result of the request that ended without findings (a budget, an
    error, an answer that never matched the schema); then the review has no verdict."""

    summary: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # findings moved or dropped to point into the diff
    parts: int = 0
    failed: Result | None = None
    last: Result | None = None  # the last request's Result: the session's cost so far, its id


def review_tools() -> list[str]:
    """The tools a review offers: those that run without asking and change nothing (reads, searches, finish)."""
    from sneakycode.tools.base import Tier
    from sneakycode.tools.registry import all_tools

    return [tool.name for tool in all_tools() if tool.tier is Tier.AUTO and tool.read_only]


class Reviewer:
    """Reviews changes with the model `options` name; `cancel` (from any thread) stops the running request."""

    def __init__(self, options: Options, *, sink: EventSink | None = None, unattended: Unattended | None = None,
                 on_start: Callable[[Session], None] | None = None) -> None:
        self.options = options
        self.sink = sink
        self.unattended = unattended
        self.on_start = on_start
        self.session: Session | None = None
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.session is not None:
            self.session.cancel()

    def review(self, change: Change) -> Review:
        """Review `change`; ConfigError when the model cannot be set up (nothing was sent)."""
        from sneakycode.api.session import Session

        if not change.files:
            return Review(f"Nothing to review: no file changed in {change.described}.")
        options = replace(self.options, workspace=change.root, mode="plan", enabled_tools=review_tools(),
                          output_schema=findings_schema())
        with Session(options, sink=self.sink, unattended=self.unattended) as session:
            self.session = session
            if self.on_start is not None:
                self.on_start(session)
            parts = plan_parts(change, part_budget(session.config.context_window))
            summaries: list[str] = []
            found: list[Finding] = []
            for number, part in enumerate(parts, 1):
                if self.cancelled:  # between two parts: the next one is not started
                    stopped = Result("cancelled", f"Cancelled before part {number} of {len(parts)}.",
                                     session_id=session.session_id)
                    return Review(stopped.message, parts=len(parts), failed=stopped, last=stopped)
                result = session.run(review_request(change, part, number, len(parts)))
                if result.structured_output is None:
                    return Review(result.message, parts=len(parts), failed=result, last=result)
                summaries.append(result.structured_output["summary"])
                found.extend(result.structured_output["findings"])
                if len(parts) > 1:
                    summaries[-1] = f"Part {number} of {len(parts)} ({', '.join(part.names())}): {summaries[-1]}"
        placed = place_findings(found, change)
        return Review("\n\n".join(summaries), placed.findings, placed.notes, len(parts), last=result)
