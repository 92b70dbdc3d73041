"""Images for models that accept them: recognised by their first bytes, scaled down with Pillow to what
providers take (at most 1,568 px on the long side, Anthropic's recommended size, and 5 MB), never sent as
text. read_file uses it for PNG, JPEG, GIF and WebP files; the terminal and `--image` for attachments."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import ImagePart

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

MAX_SIDE = 1568
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_SOURCE_BYTES = 50 * 1024 * 1024  # a larger file is not opened: no screenshot is that big
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
TEXT_ONLY_HINT = (
    "The current model does not accept images. Ask the user to describe the image, or to run with a vision "
    "model (or set supports_images = true if this model does accept them)."
)


def sniff_image(head: bytes) -> str | None:
    """The media type of a PNG, JPEG, GIF or WebP file from its first 12 bytes, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def prepare_image(raw: bytes, label: str) -> tuple[ImagePart, tuple[int, int]]:
    """The image as sent to the model, and its original size. An image within the limits goes as it is; a
    larger one is scaled to MAX_SIDE and re-encoded (JPEG stays JPEG, the rest becomes PNG, and a PNG still
    over MAX_IMAGE_BYTES becomes JPEG). A GIF or WebP animation sends its first frame."""
    from PIL import Image, UnidentifiedImageError

    media_type = sniff_image(raw[:12])
    if media_type is None:
        raise ToolError(ErrorCode.UNSUPPORTED_CONTENT, f"{label} is not a PNG, JPEG, GIF or WebP image")
    try:
        with Image.open(io.BytesIO(raw)) as opened:
            original = opened.size
            if max(original) <= MAX_SIDE and len(raw) <= MAX_IMAGE_BYTES:
                return ImagePart(media_type, raw, *original), original
            frame = opened.convert("RGBA" if opened.mode in ("RGBA", "LA", "P", "PA") else "RGB")
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError) as exc:
        raise ToolError(ErrorCode.UNSUPPORTED_CONTENT, f"{label} cannot be read as an image: {exc}") from None
    frame.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    data, media_type = _encode(frame, "JPEG" if media_type == "image/jpeg" else "PNG")
    if len(data) > MAX_IMAGE_BYTES:
        data, media_type = _encode(frame.convert("RGB"), "JPEG")
    return ImagePart(media_type, data, *frame.size), original


def _encode(frame: Picture, kind: str) -> tuple[bytes, str]:
    out = io.BytesIO()
    if kind == "JPEG":
        frame.convert("RGB").save(out, "JPEG", quality=85, optimize=True)
        return out.getvalue(), "image/jpeg"
    frame.save(out, "PNG", optimize=True)
    return out.getvalue(), "image/png"


def describe(label: str, image: ImagePart, original: tuple[int, int]) -> str:
    scaled = "" if original == (image.width, image.height) else f", scaled from {original[0]}x{original[1]}"
    kind = image.media_type.removeprefix("image/").upper()
    return f"{label}: {kind} image, {image.width}x{image.height} px{scaled}"


def load_image_file(path: Path) -> ImagePart:
    """An image file the user named (a terminal attachment, `--image`), ready to send; a ToolError says why
    not (missing, too large, not an image)."""
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise ToolError(ErrorCode.FILE_TOO_LARGE, f"{path} is {size:,} bytes, over {MAX_SOURCE_BYTES:,}")
        raw = path.read_bytes()
    except OSError as exc:
        raise ToolError(ErrorCode.IO_ERROR, f"{path} cannot be read: {exc.strerror or exc}") from None
    return prepare_image(raw, str(path))[0]
