"""web_fetch against a real HTTP server on 127.0.0.1 (private addresses allowed in the test config, as a
user would allow a local docs server), through the same gate the model's calls take."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, project_config, run_main
from tests.tools.web.site import Site, tiny_pdf

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "web"
HTML = {"Content-Type": "text/html; charset=utf-8"}
MB = 1024 * 1024


@pytest.fixture
def site() -> Iterator[Site]:
    docs = (FIXTURES / "docs_page.html").read_bytes()
    with Site({
        "/docs": (200, HTML, docs),
        "/gzip": (200, {**HTML, "Content-Encoding": "gzip"}, gzip.compress(docs)),
        "/br": (200, {**HTML, "Content-Encoding": "br"}, brotli.compress(docs)),
        "/huge": (200, {"Content-Type": "text/plain"}, b"0123456789abcde\n" * (20 * MB // 16)),
        "/paper.pdf": (200, {"Content-Type": "application/pdf"}, tiny_pdf("Quarterly results rose by 12 percent")),
        "/data.json": (200, {"Content-Type": "application/json"}, json.dumps({"name": "sneakycode"}).encode()),
        "/logo.bin": (200, {"Content-Type": "application/octet-stream"}, b"\x00\x01\x02"),
        "/missing": (404, HTML, b"<html><body><h1>Not Found</h1><p>The page moved.</p></body></html>"),
        "/hop": (302, {"Location": "/docs"}, b""),
        "/loop": (302, {"Location": "/loop"}, b""),
    }) as running:
        yield running


@pytest.fixture
def web_ctx(ws: Path) -> ToolContext:
    project_config(ws, "[tools.web]\nallow_private = true\n")
    return open_tool_context(load_settings(ws))


def test_html_with_navigation_and_scripts_becomes_clean_markdown(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/docs")
    assert result.success, result.render()
    text = result.content
    assert "# pathlib" in text and "Pure path objects provide path-handling operations" in text
    assert ">>> from pathlib import Path" in text
    for chrome in ("Quick search", "Report a Bug", "Please donate", "UA-TRACKING-SECRET", "TRACKING_SNIPPET", "gtag("):
        assert chrome not in text
    assert "text/html" in result.message
    assert site.hosts == [f"127.0.0.1:{site.server.server_address[1]}"]


@pytest.mark.parametrize("path", ["/gzip", "/br"])
def test_compressed_bodies_are_decoded(site: Site, web_ctx: ToolContext, path: str) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}{path}")
    assert result.success and "Pure path objects" in result.content


def test_a_20_mb_body_is_cut_at_5_mb_and_read_in_windows(site: Site, web_ctx: ToolContext) -> None:
    first = call(web_ctx, "web_fetch", url=f"{site.url}/huge")
    assert first.success
    assert "body cut at 5,242,880 bytes" in first.message
    assert first.data["total"] == 5 * MB
    assert len(first.render().encode()) <= web_ctx.output_limit
    end = first.data["end"]
    assert f"call again with start={end}" in first.message
    second = call(web_ctx, "web_fetch", url=f"{site.url}/huge", start=end)
    assert second.data["start"] == end and "from this session's cache" in second.message
    assert site.hits["/huge"] == 1


def test_the_cache_answers_a_second_fetch_without_a_request(site: Site, web_ctx: ToolContext) -> None:
    first = call(web_ctx, "web_fetch", url=f"{site.url}/docs")
    again = call(web_ctx, "web_fetch", url=f"{site.url}/docs")
    assert site.hits["/docs"] == 1
    assert again.content == first.content and again.data["cached"] is True


def test_a_redirect_is_followed_and_named(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/hop")
    assert result.success and f"{site.url}/docs (redirected from {site.url}/hop)" in result.message


def test_redirects_stop_after_five(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/loop")
    assert result.code == "fetch_failed" and "redirected more than 5 times" in (result.error or "")
    assert site.hits["/loop"] == 6


def test_a_pdf_becomes_text(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/paper.pdf")
    assert result.success, result.render()
    assert "--- page 1 ---" in result.content and "Quarterly results rose by 12 percent" in result.content


def test_json_passes_through_and_other_types_are_refused_by_name(site: Site, web_ctx: ToolContext) -> None:
    assert json.loads(call(web_ctx, "web_fetch", url=f"{site.url}/data.json").content) == {"name": "sneakycode"}
    refused = call(web_ctx, "web_fetch", url=f"{site.url}/logo.bin")
    assert refused.code == "unsupported_content" and "application/octet-stream" in (refused.error or "")


def test_an_error_status_is_an_http_error_with_the_page_text(site: Site, web_ctx: ToolContext) -> None:
    result = call(web_ctx, "web_fetch", url=f"{site.url}/missing")
    assert result.code == "http_error" and "HTTP 404" in (result.error or "")
    assert result.data["status"] == 404 and "The page moved" in result.content


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/pub/file.txt", "gopher://x/"])
def test_schemes_other_than_http_are_refused(web_ctx: ToolContext, url: str) -> None:
    result = call(web_ctx, "web_fetch", url=url)
    assert result.code == "fetch_failed" and "not an http or https URL" in (result.error or "")


def test_loopback_is_blocked_without_allow_private(site: Site, ctx: ToolContext) -> None:
    result = call(ctx, "web_fetch", url=f"{site.url}/hop")
    assert result.code == "blocked_address" and "loopback" in (result.error or "")
    assert sum(site.hits.values()) == 0


def test_an_untrusted_project_cannot_allow_private_addresses(site: Site, ws: Path) -> None:
    project_config(ws, "[tools.web]\nallow_private = true\n", trusted=False)
    loaded = load_settings(ws)
    assert loaded.settings.tools.web.allow_private is False
    assert any(line.startswith("tools.web.allow_private") for line in loaded.ignored)
    assert call(open_tool_context(loaded), "web_fetch", url=f"{site.url}/docs").code == "blocked_address"


def test_a_domain_deny_rule_holds_on_the_first_url_and_on_redirects(site: Site, ws: Path) -> None:
    target = f"http://localhost:{site.server.server_address[1]}/docs"
    site.routes["/to-localhost"] = (302, {"Location": target}, b"")
    project_config(ws, '[tools.web]\nallow_private = true\n[permissions]\ndeny = ["web_fetch(domain:localhost)"]\n')
    ctx = open_tool_context(load_settings(ws))
    direct = call(ctx, "web_fetch", url=target)
    assert direct.code == "permission_denied" and "web_fetch(domain:localhost)" in (direct.error or "")
    redirected = call(ctx, "web_fetch", url=f"{site.url}/to-localhost")
    assert redirected.code == "permission_denied" and site.hits["/docs"] == 0


def test_sneakycode_tool_fetches_and_permissions_check_explains_domain_rules(site: Site, ws: Path) -> None:
    project_config(ws, '[tools.web]\nallow_private = true\n[permissions]\n'
                       'allow = ["web_fetch(domain:docs.python.org)"]\ndeny = ["web_fetch(domain:*.internal)"]\n')
    fetched = run_main("tool", "web_fetch", json.dumps({"url": f"{site.url}/data.json"}), "--workspace", str(ws))
    assert fetched.code == 0 and "sneakycode" in fetched.stdout
    allowed = run_main("permissions", "check", "web_fetch", '{"url": "https://docs.python.org/3/"}',
                       "--workspace", str(ws))
    assert "allow" in allowed.stdout and "`docs.python.org` matches allow rule" in allowed.stdout
    denied = run_main("permissions", "check", "web_fetch", '{"url": "http://Metadata.Internal./x"}', "--workspace",
                      str(ws))
    assert "deny" in denied.stdout and "`metadata.internal` matches deny rule" in denied.stdout
    other = run_main("permissions", "check", "web_fetch", '{"url": "https://example.com/"}', "--workspace", str(ws))
    assert "ask" in other.stdout
