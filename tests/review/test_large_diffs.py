"""A diff larger than a share of the window is reviewed in parts, file by file, a file too large split by hunks
and a hunk too large split into sub-hunks with true headers: every changed line reaches the model exactly
once with its true line number, and the findings of every part are reported (never cut silently)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sneakycode.testing.server import ScriptedServer
from tests.review.conftest import answer, commit_all, diff_sent, finding, review

WINDOW = 8192  # tokens: a part carries at most a third of it, 8,190 characters of diff
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@", re.MULTILINE)


def lines_of(name: str, count: int, width: int = 44) -> list[str]:
    return [f"{name}_{n:04d} = '{'x' * width}'" for n in range(1, count + 1)]


def test_a_large_diff_is_reviewed_file_by_file_with_every_line_once(repo: Path) -> None:
    files = {"a.py": lines_of("a", 30), "b.py": lines_of("b", 30), "c.py": lines_of("c", 150)}
    for name, lines in files.items():
        (repo / name).write_text("\n".join(lines) + "\n")
    commit_all(repo, "three files")
    changed = {name: [line.replace("'x", "'y") for line in lines] for name, lines in files.items()}
    for name, lines in changed.items():
        (repo / name).write_text("\n".join(lines) + "\n")
    parts = 4  # a.py and b.py together; c.py's one 300-line hunk (17,000 characters) in three sub-hunks
    steps = [answer(f"part {n}", finding("c.py", 140, "warning")) if n == parts else answer(f"part {n}")
             for n in range(1, parts + 1)]
    script = {"steps": steps, "no_tools_reply": {"content": "Summary of the review so far."}}
    with ScriptedServer(script) as server:
        result = review(server, repo, "--output-format", "json", env={"SNEAKYCODE_CONTEXT_WINDOW": str(WINDOW)})
        asking = [n for n, r in enumerate(server.chat_requests)  # each part's first request (not the summaries)
                  if r.get("tools") and str(r["messages"][-1]["content"]).startswith("Review ")]
        sent = [diff_sent(server, n) for n in asking]
        asks = [str(server.chat_requests[n]["messages"][-1]["content"]) for n in asking]
    assert result.code == 0, result.stderr
    assert len(sent) == parts and all(len(text) <= WINDOW // 3 * 3 for text in sent)
    assert all(f"part {n} of {parts}" in ask for n, ask in enumerate(asks, 1))
    seen: dict[str, list[str]] = {name: [] for name in files}
    for text in sent:
        for section in text.split("diff --git a/")[1:]:
            name = section.split(" ", 1)[0]
            for start, body in zip(HUNK.findall(section), HUNK.split(section)[2::2], strict=True):
                number = int(start)
                for line in body.strip("\n").split("\n"):
                    if line.startswith("+"):
                        assert changed[name][number - 1] == line[1:]  # the sub-hunk's header is true
                        seen[name].append(line[1:])
                    if line[:1] in (" ", "+"):
                        number += 1
    assert seen == changed  # every changed line once, in order, nothing cut
    shown = json.loads(result.stdout)
    assert shown["summary"].startswith("Part 1 of 4 (a.py, b.py): part 1") and "Part 4 of 4 (c.py): part 4" in \
        shown["summary"]
    assert [(f["path"], f["line"]) for f in shown["findings"]] == [("c.py", 140)]
    assert "in 4 request(s)" in result.stderr
    assert "context compacted" in result.stderr  # the session's compaction made room between the parts
