"""The per-session cache of fetched pages and search results: a repeated fetch, the next window of a long
page, or the same search within 15 minutes is answered without a request."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

CACHE_SECONDS = 15 * 60
CACHE_ENTRIES = 32  # pages kept at most; the oldest goes first (each is at most a few MB of text)
SEARCH_ENTRIES = 64  # searches kept at most (each is a few KB)


@dataclass(frozen=True)
class Page:
    """A fetched page as the model reads it: the converted text and what it was made from."""

    url: str
    final_url: str
    content_type: str
    text: str
    body_bytes: int
    body_cut: bool
    """The body was longer than tools.web.max_bytes and was cut there."""
    note: str | None = None
    """Why the text is not the full conversion (a page over the HTML conversion budget), for the result."""


@dataclass(frozen=True)
class Hit:
    """One search result as the backend gave it (cleaned): what web_search shows and the model may fetch."""

    title: str
    url: str
    snippet: str
    date: str | None = None


SearchKey = tuple[str, ...]
"""Backend, its address, the query as sent, how many results, the domains: what makes two searches the same."""


@dataclass
class WebCache:
    """Pages by the URL asked for, each kept CACHE_SECONDS; safe to use from concurrent read-only calls."""

    clock: Callable[[], float] = time.monotonic
    _pages: OrderedDict[str, tuple[float, Page]] = field(default_factory=OrderedDict)
    _searches: OrderedDict[SearchKey, tuple[float, tuple[Hit, ...]]] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, url: str) -> Page | None:
        with self._lock:
            found = self._pages.get(url)
            if found is None:
                return None
            stored, page = found
            if self.clock() - stored > CACHE_SECONDS:
                del self._pages[url]
                return None
            return page

    def put(self, page: Page) -> None:
        with self._lock:
            self._pages.pop(page.url, None)
            self._pages[page.url] = (self.clock(), page)
            while len(self._pages) > CACHE_ENTRIES:
                self._pages.popitem(last=False)

    def get_search(self, key: SearchKey) -> tuple[Hit, ...] | None:
        with self._lock:
            found = self._searches.get(key)
            if found is None:
                return None
            stored, hits = found
            if self.clock() - stored > CACHE_SECONDS:
                del self._searches[key]
                return None
            return hits

    def put_search(self, key: SearchKey, hits: tuple[Hit, ...]) -> None:
        with self._lock:
            self._searches.pop(key, None)
            self._searches[key] = (self.clock(), hits)
            while len(self._searches) > SEARCH_ENTRIES:
                self._searches.popitem(last=False)
