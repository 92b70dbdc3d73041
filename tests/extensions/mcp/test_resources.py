"""`@SERVER:URI` attachments against the SDK-built fixture server: text attached after the request (cut at
the output limit with a note), images attached for a vision model and described otherwise, binary content
described; an unknown server or a failing read leaves the token as text with a notice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.extensions.mcp.manager import McpServers
from sneakycode.extensions.mcp.resources import attach_resources, resource_mentions
from sneakycode.tools.base import ToolContext
from tests.extensions.mcp.servers import fixture_server
from tests.extensions.mcp.test_client import started


@pytest.fixture
def fx(ws: Path) -> Iterator[tuple[McpServers, ToolContext]]:
    running, ctx = started(ws, {"fx": fixture_server()})
    try:
        yield running, ctx
    finally:
        running.close()


def test_mentions_need_a_server_and_a_uri_with_a_scheme() -> None:
    text = "see @fx:file:///notes.txt, then @app:route and mail@fx:file:///x and `@fx:file:///y`"
    assert resource_mentions(text) == [("fx", "file:///notes.txt")]


def test_a_text_resource_is_attached_after_the_request(fx: tuple[McpServers, ToolContext]) -> None:
    attached = attach_resources("Summarise @fx:file:///notes.txt.", *fx)
    assert attached.notices == [] and attached.images == []
    assert attached.text == ('Summarise @fx:file:///notes.txt.\n\n'
                             '<resource server="fx" uri="file:///notes.txt" mime_type="text/plain">\n'
                             'the notes say: ship on Friday\n</resource>')


def test_a_long_resource_is_cut_at_the_output_limit_with_a_note(fx: tuple[McpServers, ToolContext]) -> None:
    running, ctx = fx
    attached = attach_resources("@fx:file:///big.txt", running, ctx)
    assert "END-MARKER" not in attached.text
    assert f"[cut at {ctx.output_limit:,} of 200,000 bytes (max_output_bytes)]" in attached.text
    assert len(attached.text.encode()) < ctx.output_limit + 500


def test_an_image_is_attached_for_a_vision_model_and_described_otherwise(fx: tuple[McpServers, ToolContext]) -> None:
    running, ctx = fx
    described = attach_resources("@fx:file:///pixel.png", running, ctx)
    assert described.images == [] and "[file:///pixel.png: image/png, 70 bytes, not shown]" in described.text
    ctx.supports_images = True
    attached = attach_resources("@fx:file:///pixel.png", running, ctx)
    [image] = attached.images
    assert (image.media_type, image.width, image.height) == ("image/png", 1, 1)
    assert "attached below as an image" in attached.text


def test_binary_content_is_described(fx: tuple[McpServers, ToolContext]) -> None:
    attached = attach_resources("@fx:file:///data.bin", *fx)
    assert "[file:///data.bin: application/octet-stream, 256 bytes, not shown]" in attached.text


def test_an_unknown_server_or_a_failed_read_leaves_the_token_with_a_notice(fx: tuple[McpServers, ToolContext]) -> None:
    attached = attach_resources("read @nope:file:///a.txt and @fx:file:///missing.txt", *fx)
    assert attached.text == "read @nope:file:///a.txt and @fx:file:///missing.txt"
    first, second = attached.notices
    assert first == "@nope:file:///a.txt was not attached: no MCP server nope is connected (connected: fx)"
    assert second.startswith("@fx:file:///missing.txt was not attached: MCP server fx could not read it")
    assert "no resource file:///missing.txt" in second
