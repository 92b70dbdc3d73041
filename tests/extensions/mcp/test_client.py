"""The MCP client against real servers (the SDK-built fixture over stdio and streamable HTTP): tools become
`mcp__SERVER__TOOL` with cleaned schemas, and every kind of answer becomes the result the model should see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.extensions.mcp.manager import McpServers
from sneakycode.extensions.mcp.tools import clean_schema, tool_name
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import Tier, ToolContext
from sneakycode.tools.context import open_tool_context
from tests.extensions.mcp.servers import fixture_server, http_fixture, servers_toml


def started(ws: Path, servers: dict[str, dict[str, object]], extra: str = "") -> tuple[McpServers, ToolContext]:
    config = ws / "user.toml"
    config.write_text(servers_toml(servers, extra))
    loaded = load_settings(ws, user_config=config)
    ctx = open_tool_context(loaded)
    running = McpServers(loaded, ctx.session_dir / "mcp")
    running.start()
    return running, ctx


@pytest.fixture
def fx(ws: Path) -> Iterator[tuple[McpServers, Gate]]:
    running, ctx = started(ws, {"fx": fixture_server(trust_read_only=True, tool_timeout=3)})
    try:
        yield running, Gate(ctx, offered=running.tools())
    finally:
        running.close()


def test_tools_get_prefixed_names_clean_schemas_and_tiers(fx: tuple[McpServers, Gate]) -> None:
    running, _ = fx
    tools = {t.name: t for t in running.tools()}
    assert {"mcp__fx__echo", "mcp__fx__lookup", "mcp__fx__delete_note"} <= set(tools)
    schema = tools["mcp__fx__echo"].openai_schema()["function"]["parameters"]
    assert schema == {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    assert tools["mcp__fx__lookup"].tier is Tier.AUTO  # readOnlyHint, and the config trusts it
    assert tools["mcp__fx__echo"].tier is Tier.CONFIRM
    assert running.rows()[0].status == "connected" and running.rows()[0].tools == 10


def test_results_text_images_resources_and_errors(fx: tuple[McpServers, Gate]) -> None:
    _, gate = fx
    assert gate.run_direct("mcp__fx__add", {"a": 2, "b": 3}).render() == "5"
    picture = gate.run_direct("mcp__fx__picture", {})
    assert picture.success and "[image: image/png, 70 bytes]" in picture.content
    assert picture.data["images"][0]["mime_type"] == "image/png"
    docs = gate.run_direct("mcp__fx__docs", {}).content
    assert "[resource link guide (text/markdown): file:///guide.md: the user guide]" in docs
    assert "[resource file:///notes.txt]\nembedded notes text" in docs
    failed = gate.run_direct("mcp__fx__fail", {})
    assert not failed.success and failed.render().startswith("Error [mcp_error]: fx/fail reported an error")
    assert "the widget is broken" in failed.render()


def test_an_image_is_attached_for_a_vision_model_and_described_otherwise(fx: tuple[McpServers, Gate]) -> None:
    _, gate = fx
    assert gate.run_direct("mcp__fx__picture", {}).image is None
    gate.ctx.supports_images = True
    picture = gate.run_direct("mcp__fx__picture", {})
    assert picture.image is not None and picture.image.media_type == "image/png"
    assert (picture.image.width, picture.image.height) == (1, 1)
    assert "a one-pixel picture" in picture.content and "attached below as an image" in picture.content


def test_a_huge_result_is_cut_and_saved_in_full(fx: tuple[McpServers, Gate]) -> None:
    _, gate = fx
    result = gate.run_direct("mcp__fx__big", {"size": 10_000_000})
    assert result.success and len(result.render().encode()) <= gate.ctx.output_limit
    assert "bytes cut here" in result.content
    saved = Path(result.data["output_path"])
    assert saved.stat().st_size == 10_000_000


def test_a_hung_call_times_out_and_the_server_still_answers(fx: tuple[McpServers, Gate]) -> None:
    _, gate = fx
    hung = gate.run_direct("mcp__fx__hang", {"seconds": 30})
    assert hung.code == "timed_out" and "tool_timeout of 3 s" in hung.render()
    assert gate.run_direct("mcp__fx__echo", {"text": "still here"}).content == "echo: still here"


def test_streamable_http_server(ws: Path) -> None:
    with http_fixture() as url:
        # A loaded machine can take over the default 10 s to bring up the fixture's HTTP stack; what is tested here
        # is the transport, not the timeout (test_sessions.py tests that).
        running, ctx = started(ws, {"web": {"url": url, "startup_timeout": 60}})
        try:
            assert not running.notices, running.notices
            gate = Gate(ctx, offered=running.tools())
            assert gate.run_direct("mcp__web__echo", {"text": "over http"}).content == "echo: over http"
        finally:
            running.close()


def test_names_are_sanitised_bounded_and_unique() -> None:
    assert tool_name("my docs", "search.v2", set()) == "mcp__my_docs__search_v2"
    long = tool_name("server", "x" * 100, set())
    assert len(long) == 64 and long.startswith("mcp__server__xxx")
    assert tool_name("a", "b.c", {"mcp__a__b_c"}) != "mcp__a__b_c"


def test_schema_cleaning_inlines_refs_and_keeps_a_property_called_title() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "title": "Args",
        "properties": {"title": {"type": "string", "title": "Title"}, "owner": {"$ref": "#/$defs/User"}},
        "$defs": {"User": {"type": "object", "title": "User", "properties": {"login": {"type": "string"}}}},
    }
    assert clean_schema(schema) == {
        "type": "object",
        "properties": {"title": {"type": "string"},
                       "owner": {"type": "object", "properties": {"login": {"type": "string"}}}},
    }
    assert clean_schema({}) == {"type": "object", "properties": {}}
