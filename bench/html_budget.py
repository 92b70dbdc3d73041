"""HTML conversion's time and memory, before and after its budget (hardening round two, class 5).

A 5 MB page of 200,000 small paragraphs is converted two ways, each in a fresh subprocess: "before" calls
trafilatura directly with the options web_fetch used (no budget), "after" calls web_fetch's
`html_to_markdown`, which counts the elements first and shows a page over MAX_HTML_ELEMENTS as plain text.
A page just under the budget and a saved docs page show what the budget costs pages it lets through. The
table gives wall time, the process's peak RSS (ru_maxrss), how much of it the conversion added, and the
characters out. The "before" run on the large page takes a minute or two; it is stopped after
BEFORE_TIMEOUT seconds. Goals (under 2 s and a modest memory on the large page) are printed, never enforced.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE_TIMEOUT = 600


def paragraphs_page(count: int) -> str:
    """`count` paragraphs of 25 bytes each (200,000 make 5.0 MB), in a plain HTML5 document."""
    body = "".join(f"<p>Paragraph {i:06d}.</p>\n" for i in range(count))
    return f"<!doctype html><html><head><title>Many paragraphs</title></head><body><main>\n{body}</main></body></html>"


def article_page(sections: int) -> str:
    """An article of mixed shape, 12 elements a section: heading, paragraphs with links, a list, a code block."""
    body = "".join(
        f"<section><h2>Section {i}</h2><p>Some text about part {i}, with <a href='/p{i}'>a link</a> and "
        f"<em>emphasis</em>.</p><ul><li>first point</li><li>second point</li><li>third point</li></ul>"
        f"<pre><code>value = compute({i})</code></pre><p>A closing remark.</p></section>\n"
        for i in range(sections)
    )
    return (f"<!doctype html><html><head><title>Article</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<article>{body}</article><footer>Footer</footer></body></html>")


def child(page: Path, way: str) -> None:
    """Runs in the subprocess: convert the page one way and print what it cost, as JSON. Both ways import
    trafilatura and web_fetch's converter and warm them on a small page first, so only conversion is timed."""
    sys.path.insert(0, str(ROOT / "src"))
    import trafilatura

    from sneakycode.tools.web.convert import html_to_markdown

    def before_budget(html: str) -> tuple[str, str | None]:
        return trafilatura.extract(
            html, output_format="markdown", include_comments=True, include_tables=True,
            include_formatting=True, include_links=False, favor_recall=True,
        ) or "", None

    def after_budget(html: str) -> tuple[str, str | None]:
        converted = html_to_markdown(html, "")
        return converted.text, converted.note

    convert = before_budget if way == "before" else after_budget
    convert(paragraphs_page(50))
    html = page.read_text(encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    out, note = convert(html)
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": elapsed, "peak_kb": peak, "added_kb": peak - before, "chars": len(out),
                      "plain": note is not None}))


def measure(page: Path, way: str) -> dict[str, object] | None:
    timeout = BEFORE_TIMEOUT if way == "before" else 120
    try:
        done = subprocess.run([sys.executable, __file__, "--child", str(page), way], capture_output=True, text=True,
                              timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    sys.path.insert(0, str(ROOT / "src"))
    from sneakycode.tools.web.plain import MAX_HTML_ELEMENTS

    pages = {
        "5 MB, 200,000 paragraphs": paragraphs_page(200_000),
        f"{MAX_HTML_ELEMENTS - 100:,} paragraphs (just within the budget)": paragraphs_page(MAX_HTML_ELEMENTS - 100),
        "article of 6,000 mixed elements": article_page(500),
        "issue page (tests/fixtures/web)": (ROOT / "tests" / "fixtures" / "web" / "issue_page.html").read_text(),
    }
    print("| page | size | conversion | wall time | peak RSS | added by conversion | chars out | plain-text fallback |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for name, html in pages.items():
            page = Path(folder) / "page.html"
            page.write_text(html, encoding="utf-8")
            size = f"{len(html.encode()) / 1000:,.0f} kB"
            for way, label in (("before", "before: trafilatura, no budget"), ("after", "after: budgeted")):
                got = measure(page, way)
                if got is None:
                    print(f"| {name} | {size} | {label} | > {BEFORE_TIMEOUT} s (stopped) | | | | |", flush=True)
                    continue
                seconds, peak, added = float(str(got["seconds"])), int(str(got["peak_kb"])), int(str(got["added_kb"]))
                print(f"| {name} | {size} | {label} | {seconds:.2f} s | {peak / 1024:.0f} MB | {added / 1024:.0f} MB "
                      f"| {int(str(got['chars'])):,} | {'yes' if got['plain'] else 'no'} |", flush=True)
    print("\nGoal: the 5 MB page converts in under 2 s with a modest peak; pages within the budget are unchanged.")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    sys.exit(main())
