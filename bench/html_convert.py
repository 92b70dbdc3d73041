"""HTML -> Markdown for web_fetch: trafilatura against readability-lxml + markdownify on saved pages.

The pages in tests/fixtures/web/ are shaped like real ones (a Sphinx docs page, a GitHub issue, a blog post,
an MDN-style reference page) with navigation, sidebars, footers, cookie banners and scripts. For each page
a few sentences of the main text must be kept and a few strings of the page chrome dropped; the table gives
the share kept, the share of chrome that leaked through, whether code blocks kept their line breaks, the
output size and the time. Goals are printed, never enforced.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "web"

# page: (main text that must survive, chrome that must not, a code line that must stay on its own line)
PAGES: dict[str, tuple[list[str], list[str], str]] = {
    "docs_page.html": (
        ["classes representing filesystem paths", "Path is most likely what you need", "from pathlib import Path",
         "Pure path objects provide path-handling operations", "Path.resolve()", "os.PathLike interface"],
        ["Quick search", "Report a Bug", "Previous topic", "Please donate", "Created using Sphinx",
         "TRACKING_SNIPPET", "UA-TRACKING-SECRET", "Table of Contents"],
        ">>> q.exists()",
    ),
    "issue_page.html": (
        ["imported but unused", "Steps to reproduce", "list comprehension in your real project",
         "with a literal list the warning goes away", "Ruff version 0.9.4", "Ruff reports F401"],
        ["Pull requests 48", "Sign up for free", "Do not share my personal information", "Search or jump to",
         "TRACKING_SNIPPET", "NAV_SECRET", "No milestone"],
        "Found 1 error.",
    ),
    "blog_post.html": (
        ["1.4 GB cache of node_modules", "41 seconds on median", "Cache what is expensive to download",
         "npm ci --prefer-offline", "from 9 minutes to 3 minutes", "lockfile hash"],
        ["Accept all cookies", "Subscribe to the newsletter", "Recent posts", "Powered by Hugo", "TRACKING_SNIPPET",
         "Load comments", "Share on"],
        "",
    ),
    "reference_page.html": (
        ["flattening the result by one level", "A function to execute for each element", "flatMap(callbackFn, thisArg)",
         "flattened by a depth of 1", "arr1.flatMap((x) => [x * 2]);", "slightly more efficient"],
        ["Skip to main content", "Sign up for free", "Advertise with us", "Array.prototype.copyWithin()",
         "TRACKING_SNIPPET", "Your blueprint for a better internet", "AI Help"],
        "// [2, 4, 6, 8]",
    ),
}


def with_trafilatura(html: str) -> str:
    import trafilatura

    # include_comments: GitHub marks every issue comment `comment-body`, which trafilatura counts as comments.
    return trafilatura.extract(html, output_format="markdown", include_comments=True, include_tables=True,
                               include_formatting=True, favor_recall=True) or ""


def with_readability(html: str) -> str:
    from markdownify import markdownify
    from readability import Document

    return str(markdownify(Document(html).summary(html_partial=True), heading_style="ATX"))


def with_markdownify_only(html: str) -> str:
    from markdownify import markdownify

    return str(markdownify(html, heading_style="ATX", strip=["script", "style"]))


CONVERTERS: dict[str, Callable[[str], str]] = {
    "trafilatura": with_trafilatura,
    "readability+markdownify": with_readability,
    "markdownify alone (baseline)": with_markdownify_only,
}


def main() -> int:
    # The web package's converter is imported too, so the table shows what web_fetch itself produces.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from sneakycode.tools.web.convert import html_to_markdown

    converters = {**CONVERTERS, "web_fetch (convert.py)": lambda html: html_to_markdown(html, "").text}
    rows = []
    for name, convert in converters.items():
        kept = leaked = kept_total = leaked_total = code_ok = size = 0
        elapsed = 0.0
        for page, (main_text, chrome, code_line) in PAGES.items():
            html = (FIXTURES / page).read_text(encoding="utf-8")
            convert(html)  # warm up imports
            started = time.perf_counter()
            out = convert(html)
            elapsed += time.perf_counter() - started
            flat = " ".join(re.sub(r"\\([_*`#\[\]])", r"\1", out).split())  # markdown escapes do not count
            kept += sum(" ".join(s.split()) in flat for s in main_text)
            leaked += sum(s in out for s in chrome)
            kept_total += len(main_text)
            leaked_total += len(chrome)
            code_ok += not code_line or any(line.strip() == code_line for line in out.splitlines())
            size += len(out)
        rows.append((name, f"{kept}/{kept_total}", f"{leaked}/{leaked_total}", f"{code_ok}/{len(PAGES)}",
                     f"{size:,}", f"{elapsed * 1000:.1f} ms"))
    print("| converter | main text kept | chrome leaked | code lines intact | chars out | time (4 pages) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
