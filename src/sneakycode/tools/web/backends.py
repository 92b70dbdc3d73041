"""The three search backends web_search speaks: how a query becomes a request, and how an answer becomes hits.

- SearXNG (docs.searxng.org/dev/search_api): `GET {url}/search?q=...&format=json`; `results[]` of `title`, `url`,
  `content`, `publishedDate`. The instance must list `json` under `search.formats` in its settings.yml, or it
  answers 403.
- Brave Search API (api-dashboard.search.brave.com, web search): `GET {url}/res/v1/web/search?q=...&count=N` with
  the key in `X-Subscription-Token`; `web.results[]` of `title`, `url`, `description`, `page_age` / `age`. A 429
  says when to retry in `X-RateLimit-Reset` ("1, 1419704": per policy window, seconds).
- Tavily (docs.tavily.com, POST /search): a JSON body with `query`, `max_results`, `include_domains`; the key as
  `Authorization: Bearer`; `results[]` of `title`, `url`, `content`, `published_date`.

SearXNG and Brave have no domain filter of their own, so `domains` becomes `site:` operators in the query;
web_search filters the hits itself in every case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sneakycode.config.web_search import SearchBackend, WebSearchSettings
from sneakycode.tools.web.cache import Hit

DEFAULT_URLS: dict[str, str] = {"brave": "https://api.search.brave.com", "tavily": "https://api.tavily.com"}
NEEDS_KEY = frozenset({"brave", "tavily"})
MAX_REQUESTED = 20  # Brave's and Tavily's largest page of results


class ShapeError(ValueError):
    """The answer is JSON, but not the shape the backend's API documents; the message says where it differs."""


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None


def base_url(settings: WebSearchSettings) -> str:
    """The backend's address without a trailing slash (its public API's when the user gave none)."""
    backend = settings.backend or ""
    return (settings.url or DEFAULT_URLS.get(backend, "")).rstrip("/")


def with_sites(query: str, domains: tuple[str, ...]) -> str:
    """The query restricted to `domains` with `site:` operators, for backends without a domain filter."""
    if not domains:
        return query
    return f"{query} {' OR '.join(f'site:{domain}' for domain in domains)}"


def build_request(
    backend: SearchBackend, settings: WebSearchSettings, query: str, count: int, domains: tuple[str, ...],
    key: str | None,
) -> Request:
    """The HTTP request that asks `backend` for `count` results."""
    base = base_url(settings)
    if backend == "searxng":
        # SearXNG has no result count (one page is about 20); an optional bearer token serves an instance
        # behind an authenticating proxy.
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return Request("GET", f"{base}/search", {"q": with_sites(query, domains), "format": "json", "pageno": "1"},
                       headers)
    if backend == "brave":
        params = {"q": with_sites(query, domains), "count": str(min(count, MAX_REQUESTED))}
        return Request("GET", f"{base}/res/v1/web/search", params, {"X-Subscription-Token": key or ""})
    body: dict[str, Any] = {"query": query, "max_results": min(count, MAX_REQUESTED), "search_depth": "basic"}
    if domains:
        body["include_domains"] = list(domains)
    return Request("POST", f"{base}/search", {}, {"Authorization": f"Bearer {key or ''}"}, body)


def parse_hits(backend: SearchBackend, data: Any) -> list[Hit]:
    """The hits in a backend's decoded JSON answer, in its order; a ShapeError when it is not the documented
    shape. Entries without an http(s) URL are skipped: nothing else is something web_fetch could read."""
    if not isinstance(data, Mapping):
        raise ShapeError(f"the answer is a JSON {type(data).__name__}, not an object")
    dates: tuple[str, ...]
    if backend == "brave":
        web = data.get("web", {})  # Brave leaves `web` out when nothing was found
        if not isinstance(web, Mapping):
            raise ShapeError("`web` is not an object")
        results, snippet, dates = web.get("results", []), "description", ("page_age", "age")
    elif backend == "searxng":
        results, snippet, dates = data.get("results"), "content", ("publishedDate",)
    else:
        results, snippet, dates = data.get("results"), "content", ("published_date",)
    if not isinstance(results, list):
        where = "web.results" if backend == "brave" else "results"
        raise ShapeError(f"`{where}` is {'missing' if results is None else 'not a list'}")
    return [hit for entry in results if (hit := _hit(entry, snippet, dates)) is not None]


def _hit(entry: Any, snippet_key: str, date_keys: tuple[str, ...]) -> Hit | None:
    if not isinstance(entry, Mapping):
        raise ShapeError(f"a result is a JSON {type(entry).__name__}, not an object")
    url = entry.get("url")
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        return None

    def text(key: str) -> str:
        value = entry.get(key)
        return value if isinstance(value, str) else ""

    date = next((text(key) for key in date_keys if text(key)), None)
    return Hit(title=text("title"), url=url, snippet=text(snippet_key), date=date)
