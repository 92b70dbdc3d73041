"""Findings: the published schema (findings.schema.json beside this module), the severities, and where a
finding may point.

A finding must point at a line the diff shows (inside one of its file's hunks, on the new side): that is what
GitHub accepts for an inline comment, and it keeps a review about the change. One that points elsewhere in a
file of the diff is moved to the nearest line the diff shows, with a note in its body; one about a file the
diff does not touch (or a file it deletes or a binary one, which have no lines to point at) is dropped, and
the review says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from sneakycode.review.diff import Change, FileDiff

SEVERITIES = ("note", "warning", "error")  # in rising order: --fail-on counts this one and those after it
Finding = dict[str, Any]  # one item of the schema's `findings`


@cache
def findings_schema() -> dict[str, Any]:
    """The published JSON Schema of a review's findings."""
    loaded: dict[str, Any] = json.loads(files("sneakycode.review").joinpath("findings.schema.json").read_text())
    return loaded


def at_or_above(severity: str, threshold: str) -> bool:
    return SEVERITIES.index(severity) >= SEVERITIES.index(threshold)


@dataclass
class Placed:
    """Findings that point into the diff, and what was moved or dropped to get there (said to the user)."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def place_findings(found: list[Finding], change: Change) -> Placed:
    """Keep each finding on a line the diff shows: moved there when it points elsewhere in a file of the diff,
    dropped (with a note) when its file is not in the diff or has no lines to point at."""
    by_path = {f.path: f for f in change.files}
    by_old = {f.old_path: f for f in change.files if f.old_path}
    placed = Placed()
    for finding in found:
        where = f"{finding['path']}:{finding['line']} ({finding['title']})"
        target = _file_of(finding["path"], by_path, by_old)
        if target is None:
            placed.notes.append(f"dropped a finding on {where}: the diff does not touch that file")
            continue
        regions = [h.new_range for h in target.hunks]
        if target.deleted or target.binary or not regions:
            kind = "deletes" if target.deleted else "shows no lines of"
            placed.notes.append(f"dropped a finding on {where}: the diff {kind} that file")
            continue
        placed.findings.append(_into(finding, target.path, regions, placed.notes, where))
    return placed


def _file_of(path: str, by_path: dict[str, FileDiff], by_old: dict[str, FileDiff]) -> FileDiff | None:
    for candidate in (path, path.removeprefix("./"), path.removeprefix("b/"), path.removeprefix("a/")):
        if candidate in by_path:
            return by_path[candidate]
        if candidate in by_old:  # the model named a renamed file by its old name
            return by_old[candidate]
    return None


def _into(finding: Finding, path: str, regions: list[tuple[int, int]], notes: list[str], where: str) -> Finding:
    line = int(finding["line"])
    end = int(finding.get("end_line", line))
    shown = dict(finding, path=path)
    region = next((r for r in regions if r[0] <= line <= r[1]), None)
    if region is None:
        region = min(regions, key=lambda r: min(abs(line - r[0]), abs(line - r[1])))
        moved = region[0] if line < region[0] else region[1]
        notes.append(f"moved a finding on {where} to line {moved}, the nearest line the diff shows")
        shown["body"] = (f"{shown['body']}\n\n(Moved from line {line}, which the diff does not show.)").lstrip()
        shown["line"] = line = moved
        end = moved
        shown.pop("suggestion", None)  # it was written for other lines
    if end > region[1]:  # a range leaving its hunk: cut at the hunk's end; its suggestion no longer fits
        notes.append(f"cut the range of the finding on {where} at line {region[1]}, the end of its hunk")
        end = region[1]
        shown.pop("suggestion", None)
    if end > line:
        shown["end_line"] = end
    else:
        shown.pop("end_line", None)
    return shown


def count_by_severity(found: list[Finding]) -> dict[str, int]:
    return {severity: sum(1 for f in found if f["severity"] == severity) for severity in reversed(SEVERITIES)}
