"""A fake GitHub REST API on 127.0.0.1 for the Action's tests: one pull request's files (with their patches),
its review comments and issue comments, kept as GitHub keeps them; every request recorded (method, path,
headers, JSON body) so a test sees exactly what the action sent."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.local_server import LocalServer, QuietHandler


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    repository: str
    number: int
    files: list[dict[str, Any]]
    refuse_reviews: int | None = None  # answer POST .../reviews with this status (a fork's read-only token)
    requests: list[Recorded] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    # Who the token acts as: the workflow's token comments as github-actions[bot].
    author: dict[str, Any] = field(default_factory=lambda: {
        "user": {"login": "github-actions[bot]", "type": "Bot"}, "author_association": "NONE"})

    def __enter__(self) -> FakeGitHub:
        fake = self
        lock = threading.Lock()

        class Handler(QuietHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                url = urlsplit(self.path)
                with lock:
                    headers = {k.lower(): v for k, v in self.headers.items()}
                    fake.requests.append(Recorded(self.command, self.path, headers, body))
                    status, reply = fake.answer(self.command, url.path, parse_qs(url.query), body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _handle

        self._local = LocalServer(Handler).__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._local.__exit__(kind, value, traceback)

    @property
    def url(self) -> str:
        return self._local.url

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> tuple[int, Any]:
        prefix = f"/repos/{self.repository}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        path = path[len(prefix):]
        page = int(query.get("page", ["1"])[0])
        per_page = int(query.get("per_page", ["30"])[0])

        def paged(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return items[(page - 1) * per_page: page * per_page]

        pull = f"/pulls/{self.number}"
        if method == "GET" and path == f"{pull}/files":
            return 200, paged(self.files)
        if method == "GET" and path == f"{pull}/comments":
            return 200, paged(self.review_comments)
        if method == "POST" and path == f"{pull}/reviews":
            if self.refuse_reviews is not None:
                return self.refuse_reviews, {"message": "Resource not accessible by integration"}
            review = {"id": len(self.reviews) + 1, "html_url": f"https://github.test/pull/{self.number}#review",
                      **body}
            self.reviews.append(review)
            for comment in body.get("comments", []):
                self.review_comments.append({"id": 1000 + len(self.review_comments), **self.author, **comment})
            return 200, review
        if method == "GET" and path == f"/issues/{self.number}/comments":
            return 200, paged(self.issue_comments)
        if method == "POST" and path == f"/issues/{self.number}/comments":
            comment = {"id": 500 + len(self.issue_comments), "body": body["body"], **self.author,
                       "html_url": f"https://github.test/pull/{self.number}#comment"}
            self.issue_comments.append(comment)
            return 201, comment
        edited = re.fullmatch(r"/issues/comments/(\d+)", path)
        if method == "PATCH" and edited:
            for comment in self.issue_comments:
                if comment["id"] == int(edited.group(1)):
                    comment["body"] = body["body"]
                    return 200, comment
        return 404, {"message": "Not Found"}
