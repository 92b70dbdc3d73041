"""Images end to end: the real `sneakycode -p` against the scripted server on 127.0.0.1, asserting what the
server received."""

from __future__ import annotations

import base64
import io
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, project_config, run_cli
from tests.faces.cli.test_headless import ENV, call, finish


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["gpt-4o", "qwen2.5-coder:7b"]}) as running:
        yield running


def run(server: ScriptedServer, ws: Path, model: str, *flags: str) -> CliResult:
    return run_cli("-p", "Look at the screenshot", "--base-url", server.base_url, "--model", model,
                   "--workspace", str(ws), "--yes", *flags, env=ENV)


def images_sent(request: dict[str, Any]) -> list[Image.Image]:
    found = []
    for message in request["messages"]:
        if isinstance(message["content"], list):
            for part in message["content"]:
                if part["type"] == "image_url":
                    url = part["image_url"]["url"]
                    assert url.startswith("data:image/png;base64,")
                    found.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return found


def test_a_png_reaches_a_vision_model_as_an_image_part_after_the_tool_results(server: ScriptedServer, ws: Path) -> None:
    Image.new("RGB", (4000, 2000), "green").save(ws / "shot.png")
    server.add_steps([call("read_file", file_path="shot.png"), finish("It is green.")])
    result = run(server, ws, "gpt-4o")
    assert result.code == 0, result.stderr
    second = server.chat_requests[1]["messages"]
    tool, attached = second[-2], second[-1]
    assert tool["role"] == "tool" and "attached below as an image" in tool["content"]
    assert attached["role"] == "user" and set(attached) == {"role", "content"}
    assert "read_file shot.png" in attached["content"][0]["text"]
    [image] = images_sent(server.chat_requests[1])
    assert image.size == (1568, 784) and image.getpixel((10, 10)) == (0, 128, 0)


def test_a_text_model_gets_a_coded_refusal_and_no_image(server: ScriptedServer, ws: Path) -> None:
    Image.new("RGB", (64, 64)).save(ws / "shot.png")
    server.add_steps([call("read_file", file_path="shot.png"), finish("Cannot see it.")])
    result = run(server, ws, "qwen2.5-coder:7b")
    assert result.code == 0, result.stderr
    tool = server.chat_requests[1]["messages"][-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Error [unsupported_content]")
    assert images_sent(server.chat_requests[1]) == []


def test_supports_images_in_the_config_overrides_the_model_table(server: ScriptedServer, ws: Path) -> None:
    Image.new("RGB", (64, 64)).save(ws / "shot.png")
    project_config(ws, "supports_images = true\n")
    server.add_steps([call("read_file", file_path="shot.png"), finish("Seen.")])
    assert run(server, ws, "qwen2.5-coder:7b").code == 0
    assert len(images_sent(server.chat_requests[1])) == 1


def test_headless_image_flags_make_the_first_message_text_and_images(server: ScriptedServer, ws: Path) -> None:
    Image.new("RGB", (100, 50), "red").save(ws / "a.png")
    Image.new("RGB", (30, 30), "blue").save(ws / "b.png")
    server.add_steps([finish("Two images.")])
    result = run(server, ws, "gpt-4o", "--image", str(ws / "a.png"), "--image", str(ws / "b.png"))
    assert result.code == 0, result.stderr
    request = server.chat_requests[0]["messages"][1]
    assert request["content"][0] == {"type": "text", "text": "Look at the screenshot"}
    assert [image.size for image in images_sent(server.chat_requests[0])] == [(100, 50), (30, 30)]


def test_headless_image_for_a_text_model_is_a_usage_error(server: ScriptedServer, ws: Path) -> None:
    Image.new("RGB", (10, 10)).save(ws / "a.png")
    result = run(server, ws, "qwen2.5-coder:7b", "--image", str(ws / "a.png"))
    assert result.code == 2 and "supports_images" in result.stderr
    assert server.chat_requests == []


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: os.mkfifo(path), "[not_regular_file] {path} is a FIFO (named pipe), not a regular file"),
        (lambda path: path.symlink_to("/dev/zero"), "[not_regular_file] {path} is a character device"),
        (lambda path: path.mkdir(), "[is_directory] {path} is a folder, not an image file"),
    ],
    ids=["fifo", "link-to-dev-zero", "folder"],
)
def test_headless_image_of_a_special_file_is_a_coded_usage_error_at_once(
    server: ScriptedServer, ws: Path, make: Callable[[Path], None], said: str
) -> None:
    """Hardening round two, class 4: `--image fifo` used to wait for a writer forever and `--image` of a link to
    /dev/zero to read without end; the regular-file reader refuses both at once, and nothing is sent."""
    path = ws / "shot.png"
    make(path)
    started = time.monotonic()
    result = run_cli("-p", "look", "--base-url", server.base_url, "--model", "gpt-4o", "--workspace", str(ws),
                     "--yes", "--image", str(path), env=ENV, timeout=30)
    assert time.monotonic() - started < 15  # a cold start on a busy machine; the old code never returned
    assert result.code == 2, result.stderr
    assert f"sneakycode: --image: {said.format(path=path)}" in result.stderr
    assert "Traceback" not in result.stderr and server.chat_requests == []
