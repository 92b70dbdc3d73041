"""Text files as the tools see them: decoded once, written back byte for byte in the same format.

UTF-8 with or without BOM and UTF-16 with BOM are text; anything with NUL bytes or invalid encoding is not
(binary_file). When every line break of a file is CRLF, its text uses LF and the CRLF style is remembered,
so the model never sees or has to type a carriage return, and an edit cannot mix line endings. Files with
mixed endings keep their text verbatim.
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path

from sneakycode.errors import ErrorCode, ToolError

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class TextFile:
    """A decoded text file. `text` uses LF when the file's line breaks are all CRLF; else it is verbatim."""

    path: Path
    text: str
    encoding: str
    bom: bool
    newline: str
    mode: int
    sha256: str
    size: int


@dataclass(frozen=True)
class TextFormat:
    """How text is turned back into bytes: the style of the file it came from, or of a new file."""

    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"


def decode_text(raw: bytes, display: str = "file") -> tuple[str, TextFormat]:
    """Decode bytes as text, or raise binary_file. Inverse of encode_text."""
    for mark, encoding in _UTF16_BOMS.items():
        if raw.startswith(mark):
            try:
                text = raw[len(mark) :].decode(encoding)
            except UnicodeDecodeError:
                raise binary_file_error(display, len(raw)) from None
            return _split_newline(text, encoding, bom=True)
    bom = raw.startswith(_UTF8_BOM)
    body = raw[len(_UTF8_BOM) :] if bom else raw
    if b"\x00" in body:
        raise binary_file_error(display, len(raw))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise binary_file_error(display, len(raw)) from None
    return _split_newline(text, "utf-8", bom=bom)


def _split_newline(text: str, encoding: str, *, bom: bool) -> tuple[str, TextFormat]:
    crlf = text.count("\r\n")
    if crlf and crlf == text.count("\n"):
        return text.replace("\r\n", "\n"), TextFormat(encoding, bom, "\r\n")
    return text, TextFormat(encoding, bom, "\n")


def encode_text(text: str, fmt: TextFormat) -> bytes:
    if fmt.newline == "\r\n":
        text = text.replace("\n", "\r\n")
    data = text.encode(fmt.encoding)
    if fmt.bom:
        data = (_UTF8_BOM if fmt.encoding == "utf-8" else _bom_for(fmt.encoding)) + data
    return data


def as_held(held: str | None, text: str, fmt: TextFormat, raw: bytes, limit: int) -> tuple[str, bytes]:
    """A file's text and bytes as an editor holds it (`held`, unsaved changes included) when that differs
    from the disk's `text`: the text as if saved in the file's own format, so the read ledger's hash, stale
    detection and the edit tools all work on what the user sees. None, text the format cannot hold, or bytes
    over `limit` leave the disk's."""
    if held is None:
        return text, raw
    held = held.replace("\r\n", "\n")
    if held == text:
        return text, raw
    try:
        data = encode_text(held, fmt)
    except UnicodeEncodeError:
        return text, raw
    return (held, data) if len(data) <= limit else (text, raw)


def _bom_for(encoding: str) -> bytes:
    return next(mark for mark, enc in _UTF16_BOMS.items() if enc == encoding)


def binary_file_error(display: str, size: int) -> ToolError:
    return ToolError(
        ErrorCode.BINARY_FILE,
        f"{display} is not a text file ({size} bytes; it has NUL bytes or is not valid UTF-8/UTF-16)",
    )


def short_diff(before: str, after: str, label: str, max_lines: int = 40) -> str:
    """A unified diff capped at max_lines, for showing the model what changed."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"{label} (as last read)", f"{label} (now)", lineterm="", n=1
        )
    )
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... ({len(lines) - max_lines} more diff lines)"]
    return "\n".join(lines)
