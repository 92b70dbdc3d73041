"""One request to the search backend, and what its failures mean, each as a coded error.

The backend is the user's choice (their own config, never an untrusted repository's), so unlike web_fetch the
request goes to whatever address it names, a SearXNG on localhost or the LAN included. It goes through the same
client as web_fetch (`httpx2`, no proxies from the environment, bodies read through `read_limited`), follows no
redirect (a moved backend is a setting to fix, and a redirect could carry the key elsewhere), and is bounded in
time as a whole, not only per read.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2

from sneakycode.config.web_search import WebSearchSettings
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.web.backends import Request
from sneakycode.tools.web.fetch import read_limited
from sneakycode.version import __version__

USER_AGENT = f"SneakyCode/{__version__} (coding agent; web_search)"
MAX_ANSWER_BYTES = 2 * 1024 * 1024  # a page of results is tens of KB; more is not a search API's answer
EXCERPT_CHARS = 300


def shown(url: str) -> str:
    """The URL as messages show it: without user:password@ and without the query (which holds the search)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return url.split("?", 1)[0][:200]
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def send(request: Request, settings: WebSearchSettings, key_variable: str | None) -> Any:
    """The backend's decoded JSON answer to `request`; a ToolError with a search_* code otherwise."""
    where = shown(request.url)
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **request.headers}
    deadline = time.monotonic() + settings.timeout
    try:
        with httpx2.Client(trust_env=False, follow_redirects=False, timeout=httpx2.Timeout(settings.timeout),
                           headers=headers) as client, client.stream(
            request.method, request.url, params=request.params, json=request.json
        ) as response:
            if response.is_redirect:
                location = shown(response.headers.get("location", "")) or "nowhere"
                raise ToolError(
                    ErrorCode.SEARCH_UNAVAILABLE,
                    f"the search backend {where} answered HTTP {response.status_code}, a redirect to {location}",
                    hint="Tell the user to set tools.web.search.url to the backend's real address.",
                )
            body, cut = read_limited(response, MAX_ANSWER_BYTES, where, deadline, ErrorCode.SEARCH_BAD_RESPONSE)
            _check_status(response, body, where, settings, key_variable)
    except httpx2.TimeoutException:
        raise ToolError(
            ErrorCode.SEARCH_UNAVAILABLE,
            f"the search backend {where} did not answer within {settings.timeout:g} s (tools.web.search.timeout)",
        ) from None
    except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
        raise ToolError(
            ErrorCode.SEARCH_UNAVAILABLE, f"the search backend {where} could not be reached: {exc}"
        ) from None
    if cut:
        raise ToolError(
            ErrorCode.SEARCH_BAD_RESPONSE,
            f"the search backend {where} answered more than {MAX_ANSWER_BYTES:,} bytes, not a page of results",
        )
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise ToolError(
            ErrorCode.SEARCH_BAD_RESPONSE,
            f"the search backend {where} answered something that is not JSON "
            f"({response.headers.get('content-type') or 'no content type'})",
            detail=_excerpt(body),
        ) from None


def _check_status(
    response: httpx2.Response, body: bytes, where: str, settings: WebSearchSettings, key_variable: str | None
) -> None:
    status = response.status_code
    if status < 400:
        return
    if status in (401, 403):
        if settings.backend == "searxng" and status == 403 and not key_variable:
            raise ToolError(
                ErrorCode.SEARCH_UNAUTHORIZED,
                f"the SearXNG instance {where} refused the JSON format (HTTP 403)",
                detail=_excerpt(body),
                hint="Tell the user to enable it in the instance's settings.yml: search: formats: [html, json].",
            )
        named = f"the key in {key_variable}" if key_variable else "the request (no key is configured)"
        raise ToolError(
            ErrorCode.SEARCH_UNAUTHORIZED,
            f"the search backend {where} refused {named} (HTTP {status})",
            detail=_excerpt(body),
            hint=f"Tell the user to check {key_variable or 'tools.web.search.api_key_env'}: only they can fix a key.",
            data={"status": status, "key_variable": key_variable},
        )
    if status == 429:
        wait = retry_after(response.headers)
        when = f"; it asks to wait {wait} s" if wait is not None else ""
        raise ToolError(
            ErrorCode.SEARCH_RATE_LIMITED,
            f"the search backend {where} is rate-limiting queries (HTTP 429){when}",
            hint=(f"Search again in {wait} s at the earliest" if wait is not None else "Wait before searching again")
            + ", or go on without searching.",
            data={"status": status, "retry_after": wait},
        )
    raise ToolError(
        ErrorCode.SEARCH_UNAVAILABLE,
        f"the search backend {where} answered HTTP {status}",
        detail=_excerpt(body),
        data={"status": status},
    )


def retry_after(headers: httpx2.Headers) -> int | None:
    """Whole seconds to wait: Retry-After (seconds or an HTTP date), else the first window of Brave's
    X-RateLimit-Reset ("1, 1419704"); None when neither says."""
    value = headers.get("retry-after", "").strip()
    if value:
        if value.isdigit():
            return int(value)
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            moment = None
        if moment is not None and moment.tzinfo is not None:
            return max(0, math.ceil(moment.timestamp() - time.time()))
    reset = headers.get("x-ratelimit-reset", "").split(",")[0].strip()
    return int(reset) if reset.isdigit() else None


def _excerpt(body: bytes) -> str:
    text = " ".join(body[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace").split())
    return text[:EXCERPT_CHARS]
