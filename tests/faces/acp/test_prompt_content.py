"""What an editor puts in a prompt: images (to a model that takes them), files dragged in as resource links
or embedded resources (attached, and counting as read for the edit gate, as `@file` does)."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from acp import embedded_text_resource, image_block, resource_block, resource_link_block, schema, text_block
from PIL import Image

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, agent_env, call, finish, initialized, run, running_agent


def png() -> str:
    picture = Image.new("RGB", (4, 3), (200, 30, 30))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def prompt_once(server: ScriptedServer, ws: Path, blocks: list[Any], model: str = "scripted-model",
                editor: Editor | None = None) -> tuple[schema.InitializeResponse, Any]:
    async def go() -> tuple[schema.InitializeResponse, Any]:
        async with running_agent(editor or Editor(["allow_once"]), server,
                                 env=agent_env(server, SNEAKYCODE_MODEL=model)) as (conn, _process):
            init = await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            try:
                answer = await conn.prompt(session_id=new.session_id, prompt=blocks)
            except Exception as exc:
                answer = exc
            return init, answer

    result: tuple[schema.InitializeResponse, Any] = run(go)
    return result


def test_an_image_goes_to_a_vision_model(ws: Path, server: ScriptedServer) -> None:
    server.add_steps([{"content": "A red rectangle."}])
    init, answer = prompt_once(server, ws, [text_block("what is this?"), image_block(png(), "image/png")],
                               model="gpt-4o")
    assert init.agent_capabilities.prompt_capabilities.image is True
    assert answer.stop_reason == "end_turn"
    [user] = [m for m in server.requests[-1].body["messages"] if m["role"] == "user"]
    parts = user["content"]
    assert parts[0] == {"type": "text", "text": "what is this?"}
    assert parts[1]["type"] == "image_url" and parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_an_image_to_a_model_without_vision_is_refused_before_anything_is_sent(
        ws: Path, server: ScriptedServer) -> None:
    init, answer = prompt_once(server, ws, [text_block("what is this?"), image_block(png(), "image/png")])
    assert init.agent_capabilities.prompt_capabilities.image is False
    assert getattr(answer, "code", None) == -32602 and "does not take images" in str(answer.data)
    assert server.requests == [] or all("chat" not in r.path for r in server.requests)


def test_a_file_the_user_dragged_in_is_attached_and_counts_as_read_for_the_edit(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "app.py").write_text("DEBUG = True\n")
    (ws / "notes.md").write_text("unsaved? no\n")
    server.add_steps([
        call("str_replace", file_path="app.py", old_str="True", new_str="False"),
        call("str_replace", file_path="notes.md", old_str="no", new_str="yes"),
        finish("Both edited without reading them again."),
    ])
    blocks = [
        text_block("turn debug off"),
        resource_link_block("app.py", (ws / "app.py").resolve().as_uri()),
        resource_block(embedded_text_resource((ws / "notes.md").resolve().as_uri(), "unsaved? no\n")),
        resource_link_block("outside", "https://example.com/spec"),
    ]
    _init, answer = prompt_once(server, ws, blocks, editor=Editor(["allow_once", "allow_once"]))
    assert answer.stop_reason == "end_turn"
    assert (ws / "app.py").read_text() == "DEBUG = False\n" and (ws / "notes.md").read_text() == "unsaved? yes\n"
    first = next(r for r in server.requests if r.path.endswith("/chat/completions"))
    [user] = [m for m in first.body["messages"] if m["role"] == "user"]
    text = user["content"] if isinstance(user["content"], str) else user["content"][0]["text"]
    assert "Contents of app.py (attached by the user" in text and "DEBUG = True" in text
    assert "Contents of notes.md (attached by the user, as their editor has it)" in text
    assert "[outside](https://example.com/spec)" in text
