"""Which findings an edit introduced, and how they are told to the model.

Findings of the text before the edit are carried through the edit to the lines they are on now; a finding
after the edit that lands on such a line (with the same message, for checkers) was there already and is
left out, so a file that was already broken somewhere stays quiet about it.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from sneakycode.tools.diagnostics.findings import Finding
from sneakycode.tools.read import number_line

MAX_SHOWN = 5


def line_map(old: Sequence[str], new: Sequence[str]) -> dict[int, range]:
    """1-based old line -> the new lines it became: one line where it is unchanged, every line of the new
    block where the edit replaced it (a broken block the edit rewrote and left broken is still "the same
    place"), none where it was deleted. The common head and tail are matched directly, so the usual small
    edit of a big file costs one pass, not a full diff."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    mapping = {n: range(n, n + 1) for n in range(1, head + 1)}
    shift = len(new) - len(old)
    mapping.update({n: range(n + shift, n + shift + 1) for n in range(len(old) - tail + 1, len(old) + 1)})
    middle_old, middle_new = old[head : len(old) - tail], new[head : len(new) - tail]
    matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "delete":
            continue
        for i in range(i1, i2):
            j = j1 + i - i1
            mapping[head + i + 1] = range(head + j + 1, head + j + 2) if tag == "equal" else range(
                head + j1 + 1, head + j2 + 1
            )
    return mapping


def introduced(
    before: Sequence[Finding], after: Sequence[Finding], mapping: dict[int, range], *, by_message: bool
) -> list[Finding]:
    """The findings of `after` that no finding of `before` accounts for. Syntax errors compare by place
    only (a parser's wording changes with the text around the error); checkers by place and message."""
    old = {(line, f.message if by_message else "") for f in before for line in mapping.get(f.line, ())}
    return [f for f in after if (f.line, f.message if by_message else "") not in old]


def render(findings: Sequence[Finding], lines: Sequence[str]) -> str:
    """`1 new syntax error: line 14: unexpected ')'` and the line, numbered as read_file numbers it; at most
    MAX_SHOWN findings, then how many more."""
    if not findings:
        return ""
    labelled = not _one_source(findings)
    entries = []
    for finding in findings[:MAX_SHOWN]:
        source = f" [{finding.source}]" if labelled and finding.source != "syntax" else ""
        entry = [f"line {finding.line}: {finding.message}{source}"]
        if 1 <= finding.line <= len(lines):
            entry.append(number_line(finding.line, lines[finding.line - 1]))
        entries.append(entry)
    if len(findings) == 1:
        return "\n".join([f"{_headline(findings)} {entries[0][0]}", *entries[0][1:]])
    out = [_headline(findings)]
    for entry in entries:
        out.extend(entry)
    if len(findings) > MAX_SHOWN:
        out.append(f"and {len(findings) - MAX_SHOWN} more.")
    return "\n".join(out)


def _one_source(findings: Sequence[Finding]) -> bool:
    return len({f.source for f in findings}) == 1


def _headline(findings: Sequence[Finding]) -> str:
    count = len(findings)
    sources = {f.source for f in findings}
    if sources == {"syntax"}:
        return f"{count} new syntax error{'' if count == 1 else 's'}:"
    if len(sources) == 1:
        return f"{count} new finding{'' if count == 1 else 's'} from {next(iter(sources))}:"
    return f"{count} new problems:"
