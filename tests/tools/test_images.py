"""read_file on images: an image part for a model that takes images, a coded refusal for one that does not,
and Pillow scaling to the providers' limits."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from sneakycode.tools.base import ToolContext
from sneakycode.tools.images import MAX_SIDE, sniff_image
from tests.conftest import call


def png(path: Path, size: tuple[int, int], color: str = "red") -> Path:
    Image.new("RGB", size, color).save(path, "PNG")
    return path


def test_a_png_becomes_an_image_part_for_a_vision_model(ctx: ToolContext, ws: Path) -> None:
    raw = png(ws / "shot.png", (320, 200)).read_bytes()
    ctx.supports_images = True
    result = call(ctx, "read_file", file_path="shot.png")
    assert result.success and result.image is not None
    assert result.image.media_type == "image/png" and result.image.data == raw
    assert "shot.png: PNG image, 320x200 px; it is attached below" in result.render()
    assert result.to_dict()["image"] == {"media_type": "image/png", "width": 320, "height": 200, "bytes": len(raw)}


def test_a_text_only_model_gets_unsupported_content_and_never_the_bytes(ctx: ToolContext, ws: Path) -> None:
    png(ws / "shot.png", (32, 32))
    result = call(ctx, "read_file", file_path="shot.png")
    assert result.code == "unsupported_content" and result.image is None
    assert "does not accept images" in (result.error or "") and "vision model" in result.message
    assert "PNG" in (result.error or "") and "\x89PNG" not in result.render()


def test_a_4000_px_image_is_scaled_to_1568_on_the_long_side(ctx: ToolContext, ws: Path) -> None:
    png(ws / "big.png", (4000, 3000), "blue")
    ctx.supports_images = True
    result = call(ctx, "read_file", file_path="big.png")
    assert result.image is not None
    sent = Image.open(io.BytesIO(result.image.data))
    assert sent.size == (MAX_SIDE, 1176) == (result.image.width, result.image.height)
    assert "scaled from 4000x3000" in result.content


def test_an_image_without_an_image_suffix_is_still_recognised(ctx: ToolContext, ws: Path) -> None:
    Image.new("RGB", (10, 10)).save(ws / "capture.dat", "JPEG")
    ctx.supports_images = True
    result = call(ctx, "read_file", file_path="capture.dat")
    assert result.image is not None and result.image.media_type == "image/jpeg"


def test_a_text_file_named_png_is_read_as_text(ctx: ToolContext, ws: Path) -> None:
    (ws / "notes.png").write_text("not really an image\n")
    assert call(ctx, "read_file", file_path="notes.png").content.endswith("not really an image")


def test_magic_bytes_decide_the_type() -> None:
    assert sniff_image(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0d") == "image/png"
    assert sniff_image(b"GIF89a......") == "image/gif"
    assert sniff_image(b"RIFF\x00\x00\x00\x00WEBP") == "image/webp"
    assert sniff_image(b"%PDF-1.4") is None
