"""The budget of HTML conversion: one linear pass that counts a page's elements and keeps its plain text.

trafilatura's cost grows faster than the page: measured on pages of small paragraphs it took 0.8 s for
20,000 elements, 5 s for 50,000 and 100 s (and 480 MB) for 200,000, all within web_fetch's 5 MB body. So a
page first goes through lxml's parser with a target that only counts start tags and collects text: no tree
is built, the page is fed in chunks, and between chunks the pass checks the call's cancel signal
(`checkpoint`) and its own deadline. convert.py then hands trafilatura only pages within MAX_HTML_ELEMENTS;
a larger one is shown as this pass's text. Hand-written rather than trafilatura.html2txt because that one
builds the whole tree first (1.3 s and 140 MB more on the 200,000-paragraph page) and cannot be stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from lxml import etree

from sneakycode.tools.context import checkpoint

MAX_HTML_ELEMENTS = 20_000
"""Pages with more elements are shown as plain text: trafilatura takes about 1 s at this size on an idle machine
(bench/html_budget.py), well above what ordinary pages hold."""
SCAN_SECONDS = 10.0
"""The pass stops here and keeps the text read so far (about 2 s per 50 MB on a 2-core machine)."""
CHUNK_CHARS = 64 * 1024
# Elements whose text is not the page's: code, styles, and markup for things that are not text.
_SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "select"})
# Elements that end a line of text; others (span, a, em, td, ...) run on within the line.
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "summary", "table", "title", "tr", "ul",
})


@dataclass(frozen=True)
class Scan:
    """What one pass over a page found: its element count, its plain text, and where a deadline stopped it."""

    elements: int
    text: str
    stopped_at: int | None = None
    """Characters of the page read when the deadline stopped the pass; None when it read them all."""


class _Collector:
    """An lxml parser target: counts start tags and keeps the text outside scripts and styles."""

    def __init__(self) -> None:
        self.elements = 0
        self.parts: list[str] = []
        self.skipping = 0

    def start(self, tag: str, attrib: Any) -> None:
        self.elements += 1
        if tag in _SKIPPED:
            self.skipping += 1

    def end(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipping = max(self.skipping - 1, 0)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def data(self, text: str) -> None:
        if not self.skipping:
            self.parts.append(text)

    def close(self) -> None:
        return None


def scan_html(html: str, *, seconds: float = SCAN_SECONDS, clock: Callable[[], float] = time.monotonic) -> Scan:
    """Count the page's elements and keep its text, in time linear in its length; stops with the text so far
    after `seconds`, and raises the call's coded cancelled/timed_out ToolError when it is cancelled."""
    collector = _Collector()
    parser = etree.HTMLParser(target=collector, no_network=True)
    deadline = clock() + seconds
    stopped_at = None
    for start in range(0, len(html), CHUNK_CHARS):
        checkpoint()
        if clock() > deadline:
            stopped_at = start
            break
        parser.feed(html[start : start + CHUNK_CHARS])
    with suppress(etree.LxmlError):  # an empty or hopeless document: what was collected is all there is
        parser.close()
    return Scan(collector.elements, _tidy("".join(collector.parts)), stopped_at)


def _tidy(text: str) -> str:
    """One line per block, runs of spaces as one, no blank lines."""
    lines = (" ".join(line.split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line) + "\n"
