"""What a server answered, as the model sees it: text, resource links and embedded text resources in
order; images and other binary content described in words (kept in `data`), and for a model that takes
images the first image attached as the result's `image`, scaled like any other; `isError` as a failed
result with code `mcp_error`. Text over the output limit is cut in the middle
and saved in full to the session folder, exactly like long command output.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import mcp_types

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.process.capture import HeadTailCapture
from sneakycode.tools.base import ImagePart, ToolContext, ToolResult
from sneakycode.tools.shell import SPILL_LIMIT_BYTES, excerpt, saved_where

# Room within the output limit for the status lines around the text.
_MARKER_ROOM = 1024


def convert_result(label: str, answer: mcp_types.CallToolResult, ctx: ToolContext) -> ToolResult:
    parts: list[str] = []
    images: list[dict[str, str]] = []
    for block in answer.content:
        parts.append(render_block(block, images))
    if not parts and answer.structured_content is not None:
        parts.append(json.dumps(answer.structured_content, ensure_ascii=False, indent=1))
    text = "\n".join(part for part in parts if part)
    bounded, data = _bounded(text, ctx)
    image = None
    if images:
        data["images"] = images
        if ctx.supports_images and not answer.is_error:
            image, note = attachable_image(images[0]["data"], f"{label}'s image")
            bounded = f"{bounded}\n[{note}]"
    if answer.is_error:
        return ToolResult.fail(ErrorCode.MCP_ERROR, f"{label} reported an error", detail=bounded or "(no message)",
                               **data)
    return ToolResult(success=True, content=bounded or "(no output)", data=data, image=image)


def attachable_image(encoded: str, label: str) -> tuple[ImagePart | None, str]:
    """The base64 image scaled for the model, and a line saying it is attached below (or why it is not)."""
    from sneakycode.tools.images import describe, prepare_image

    try:
        raw = base64.b64decode(encoded, validate=False)
        image, original = prepare_image(raw, label)
    except (binascii.Error, ValueError):
        return None, f"{label} is not valid base64, so it is not attached"
    except ToolError as err:
        return None, f"{err.error}, so it is not attached"
    return image, f"{describe(label, image, original)}; it is attached below as an image"


def render_block(block: Any, images: list[dict[str, str]]) -> str:
    if isinstance(block, mcp_types.TextContent):
        return block.text
    if isinstance(block, mcp_types.ImageContent):
        images.append({"mime_type": block.mime_type, "data": block.data})
        return f"[image: {block.mime_type}, {decoded_size(block.data):,} bytes]"
    if isinstance(block, mcp_types.AudioContent):
        return f"[audio: {block.mime_type}, {decoded_size(block.data):,} bytes, not shown]"
    if isinstance(block, mcp_types.ResourceLink):
        about = f": {block.description}" if block.description else ""
        kind = f" ({block.mime_type})" if block.mime_type else ""
        return f"[resource link {block.name}{kind}: {block.uri}{about}]"
    if isinstance(block, mcp_types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, mcp_types.TextResourceContents):
            return f"[resource {resource.uri}]\n{resource.text}"
        kind = resource.mime_type or "binary"
        return f"[resource {resource.uri}: {kind}, {decoded_size(resource.blob):,} bytes, not shown]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"


def decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _bounded(text: str, ctx: ToolContext) -> tuple[str, dict[str, Any]]:
    """The text within the output limit (head and tail around a marker), and where the full text went."""
    encoded = text.encode("utf-8")
    budget = max(ctx.output_limit - _MARKER_ROOM, 256)
    if len(encoded) <= budget:
        return text, {}
    capture = HeadTailCapture(budget // 2, budget - budget // 2, ctx.session_dir / "outputs", SPILL_LIMIT_BYTES)
    try:
        capture.feed(encoded)
    finally:
        capture.close()
    path = str(capture.spill_path) if capture.spill_path else None
    return excerpt(capture, saved_where(capture)), {"output_bytes": len(encoded), "output_path": path}
