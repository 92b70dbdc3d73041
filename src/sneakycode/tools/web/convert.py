"""A fetched body as text the model can read: HTML becomes Markdown with only the main content, PDF becomes
its text, JSON, plain text and Markdown pass through; anything else is refused with its type named.

HTML goes through trafilatura, chosen over readability-lxml + markdownify by `bench/html_convert.py` on four
saved pages shaped like real ones (docs page, GitHub issue, blog post, reference page): trafilatura kept
23 of 24 main-text sentences with 2 of 29 chrome strings leaking; readability kept 19 of 24 (it dropped a
whole issue discussion) with none leaking. Losing the discussion is the worse failure. trafilatura is
imported only when a page is HTML (it takes about a second to import).

Conversion has a budget (plain.py): a page of more than MAX_HTML_ELEMENTS elements, or one whose first pass
outlasts its deadline, is shown as plain text with a note, and a cancel stops the pass between chunks.
"""

from __future__ import annotations

import codecs
import io
import json
import re
from dataclasses import dataclass

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.context import checkpoint
from sneakycode.tools.web.plain import MAX_HTML_ELEMENTS, SCAN_SECONDS, scan_html

TEXT_TYPES = frozenset({
    "text/plain", "text/markdown", "text/x-markdown", "text/csv", "text/xml", "application/xml", "text/x-rst",
    "application/x-yaml", "application/yaml", "text/yaml", "application/javascript", "text/javascript",
    "text/css", "application/toml", "text/x-python", "text/x-diff", "text/x-patch",
})
JSON_TYPES = frozenset({"application/json", "text/json"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
_MARKUP_START = re.compile(rb"^\s*(<!doctype html|<html|<head|<body)", re.IGNORECASE)


@dataclass(frozen=True)
class Converted:
    """The text the model reads, and a note for the result when it is not the whole conversion."""

    text: str
    note: str | None = None


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def charset(content_type: str) -> str | None:
    found = re.search(r"charset\s*=\s*\"?([\w.:-]+)", content_type, re.IGNORECASE)
    if found is None:
        return None
    try:
        return codecs.lookup(found.group(1)).name
    except LookupError:
        return None


def body_to_text(body: bytes, content_type: str, url: str) -> Converted:
    """The body as text for the model; an unsupported_content ToolError for types it cannot read."""
    kind = media_type(content_type) or _sniff(body)
    if kind in HTML_TYPES:
        return html_to_markdown(decode(body, content_type), url)
    if kind in PDF_TYPES:
        return Converted(pdf_to_text(body))
    if kind in JSON_TYPES or kind.endswith("+json"):
        return Converted(_json_text(decode(body, content_type)))
    if kind in TEXT_TYPES or kind.endswith("+xml") or (kind.startswith("text/") and kind != "text/event-stream"):
        return Converted(decode(body, content_type))
    raise ToolError(
        ErrorCode.UNSUPPORTED_CONTENT,
        f"{url} is {kind or 'of no stated type'}, which web_fetch does not read",
        hint="web_fetch reads HTML, text, Markdown, JSON and PDF; look for a page of one of those types.",
        data={"content_type": content_type},
    )


def _sniff(body: bytes) -> str:
    """The type of a body sent without a Content-Type."""
    head = body[:1024]
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if _MARKUP_START.match(head):
        return "text/html"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the end of the sample
            return "application/octet-stream"
    return "application/octet-stream" if b"\x00" in head else "text/plain"


def decode(body: bytes, content_type: str) -> str:
    """The declared charset, else UTF-8 (BOM dropped); bytes that do not decode become U+FFFD."""
    return body.decode(charset(content_type) or "utf-8-sig", errors="replace")


def _json_text(text: str) -> str:
    """JSON as sent, unless it is one long line: then indented, so windows break between values."""
    if "\n" in text.strip() or len(text) < 2000:
        return text
    try:
        return json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    except ValueError:
        return text


def html_to_markdown(html: str, url: str) -> Converted:
    """The page's main content as Markdown: navigation, sidebars, footers, scripts and styles dropped. A page
    where no main content is found (a bare list of links, say) comes back as all of its text instead. A page
    over the conversion budget comes back as its plain text, with a note saying so."""
    scan = scan_html(html)
    if scan.stopped_at is not None:
        return Converted(scan.text, (
            f"page too large for full conversion: plain text of its first {scan.stopped_at:,} of {len(html):,} "
            f"characters, read within {SCAN_SECONDS:.0f} s"
        ))
    if scan.elements > MAX_HTML_ELEMENTS:
        return Converted(scan.text, (
            f"page too large for full conversion ({scan.elements:,} HTML elements, over {MAX_HTML_ELEMENTS:,}): "
            "shown as plain text, without Markdown structure or boilerplate removal"
        ))
    import trafilatura

    # include_comments: GitHub marks each issue comment `comment-body`, which trafilatura would drop as a
    # comment section; favor_recall keeps short pages' paragraphs that precision mode cuts.
    extracted = trafilatura.extract(
        html, url=url or None, output_format="markdown", include_comments=True, include_tables=True,
        include_formatting=True, include_links=False, favor_recall=True,
    )
    checkpoint()  # trafilatura cannot be stopped midway; within the budget it returns in about a second
    if extracted and extracted.strip():
        return Converted(extracted.strip() + "\n")
    return Converted((trafilatura.html2txt(html) or "").strip() + "\n")


def pdf_to_text(body: bytes) -> str:
    """Each page's text under a `--- page N ---` line; unsupported_content for a PDF that cannot be read."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted:
            raise ToolError(ErrorCode.UNSUPPORTED_CONTENT, "the PDF is encrypted, so its text cannot be read")
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        raise ToolError(
            ErrorCode.UNSUPPORTED_CONTENT,
            f"the PDF cannot be read: {exc}",
            hint="If the body was cut at tools.web.max_bytes the PDF is incomplete; otherwise it may be damaged.",
        ) from None
    if not any(text.strip() for text in pages):
        return f"(a PDF of {len(pages)} page(s) with no extractable text: it is probably scanned images)\n"
    return "\n\n".join(f"--- page {number} ---\n{text.strip()}" for number, text in enumerate(pages, 1)) + "\n"
