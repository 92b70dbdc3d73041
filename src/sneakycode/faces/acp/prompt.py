"""The editor's prompt (ACP content blocks) as one request: text as it is; a file the user dragged in (a
resource link, or an embedded resource with the editor's text) attached like `@file` and recorded as read,
so the model may edit it without reading it again; images scaled as `--image` scales them.

A file is read through the session's gate as a person's call (api/editor.py `read_for_user`): deny rules and
hidden paths refuse it, nothing asks. An embedded resource carries the editor's text, which may be an unsaved buffer:
the model gets that text, and the read is recorded from the file on disk (the edit gate compares against
the disk), so an edit against unsaved text fails as stale instead of overwriting the disk blindly.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from acp import schema

from sneakycode.api.editor import image_of, images_taken, read_for_user, workspace_root
from sneakycode.api.vocabulary import ImagePart, ToolError

if TYPE_CHECKING:
    from sneakycode.api.session import Session


class PromptProblem(ValueError):
    """A block that cannot be sent (an image to a model that takes none, an unreadable image)."""


@dataclass
class Request:
    text: str = ""
    images: list[ImagePart] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)  # workspace files attached (and recorded as read)
    problems: list[str] = field(default_factory=list)  # what could not be attached, told to the user


def file_path(uri: str, root: Path) -> str | None:
    """The workspace-relative path of a `file://` URI inside the workspace (None for anything else)."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("file", ""):
        return None
    path = Path(unquote(parsed.path))
    if not path.is_absolute():
        path = root / path
    try:
        return str(path.resolve().relative_to(root))
    except (ValueError, OSError):
        return None


def build_request(blocks: list[Any], session: Session) -> Request:
    request = Request()
    words: list[str] = []
    attachments: list[str] = []
    root = workspace_root(session)
    supports_images, model = images_taken(session), session.model
    for block in blocks:
        if isinstance(block, schema.TextContentBlock):
            words.append(block.text)
        elif isinstance(block, schema.ImageContentBlock):
            request.images.append(_image(block, supports_images, model))
        elif isinstance(block, schema.ResourceContentBlock):
            relative = file_path(block.uri, root)
            if relative is None:
                words.append(f"[{block.name}]({block.uri})")
                continue
            result = read_for_user(session, relative)
            if not result.success:
                request.problems.append(f"{relative}: [{result.code}] {result.error}")
                continue
            request.attached.append(relative)
            attachments.append(f"Contents of {relative} (attached by the user, as read_file shows it):\n"
                               f"{result.render()}")
        elif isinstance(block, schema.EmbeddedResourceContentBlock):
            attachments.append(_embedded(block.resource, session, root, request))
        else:  # audio: no model we drive takes it; initialize offers none
            request.problems.append(f"a {getattr(block, 'type', 'content')} block cannot be sent to the model")
    request.text = "\n\n".join(part for part in ["".join(words) if len(words) == 1 else "\n".join(words),
                                                 *attachments] if part)
    return request


def _embedded(resource: Any, session: Session, root: Path, request: Request) -> str:
    uri = str(resource.uri)
    relative = file_path(uri, root)
    label = relative or uri
    if isinstance(resource, schema.BlobResourceContents):
        return f"{label}: binary content ({resource.mime_type or 'unknown type'}) attached by the user, not shown"
    if relative is not None and (root / relative).is_file():
        recorded = read_for_user(session, relative)
        if recorded.success:
            request.attached.append(relative)
        else:
            request.problems.append(f"{relative}: [{recorded.code}] {recorded.error}")
            return ""
    return f"Contents of {label} (attached by the user, as their editor has it):\n{resource.text}"


def _image(block: schema.ImageContentBlock, supports_images: bool, model: str) -> ImagePart:
    if not supports_images:
        raise PromptProblem(f"{model} does not take images (set supports_images = true in the config if it does)")
    try:
        raw = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        raise PromptProblem("an image block's data is not base64") from None
    try:
        return image_of(raw, "the attached image")
    except ToolError as err:
        raise PromptProblem(err.error) from None
