"""web_search: a numbered list of web results from the backend the user configured (`[tools.web.search]`).

Offered only when a backend is configured. The query goes to that backend alone (backends.py, search_client.py);
results are cleaned, deduplicated and filtered (results.py), so a domain a deny rule refuses to the web tools
never appears, and `domains` restricts both the query and the list. Nothing here fetches a result: the model
reads one with web_fetch, whose address and domain checks stay as they are. Searches are kept in the session's
web cache for 15 minutes.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from sneakycode.config import Settings
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.process.environment import full_environment
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.context import checkpoint
from sneakycode.tools.web.backends import NEEDS_KEY, ShapeError, base_url, build_request, parse_hits
from sneakycode.tools.web.results import Selection, normalize_domain, render_list, select

MAX_QUERY_CHARS = 400  # Brave's limit, and far more than a search needs
MAX_DOMAINS = 10
MAX_RESULTS = 20
EXTRA_REQUESTED = 5  # asked for beyond max_results, so dropped duplicates and denied domains leave enough
STATUS_LINE_ROOM = 400


class WebSearchArgs(ToolArgs):
    query: str
    max_results: int | None = None
    domains: list[str] | None = None


def _configured(settings: Settings) -> bool:
    return settings.tools.web.search.configured


@tool(
    name="web_search",
    tier=Tier.AUTO,
    read_only=True,
    lists_urls=True,
    offered_if=_configured,
    headline="query",
    claude_names=("WebSearch",),
    example={"query": "pathlib glob recursive", "max_results": 5, "domains": ["docs.python.org"]},
)
def web_search(args: WebSearchArgs, ctx: ToolContext) -> ToolResult:
    """Search the web for pages (title, URL, snippet); read one with web_fetch."""
    settings = ctx.settings.tools.web.search
    if not settings.configured or settings.backend is None:
        missing = "url (the SearXNG instance's address)" if settings.backend == "searxng" else "backend"
        raise ToolError(
            ErrorCode.SEARCH_NOT_CONFIGURED, f"web search is not configured: tools.web.search sets no {missing}"
        )
    query, count, domains = _checked(args, settings.max_results)
    backend = settings.backend
    variable = settings.key_variable
    key = full_environment().get(variable) if variable else None
    if not key and (backend in NEEDS_KEY or settings.api_key_env):
        raise ToolError(
            ErrorCode.SEARCH_UNAUTHORIZED,
            f"the {backend} backend needs a key, and the environment variable {variable} is not set",
            hint=f"Tell the user to export {variable}=... (or name another variable in tools.web.search.api_key_env).",
            data={"key_variable": variable},
        )
    requested = min(count + EXTRA_REQUESTED, MAX_RESULTS)
    cache_key = (backend, base_url(settings), query, str(requested), ",".join(domains))
    hits = ctx.web_cache.get_search(cache_key)
    cached = hits is not None
    if hits is None:
        checkpoint()
        # Imported here: the client brings httpx2, which a session that never searches need not wait for.
        from sneakycode.tools.web.search_client import send

        answer = send(build_request(backend, settings, query, requested, domains, key), settings, variable)
        try:
            hits = tuple(parse_hits(backend, answer))
        except ShapeError as exc:
            raise ToolError(
                ErrorCode.SEARCH_BAD_RESPONSE,
                f"the {backend} backend answered JSON of another shape than its API's: {exc}",
                detail=json.dumps(answer, ensure_ascii=False, default=str)[:300],
            ) from None
        ctx.web_cache.put_search(cache_key, hits)
    chosen = select(hits, ctx.url_denied, domains, count)
    text, shown = render_list(chosen.hits, ctx.output_limit - STATUS_LINE_ROOM)
    message = _status(backend, chosen, shown, cached)
    return ToolResult.ok(
        text or "No results.",
        message,
        query=query,
        backend=backend,
        results=[asdict(hit) for hit in chosen.hits[:shown]],
        left_out={"denied": chosen.denied, "outside_domains": chosen.outside, "duplicates": chosen.duplicates,
                  "over_output_limit": len(chosen.hits) - shown},
        cached=cached,
    )


def _checked(args: WebSearchArgs, default_count: int) -> tuple[str, int, tuple[str, ...]]:
    """The query, the number of results and the domains, checked here rather than in the schema: every limit
    spelled out there would be sent with every request, and the error says the same."""
    query = " ".join(args.query.split())
    if not query or len(query) > MAX_QUERY_CHARS:
        raise ToolError(ErrorCode.INVALID_ARGUMENTS,
                        f"query must be 1 to {MAX_QUERY_CHARS} characters, got {len(query)}",
                        hint="Search with a few keywords, not a whole paragraph.")
    count = default_count if args.max_results is None else args.max_results
    if not 1 <= count <= MAX_RESULTS:
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"max_results must be 1 to {MAX_RESULTS}, got {count}")
    domains: list[str] = []
    for given in args.domains or []:
        domain = normalize_domain(given)
        if domain is None:
            raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"domains: {given[:100]!r} is not a domain name",
                            hint='Give host names such as "docs.python.org" or "python.org".')
        domains.append(domain)
    if len(domains) > MAX_DOMAINS:
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"domains lists {len(domains)}; at most {MAX_DOMAINS} are allowed")
    return query, count, tuple(dict.fromkeys(domains))


def _status(backend: str, chosen: Selection, shown: int, cached: bool) -> str:
    notes = [f"{shown} result{'s' if shown != 1 else ''} from {backend}"]
    dropped = [(chosen.denied, "denied by a rule"), (chosen.outside, "outside the domains"),
               (chosen.duplicates, "duplicate" if chosen.duplicates == 1 else "duplicates"),
               (len(chosen.hits) - shown, "over the output limit")]
    left = [f"{n} {why}" for n, why in dropped if n]
    if left:
        notes.append("left out: " + ", ".join(left))
    if cached:
        notes.append("from this session's cache")
    return f"({'; '.join(notes)}) Read a result with web_fetch(url)."
