"""HTML conversion's budget: a page of too many elements is shown as plain text with a note, quickly and in
little memory; a cancel stops the conversion; pages within the budget convert as before."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ToolError
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context, running_budget
from sneakycode.tools.web.convert import html_to_markdown
from sneakycode.tools.web.plain import CHUNK_CHARS, MAX_HTML_ELEMENTS, scan_html
from tests.conftest import call, project_config
from tests.tools.web.site import Site

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "web"
HTML = {"Content-Type": "text/html; charset=utf-8"}


def paragraphs_page(count: int) -> str:
    """`count` paragraphs of 25 bytes (200,000 make the 5 MB page of the issue), a script that is not text."""
    body = "".join(f"<p>Paragraph {i:06d}.</p>\n" for i in range(count))
    return (f"<!doctype html><html><head><title>Many</title><script>var s = '<p>not text</p>';</script></head>"
            f"<body><main>\n{body}</main></body></html>")


@pytest.fixture
def web_ctx(ws: Path) -> ToolContext:
    project_config(ws, "[tools.web]\nallow_private = true\n")
    return open_tool_context(load_settings(ws))


@pytest.fixture
def site() -> Iterator[Site]:
    big = paragraphs_page(200_000).encode()
    assert len(big) >= 5_000_000
    with Site({
        "/big": (200, HTML, big),
        "/docs": (200, HTML, (FIXTURES / "docs_page.html").read_bytes()),
    }) as running:
        yield running


def test_a_5_mb_page_of_200000_paragraphs_comes_back_as_plain_text_with_a_note(
    site: Site, web_ctx: ToolContext
) -> None:
    """Hardening round two, class 5: this page cost trafilatura over a minute and about 450 MB; web_fetch now
    counts its elements first and shows it as plain text, saying why, in a second or so."""
    started = time.monotonic()
    result = call(web_ctx, "web_fetch", url=f"{site.url}/big")
    elapsed = time.monotonic() - started
    assert result.success, result.render()
    assert elapsed < 10  # about 0.5 s on an idle machine; the old conversion took 80 to 120 s
    assert f"page too large for full conversion (200,006 HTML elements, over {MAX_HTML_ELEMENTS:,})" in result.message
    assert result.content.startswith("Many\nParagraph 000000.\nParagraph 000001.\n")
    assert "not text" not in result.content
    assert result.data["total"] == len("Many\n") + 200_000 * len("Paragraph 000000.\n")
    again = call(web_ctx, "web_fetch", url=f"{site.url}/big", start=result.data["end"])
    assert "page too large for full conversion" in again.message and "from this session's cache" in again.message


def test_a_page_within_the_budget_converts_to_markdown_without_a_note(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/docs")
    assert result.success and "# pathlib" in result.content and "too large" not in result.message
    converted = html_to_markdown(paragraphs_page(MAX_HTML_ELEMENTS - 100), "")
    assert converted.note is None and "Paragraph 019899." in converted.text


def test_cancel_stops_a_conversion_under_way() -> None:
    """Hardening round two, class 5: the pass checks the call's cancel between chunks, so Esc or Ctrl-C
    stops a huge page's conversion within a fraction of a second, with the coded `cancelled` error."""
    html = paragraphs_page(1_000_000)  # 25 MB: a second or more of conversion
    cancel = threading.Event()
    outcome: list[object] = []

    def convert() -> None:
        with running_budget("web_fetch", cancel):
            try:
                outcome.append(html_to_markdown(html, ""))
            except ToolError as err:
                outcome.append(err)

    worker = threading.Thread(target=convert)
    worker.start()
    time.sleep(0.1)
    cancel.set()
    cancelled_at = time.monotonic()
    worker.join(30)
    assert time.monotonic() - cancelled_at < 1.5
    [err] = outcome
    assert isinstance(err, ToolError) and err.code == "cancelled" and "web_fetch was cancelled" in err.error


def test_a_cancel_before_the_conversion_starts_stops_it_at_the_first_chunk() -> None:
    cancel = threading.Event()
    cancel.set()

    def convert() -> None:
        with running_budget("web_fetch", cancel):  # the budget ends with the call, as the registry's does
            html_to_markdown(paragraphs_page(100), "")

    with pytest.raises(ToolError) as caught:
        convert()
    assert caught.value.code == "cancelled"


def test_the_pass_stops_at_its_deadline_with_the_text_read_so_far() -> None:
    """Hardening round two, class 5: a page that outlasts the pass's deadline keeps the text of the chunks
    read in time (a clock that moves 1 s a reading, so three chunks fit in 3 s)."""
    now = [0.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    html = paragraphs_page(20_000)
    scan = scan_html(html, seconds=3.5, clock=clock)
    assert scan.stopped_at == 3 * CHUNK_CHARS
    assert scan.text.startswith("Many\nParagraph 000000.\n") and "Paragraph 019999." not in scan.text
