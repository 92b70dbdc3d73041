"""Images for models that accept them: recognised by their first bytes, scaled down with Pillow to what
providers take (at most 1,568 px on the long side, Anthropic's recommended size, and 5 MB), never sent as
text. read_file uses it for PNG, JPEG, GIF and WebP files; the terminal and `--image` for attachments."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.config.files import NotRegularFile, open_regular
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import ImagePart

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

MAX_SIDE = 1568
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_SOURCE_BYTES = 50 * 1024 * 1024  # a larger file is not read: no screenshot is that big
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


def read_image_file(path: Path) -> bytes | None:
    """The bytes of a file someone named as an image (a terminal attachment, `--image`), or None when its first
    bytes are not an image's. It is opened as a regular file only, never blocking, and read up to
    MAX_SOURCE_BYTES: a FIFO would wait for a writer forever and `/dev/zero` never ends, so those (and links to
    them) are a ToolError at once, as are a folder, a missing file and one over the size limit."""
    try:
        fh, info = open_regular(path)
    except NotRegularFile as exc:
        if exc.kind == "a folder":
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{path} is a folder, not an image file") from None
        raise ToolError(ErrorCode.NOT_REGULAR_FILE, f"{path} is {exc.kind}, not a regular file, so it is not read",
                        hint="Name the image file itself (PNG, JPEG, GIF or WebP).") from None
    except FileNotFoundError:
        raise ToolError(ErrorCode.NOT_FOUND, f"{path} does not exist") from None
    except OSError as exc:
        raise _unreadable(path, exc) from None
    with fh:
        try:
            head = fh.read(12)
            if sniff_image(head) is None:
                return None
            raw = b"" if info.st_size > MAX_SOURCE_BYTES else head + fh.read(MAX_SOURCE_BYTES + 1 - len(head))
        except OSError as exc:
            raise _unreadable(path, exc) from None
    if not raw or len(raw) > MAX_SOURCE_BYTES:  # too large when opened, or grew past the limit while read
        size = max(info.st_size, len(raw))
        raise ToolError(ErrorCode.FILE_TOO_LARGE, f"{path} is {size:,} bytes, over {MAX_SOURCE_BYTES:,}")
    return raw


def _unreadable(path: Path, exc: OSError) -> ToolError:
    return ToolError(ErrorCode.IO_ERROR, f"{path} cannot be read: {exc.strerror or exc}")


def load_image_file(path: Path) -> ImagePart:
    """An image file the user named (a terminal attachment, `--image`), ready to send; a ToolError says why
    not (missing, not a regular file, too large, not an image)."""
    raw = read_image_file(path)
    if raw is None:
        raise ToolError(ErrorCode.UNSUPPORTED_CONTENT, f"{path} is not a PNG, JPEG, GIF or WebP image")
    return prepare_image(raw, str(path))[0]
