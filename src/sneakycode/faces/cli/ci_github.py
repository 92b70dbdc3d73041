"""The GitHub REST API as the Action uses it: a review with inline comments on the pull request's changed
lines, and one summary comment that re-runs update instead of repeating.

Only the workflow's token is used, and only against GITHUB_API_URL (redirects are not followed, so the token
never goes anywhere else). Anyone may comment on a pull request, so the markers that find the earlier summary
comment and the findings already commented count only in comments a bot (the workflow's token acts as
github-actions[bot]) or someone with write access wrote: a planted marker neither makes the action edit
another person's comment nor hides a finding. Findings that do not sit on a line the pull request changed
(GitHub refuses a comment there with 422) are listed in the review's body instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2

SUMMARY_MARKER = "<!-- sneakycode:review-summary -->"
FINDING_MARKER = "<!-- sneakycode:finding:{} -->"
_FINDING = re.compile(r"<!-- sneakycode:finding:([0-9a-f]{12}) -->")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
PAGE = 100
MAX_PAGES = 30  # 3,000 files or comments: GitHub's own limit for a pull request's files
SEVERITY_ICON = {"error": "🔴", "warning": "🟠", "note": "🔵"}
# Who may have written a comment the action wrote: a bot, or (a personal token) someone with write access.
WRITERS = ("OWNER", "MEMBER", "COLLABORATOR")


class GitHubError(Exception):
    """A request GitHub refused or that did not reach it; the message says which and what to check."""


@dataclass
class Placement:
    """Where each finding goes: an inline comment (the API's comment object), or the review body."""

    inline: list[dict[str, Any]] = field(default_factory=list)
    elsewhere: list[dict[str, Any]] = field(default_factory=list)
    already: int = 0
    """Findings an earlier run of this action already commented on the same line."""


class GitHub:
    """A client for one repository, with the workflow's token."""

    def __init__(self, api_url: str, repository: str, token: str, *, timeout: float = 30.0) -> None:
        if not api_url.startswith(("https://", "http://")):
            raise GitHubError(f"GITHUB_API_URL must be an http(s) URL, got {api_url!r}")
        self.repository = repository
        self._client = httpx2.Client(
            base_url=api_url.rstrip("/"), timeout=timeout, follow_redirects=False,
            headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json",
                     "X-GitHub-Api-Version": "2022-11-28", "User-Agent": "sneakycode-action"},
        )  # fmt: skip

    def close(self) -> None:
        self._client.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._client.request(method, f"/repos/{self.repository}{path}", **kwargs)
        except httpx2.HTTPError as exc:
            raise GitHubError(f"{method} {path}: {type(exc).__name__}: {exc}") from None
        if response.status_code >= 300:
            hint = " (a pull request from a fork gets a read-only token)" if response.status_code in (403, 404) else ""
            message = _message(response)
            raise GitHubError(f"{method} {path}: HTTP {response.status_code} {message}{hint}")
        return response.json() if response.content else None

    def pages(self, path: str) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list."""
        for page in range(1, MAX_PAGES + 1):
            items = self.request("GET", path, params={"per_page": PAGE, "page": page})
            if not isinstance(items, list):
                return
            yield from items
            if len(items) < PAGE:
                return

    # ---- the review ------------------------------------------------------------------------------------

    def changed_lines(self, number: int) -> dict[str, dict[int, int]]:
        """For each file of the pull request, the new-side lines a comment may go on, with their hunk's number."""
        files = self.pages(f"/pulls/{number}/files")
        return {item["filename"]: commentable_lines(item.get("patch") or "") for item in files}

    def commented_findings(self, number: int) -> set[str]:
        """The findings this action commented on before (by the marker in its comments)."""
        found: set[str] = set()
        for comment in self.pages(f"/pulls/{number}/comments"):
            if could_be_ours(comment):
                found.update(_FINDING.findall(comment.get("body") or ""))
        return found

    def post_review(self, number: int, commit: str, body: str, comments: list[dict[str, Any]]) -> dict[str, Any]:
        payload = {"commit_id": commit, "event": "COMMENT", "body": body, "comments": comments}
        return dict(self.request("POST", f"/pulls/{number}/reviews", json=payload) or {})

    def upsert_summary(self, number: int, body: str) -> tuple[str, dict[str, Any]]:
        """The pull request's summary comment: the earlier one (found by its marker) edited, else a new one."""
        text = f"{SUMMARY_MARKER}\n{body}"
        for comment in self.pages(f"/issues/{number}/comments"):
            if SUMMARY_MARKER in (comment.get("body") or "") and could_be_ours(comment):
                updated = self.request("PATCH", f"/issues/comments/{comment['id']}", json={"body": text})
                return "updated", dict(updated or {})
        return "created", dict(self.request("POST", f"/issues/{number}/comments", json={"body": text}) or {})


def could_be_ours(comment: dict[str, Any]) -> bool:
    """Whether the action may have written `comment`: by a bot, or by someone with write access."""
    user = comment.get("user") or {}
    return (isinstance(user, dict) and user.get("type") == "Bot") or comment.get("author_association") in WRITERS


def _message(response: httpx2.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200]
    return str(data.get("message", ""))[:200] if isinstance(data, dict) else ""


def commentable_lines(patch: str) -> dict[int, int]:
    """The new-side line numbers a unified diff shows (added or context), each with the number of its hunk:
    the lines GitHub accepts a review comment on with side RIGHT."""
    lines: dict[int, int] = {}
    current = 0
    hunk = -1
    for row in patch.splitlines():
        header = _HUNK.match(row)
        if header:
            current, hunk = int(header.group(1)), hunk + 1
            continue
        if hunk < 0 or row.startswith(("-", "\\")):
            continue
        lines[current] = hunk
        current += 1
    return lines


def finding_key(finding: dict[str, Any]) -> str:
    """A stable name for a finding (file, line, title), so a re-run does not comment it twice."""
    text = f"{finding.get('path')}\0{finding.get('line')}\0{finding.get('title')}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def place(findings: list[dict[str, Any]], changed: dict[str, dict[int, int]], seen: set[str]) -> Placement:
    """Inline comments for findings on changed lines (those not already commented), the rest for the body."""
    placement = Placement()
    for finding in findings:
        lines = changed.get(str(finding.get("path")), {})
        line, end = finding.get("line"), finding.get("end_line")
        if not isinstance(line, int) or line not in lines:
            placement.elsewhere.append(finding)
            continue
        key = finding_key(finding)
        if key in seen:
            placement.already += 1
            continue
        comment: dict[str, Any] = {"path": finding["path"], "side": "RIGHT", "body": comment_body(finding, key)}
        if isinstance(end, int) and end > line and lines.get(end) == lines[line] and all(
            n in lines for n in range(line, end + 1)
        ):
            comment.update(start_line=line, start_side="RIGHT", line=end)
        else:
            comment["line"] = line
        placement.inline.append(comment)
    return placement


def comment_body(finding: dict[str, Any], key: str) -> str:
    """An inline comment: severity and title, the explanation, a suggestion block GitHub can apply."""
    severity = str(finding.get("severity", "note"))
    parts = [f"{SEVERITY_ICON.get(severity, '')} **{severity}: {finding.get('title', '')}**".strip(),
             str(finding.get("body", "")).strip()]
    suggestion = finding.get("suggestion")
    if isinstance(suggestion, str):
        fence = "`" * max(3, longest_backtick_run(suggestion) + 1)
        parts.append(f"{fence}suggestion\n{suggestion.rstrip(chr(10))}\n{fence}")
    parts.append(FINDING_MARKER.format(key))
    return "\n\n".join(part for part in parts if part)


def longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
