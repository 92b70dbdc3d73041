"""web_fetch: a web page as Markdown or text, one bounded window at a time.

The page is fetched once (fetch.py), converted (convert.py) and kept in the session's cache (cache.py), so
the next window (`start=N`) and a repeated fetch within 15 minutes cost no request. Searching is web_search's
(search.py), which never fetches a result itself: the model reads one here, under these rules.
"""

from __future__ import annotations

from contextlib import suppress

from pydantic import Field

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.web.cache import Page

STATUS_LINE_ROOM = 400  # bytes kept free of page text for the status line
ERROR_BODY_CHARS = 600


class WebFetchArgs(ToolArgs):
    url: str = Field(min_length=1)
    start: int = Field(0, ge=0, description="character offset")


@tool(
    name="web_fetch",
    tier=Tier.CONFIRM,
    read_only=True,
    url="url",
    example={"url": "https://docs.python.org/3/library/pathlib.html"},
)
def web_fetch(args: WebFetchArgs, ctx: ToolContext) -> ToolResult:
    """Fetch an http(s) URL: HTML as Markdown, PDF as text, JSON/text as is. Long pages come in parts: call
    again with start=N."""
    page = ctx.web_cache.get(args.url)
    cached = page is not None
    if page is None:
        page = _fetch(args.url, ctx)
        ctx.web_cache.put(page)
    total = len(page.text)
    if args.start and args.start >= total:
        raise ToolError(
            ErrorCode.INVALID_RANGE,
            f"start={args.start} is past the end of {page.final_url}, which has {total} characters",
            hint=f"Ask for start between 0 and {max(total - 1, 0)}.",
        )
    shown = _window(page.text, args.start, ctx.output_limit - STATUS_LINE_ROOM)
    end = args.start + len(shown)
    notes = [f"{page.final_url}" + (f" (redirected from {page.url})" if page.final_url != page.url else "")]
    notes.append(page.content_type.split(";")[0] or "no content type")
    if page.body_cut:
        notes.append(f"body cut at {ctx.settings.tools.web.max_bytes:,} bytes (tools.web.max_bytes)")
    if page.note:
        notes.append(page.note)
    if cached:
        notes.append("from this session's cache")
    if args.start or end < total:
        more = f"; call again with start={end} for more" if end < total else "; the page ends here"
        notes.append(f"characters {args.start}-{end} of {total}{more}")
    return ToolResult.ok(
        shown, f"({'; '.join(notes)})", url=page.final_url, start=args.start, end=end, total=total, cached=cached
    )


def _fetch(url: str, ctx: ToolContext) -> Page:
    # Imported on the first fetch, not with the tool: every session offers web_fetch, and the converter's lxml
    # and the fetcher cost each model run some 40 ms of its start (issue 42) though most never fetch a page.
    from sneakycode.tools.web.convert import body_to_text
    from sneakycode.tools.web.fetch import Fetcher

    response = Fetcher(ctx.settings.tools.web, url_denied=ctx.url_denied).get(url)
    if response.status >= 400:
        text = ""
        with suppress(ToolError):  # a binary error page: the status alone says enough
            text = body_to_text(response.body, response.content_type, response.url).text
        excerpt = " ".join(text.split())[:ERROR_BODY_CHARS]
        raise ToolError(
            ErrorCode.HTTP_ERROR,
            f"{response.url} answered HTTP {response.status}",
            detail=excerpt,
            data={"status": response.status},
        )
    converted = body_to_text(response.body, response.content_type, response.url)
    return Page(url, response.url, response.content_type, converted.text, len(response.body), response.cut,
                converted.note)


def _window(text: str, start: int, budget: int) -> str:
    """The text from `start` that fits `budget` bytes, ended at a line break when one is near the end."""
    encoded = text[start:].encode("utf-8")
    if len(encoded) <= budget:
        return text[start:]
    kept = encoded[: max(budget, 256)].decode("utf-8", errors="ignore")
    newline = kept.rfind("\n")
    return kept[: newline + 1] if newline > len(kept) * 0.8 else kept
