"""Images a face attaches to a request (`-p --image PATH`): read and scaled by the one image loader, for a
model the session knows to accept them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.errors import ConfigError, ToolError

if TYPE_CHECKING:
    from sneakycode.api.session import Session
    from sneakycode.tools.base import ImagePart

__all__ = ["attach_images"]


def attach_images(session: Session, paths: list[str], *, flag: str = "--image") -> list[ImagePart]:
    """The files at `paths`, scaled for the session's model; a ConfigError (naming `flag`) when one cannot be
    read or the model takes no images."""
    if not paths:
        return []
    if not session._parts.ctx.supports_images:
        raise ConfigError(
            f"{flag} needs a model that accepts images, and {session.model} is not known to (set supports_images = "
            "true if it does, or choose a vision model with --model)"
        )
    from sneakycode.tools.images import load_image_file

    try:
        return [load_image_file(Path(path)) for path in paths]
    except ToolError as err:
        raise ConfigError(f"{flag}: [{err.code}] {err.error}") from None
