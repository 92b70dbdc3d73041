"""Images attached at the prompt: an `@shot.png` token, or a pasted path of an image file (terminals paste
a dragged file as its path, quoted or with spaces escaped). Only existing PNG, JPEG, GIF and WebP files
count; every other token stays text. The request text is sent unchanged, so the model sees the names too."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.errors import ToolError
from sneakycode.tools.base import ImagePart
from sneakycode.tools.images import load_image_file, sniff_image


@dataclass
class Attachments:
    images: list[ImagePart] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def find_attachments(line: str, workspace: Path) -> Attachments:
    """The images a prompt line attaches: `@PATH` tokens and pasted paths (relative to the workspace, or
    absolute, `~` expanded) of existing image files; a named image that cannot be read is a problem."""
    try:
        tokens = shlex.split(line)
    except ValueError:  # an apostrophe in prose: plain words are good enough
        tokens = line.split()
    found = Attachments()
    for token in dict.fromkeys(tokens):
        explicit = token.startswith("@") and len(token) > 1
        candidate = token[1:] if explicit else token
        if not explicit and "/" not in candidate and not candidate.startswith("~"):
            continue  # a bare word is not taken for a pasted path
        path = Path(candidate).expanduser()
        path = path if path.is_absolute() else workspace / path
        if not _is_image(path):
            continue
        try:
            found.images.append(load_image_file(path))
            found.names.append(candidate)
        except ToolError as err:
            found.problems.append(err.error)
    return found


def _is_image(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return path.is_file() and sniff_image(fh.read(12)) is not None
    except OSError:
        return False
