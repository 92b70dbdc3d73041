"""What becomes of a backend's hits before the model sees them: URLs without tracking parameters and with no
character that could break the list's lines, colour a terminal or reorder text (percent-encoded), duplicates
dropped, denied and out-of-scope domains left out, text cleaned of markup, and a numbered list that fits the
output limit."""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from sneakycode.tools.web.cache import Hit

# Parameters that only tell a site where a click came from; they change nothing on the page.
TRACKING_PARAMETERS = frozenset({
    "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid", "li_fat_id",
    "mc_cid", "mc_eid", "igshid", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "srsltid",
    "_ga", "_gl", "ref_src", "ref_url",
})  # fmt: skip
TRACKING_PREFIXES = ("utm_", "pk_", "hsa_")
TITLE_CHARS = 200
SNIPPET_CHARS = 400
URL_CHARS = 600
_TAG = re.compile(r"<[^>]{0,300}>")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


# Control (Cc: newlines, escapes), format (Cf: bidi overrides, zero-width) and separator (Z*: spaces) characters:
# no URL holds them raw (RFC 3986 has them percent-encoded), and on the model's or a terminal's screen they
# would start a line of their own, colour it or reorder it.
_UNSAFE_IN_URL = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def printable_url(url: str) -> str | None:
    """The URL with every control, format or space character percent-encoded (as UTF-8), so it shows as one
    line of what it is; None when its host holds one (no site is named so; a percent sign in a search hit's
    host is nothing else) or it cannot be parsed."""
    shown = "".join(quote(char, safe="") if unicodedata.category(char) in _UNSAFE_IN_URL else char for char in url)
    try:
        host = urlsplit(shown).netloc
    except ValueError:
        return None
    return None if "%" in host else shown


def without_tracking(url: str) -> str:
    """The URL without tracking parameters (utm_*, fbclid, gclid, ...); the rest of the query is kept byte for
    byte, in its order (decoding and encoding it again could change what the site reads)."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    fields = parts.query.split("&")
    kept = [field for field in fields if not _tracking(unquote_plus(field.split("=", 1)[0]).lower())]
    if len(kept) == len(fields):
        return url
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "&".join(kept), parts.fragment))


def _tracking(name: str) -> bool:
    return name in TRACKING_PARAMETERS or name.startswith(TRACKING_PREFIXES)


def same_page_key(url: str) -> str:
    """What two URLs of one page share: the host in lower case without `www.`, the path without a trailing
    slash, the query; scheme and fragment aside (http and https, `#section` links, are the same page)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".").removeprefix("www.")
    return f"{host}:{parts.port or ''}{parts.path.rstrip('/') or '/'}?{parts.query}"


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").rstrip(".")
    except ValueError:
        return ""


def normalize_domain(domain: str) -> str | None:
    """A domain as the model may write it (`docs.python.org`, `https://docs.python.org/3`, `*.python.org`,
    `.python.org`) as a lower-case host name; None when it is not one."""
    text = domain.strip().lower()
    if "://" in text:
        text = urlsplit(text).hostname or ""
    text = text.split("/", 1)[0].removeprefix("*.").strip(".")
    if not text or not re.fullmatch(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*(:\d+)?", text) or len(text) > 253:
        return None
    return text.split(":", 1)[0]


def in_domains(url: str, domains: Iterable[str]) -> bool:
    """Whether the URL's host is one of `domains` or under one (`docs.python.org` is in `python.org`)."""
    host = host_of(url)
    return any(host == domain or host.endswith(f".{domain}") for domain in domains)


def clean_text(text: str, limit: int) -> str:
    """Plain text on one line: markup (Brave marks matches with <strong>) and entities resolved, control and
    bidirectional-override characters dropped, cut at `limit` characters."""
    plain = _CONTROL.sub("", html.unescape(_TAG.sub("", text)))
    plain = " ".join(plain.split())
    return plain if len(plain) <= limit else plain[: limit - 1].rstrip() + "…"


def short_date(value: str | None) -> str | None:
    """An ISO timestamp as its date (`2024-03-01`); other forms ("2 days ago") as they are, cut short."""
    if not value:
        return None
    text = clean_text(value, 40)
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        return text or None


@dataclass(frozen=True)
class Selection:
    """The hits to show, and how many of the backend's were left out, by reason."""

    hits: list[Hit]
    denied: int = 0
    outside: int = 0
    duplicates: int = 0


def select(
    raw: Iterable[Hit], denied: Callable[[str], str | None], domains: tuple[str, ...], limit: int
) -> Selection:
    """The first `limit` distinct hits that no deny rule refuses and that lie in `domains` (when given), each
    cleaned; what was dropped is counted."""
    chosen: list[Hit] = []
    seen: set[str] = set()
    counts = {"denied": 0, "outside": 0, "duplicates": 0}
    for hit in raw:
        url = printable_url(hit.url.strip())
        if url is not None:
            url = without_tracking(url)
        if url is None or len(url) > URL_CHARS or not host_of(url):
            continue
        if denied(url) is not None:
            counts["denied"] += 1
            continue
        if domains and not in_domains(url, domains):
            counts["outside"] += 1
            continue
        key = same_page_key(url)
        if key in seen:
            counts["duplicates"] += 1
            continue
        seen.add(key)
        if len(chosen) < limit:
            title = clean_text(hit.title, TITLE_CHARS) or host_of(url)
            chosen.append(replace(hit, url=url, title=title, snippet=clean_text(hit.snippet, SNIPPET_CHARS),
                                  date=short_date(hit.date)))
    return Selection(chosen, **counts)


def render_hit(number: int, hit: Hit) -> str:
    lines = [f"{number}. {hit.title}", f"   {hit.url}"]
    text = " · ".join(part for part in (hit.date, hit.snippet) if part)
    if text:
        lines.append(f"   {text}")
    return "\n".join(lines)


def render_list(hits: list[Hit], budget: int) -> tuple[str, int]:
    """The numbered list within `budget` bytes, and how many hits it shows (the rest did not fit)."""
    blocks: list[str] = []
    used = 0
    for number, hit in enumerate(hits, 1):
        block = render_hit(number, hit)
        size = len(block.encode("utf-8")) + 2
        if used + size > budget:
            break
        blocks.append(block)
        used += size
    return "\n\n".join(blocks), len(blocks)
