"""Images in the history: what they count for in the context estimate, and compaction dropping old ones
before any tool output."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from sneakycode.agent.context import ContextManager, estimate_history_tokens, estimate_message_tokens
from sneakycode.agent.images import IMAGE_SIZES, tool_images_message, user_message
from sneakycode.agent.model.client import prepare_messages
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ImagePart, ToolContext
from sneakycode.tools.images import load_image_file
from tests.agent.test_context import History


def image(ws: Path, name: str, size: tuple[int, int]) -> ImagePart:
    Image.new("RGB", size, "white").save(ws / name)
    return load_image_file(ws / name)


def test_an_image_counts_width_times_height_over_750_not_its_base64(ws: Path) -> None:
    shot = image(ws, "shot.png", (1500, 1000))
    message = user_message("see this", [shot])
    assert estimate_message_tokens(message) == len("see this") // 3 + 2000 + 4


def test_the_sizes_kept_beside_the_images_are_never_sent(ws: Path) -> None:
    message = tool_images_message([("read_file shot.png", image(ws, "shot.png", (10, 10)))])
    [sent] = prepare_messages([message])
    assert IMAGE_SIZES in message and set(sent) == {"role", "content"}


def test_compaction_drops_old_images_before_eliding_tool_outputs(ctx: ToolContext, ws: Path) -> None:
    ctx.supports_images = True
    (ws / "big.py").write_text("".join(f"line_{n} = {n}\n" for n in range(300)))
    history = History(ctx)
    history.call("read_file", file_path="big.py")
    history.messages.append(tool_images_message([("read_file old.png", image(ws, "old.png", (1568, 1568)))]))
    history.messages.append({"role": "assistant", "content": "Looked at it."})
    history.messages.append(user_message("and now this one", [image(ws, "new.png", (800, 600))]))
    history.messages.append({"role": "assistant", "content": "Working."})
    window = estimate_history_tokens(history.messages) + 200
    model = ScriptedModel([AssistantTurn(content="summary")])
    report = ContextManager(window, ctx.workspace, target=0.6).compact(history.messages, 0, model)
    assert report is not None and report.images_dropped == 1 and report.elided == []
    old = history.messages[4]
    assert isinstance(old["content"], str) and "[image dropped to fit the context window" in old["content"]
    assert "read_file old.png" in old["content"]
    request = history.messages[6]
    assert isinstance(request["content"], list) and request["content"][1]["type"] == "image_url"
    assert "1 old image(s) dropped" in report.describe()
