"""Fake search backends on 127.0.0.1 that speak SearXNG's, Brave's and Tavily's APIs, with answers shaped as
each API's public documentation shows them (the recorded shapes below name their page). Every request is
kept, so a test can check what was sent (the query, `site:` operators, the key header) and count requests."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

Reply = tuple[int, dict[str, str], bytes]
JSON = {"Content-Type": "application/json"}


@dataclass(frozen=True)
class Result:
    title: str
    url: str
    snippet: str
    date: str | None = None


def searxng_answer(query: str, results: list[Result]) -> dict[str, Any]:
    """SearXNG's `format=json` answer (docs.searxng.org/dev/search_api, "format"; the fields as
    searx/webapp.py's JSON serialisation writes them): `results[]` with url, title, content, publishedDate
    (ISO or null) and the engine bookkeeping around them."""
    return {
        "query": query,
        "number_of_results": 0,
        "results": [
            {
                "url": r.url, "title": r.title, "content": r.snippet, "engine": "duckduckgo",
                "parsed_url": list(urlsplit(r.url)), "template": "default.html", "engines": ["duckduckgo", "brave"],
                "positions": [n], "publishedDate": r.date, "thumbnail": "", "score": 2.0 / n, "category": "general",
            }
            for n, r in enumerate(results, 1)
        ],
        "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": [],
    }  # fmt: skip


def brave_answer(query: str, results: list[Result]) -> dict[str, Any]:
    """Brave Web Search API's answer (api-dashboard.search.brave.com/api-reference/web/search/get, "WebSearchApi
    Response"): `web.results[]` of SearchResult with title, url, description (matches in <strong>), page_age
    (ISO) and age (as shown, "2 days ago" or a date), beside `query` and `mixed`."""
    return {
        "type": "search",
        "query": {"original": query, "show_strict_warning": False, "is_navigational": False, "country": "us",
                  "more_results_available": True},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": n, "all": False} for n in range(len(results))]},
        "web": {
            "type": "search",
            "results": [
                {
                    "type": "search_result", "title": r.title, "url": r.url, "is_source_local": False,
                    "is_source_both": False, "description": r.snippet.replace("pathlib", "<strong>pathlib</strong>"),
                    "language": "en", "family_friendly": True,
                    "meta_url": {"scheme": urlsplit(r.url).scheme, "netloc": urlsplit(r.url).netloc},
                    **({"page_age": r.date, "age": "March 1, 2024"} if r.date else {}),
                }
                for r in results
            ],
            "family_friendly": True,
        },
    }  # fmt: skip


def tavily_answer(query: str, results: list[Result]) -> dict[str, Any]:
    """Tavily's POST /search answer (docs.tavily.com/documentation/api-reference/endpoint/search, "Response"):
    `results[]` with title, url, content, score (and published_date for topic=news), beside query, answer,
    images and response_time."""
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [
            {"title": r.title, "url": r.url, "content": r.snippet, "score": 0.9 - n / 100, "raw_content": None,
             **({"published_date": r.date} if r.date else {})}
            for n, r in enumerate(results)
        ],
        "response_time": 1.09,
    }


ANSWERS: dict[str, Callable[[str, list[Result]], dict[str, Any]]] = {
    "searxng": searxng_answer, "brave": brave_answer, "tavily": tavily_answer,
}
PATHS = {"searxng": "/search", "brave": "/res/v1/web/search", "tavily": "/search"}


@dataclass
class Seen:
    """One request the fake backend received."""

    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any] | None

    @property
    def query(self) -> str:
        return self.params.get("q") or (self.body or {}).get("query", "")


@dataclass
class FakeBackend:
    """A search API on 127.0.0.1: answers `results` in `backend`'s shape at its path, or what `reply` returns."""

    backend: str
    results: list[Result] = field(default_factory=list)
    reply: Callable[[Seen], Reply] | None = None
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._answer(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._answer(json.loads(self.rfile.read(length) or b"null"))

            def _answer(self, body: Any) -> None:
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                seen = Seen(self.command, parts.path, params, {k.lower(): v for k, v in self.headers.items()}, body)
                owner.seen.append(seen)
                status, headers, data = owner.reply(seen) if owner.reply else owner.default(seen)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def default(self, seen: Seen) -> Reply:
        if seen.path != PATHS[self.backend]:
            return 404, JSON, b'{"detail": "Not Found"}'
        return 200, JSON, json.dumps(ANSWERS[self.backend](seen.query, self.results)).encode()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def config(self, **more: Any) -> str:
        """The `[tools.web.search]` table that points SneakyCode at this backend."""
        lines = [f'backend = "{self.backend}"', f'url = "{self.url}"']
        if self.backend != "searxng":
            lines.append('api_key_env = "TEST_SEARCH_KEY"')
        lines += [f"{key} = {json.dumps(value)}" for key, value in more.items()]
        return "[tools.web.search]\n" + "\n".join(lines) + "\n"

    def __enter__(self) -> FakeBackend:
        self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.server.shutdown()
        self.server.server_close()


def slow(seconds: float) -> Callable[[Seen], Reply]:
    """A backend that takes `seconds` before it answers (the timeout tests)."""

    def answer(_seen: Seen) -> Reply:
        time.sleep(seconds)
        return 200, JSON, b'{"results": []}'

    return answer
