"""Images attached at the prompt: an `@shot.png` token, or a pasted path of an image file (terminals paste
a dragged file as its path, quoted or with spaces escaped). Only existing PNG, JPEG, GIF and WebP files
count; every other token stays text. The request text is sent unchanged, so the model sees the names too.
Every candidate is opened through the one regular-file reader (`api.mentions.image_attachment`): a FIFO or
`/dev/zero` named `shot.png` is a coded line at once, never a hang or an endless read."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.api.mentions import image_attachment
from sneakycode.api.vocabulary import IMAGE_SUFFIXES, ErrorCode, ImagePart, ToolError


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
        try:
            image = image_attachment(path)
            if image is None:
                continue  # not an image: `@notes.md` is a mention, read as text elsewhere
            found.images.append(image)
            found.names.append(candidate)
        except ToolError as err:
            if _worth_saying(err.code, candidate):
                found.problems.append(f"[{err.code}] {err.error}")
    return found


def _worth_saying(code: ErrorCode, candidate: str) -> bool:
    """Whether a token that attached nothing deserves a line: a missing path or a folder is just words
    (`and/or`, `@src/`); a FIFO, device or unreadable file only when named like an image (`@notes` is a
    mention, whose own read says what is wrong); an image that cannot be used always."""
    if code in (ErrorCode.NOT_FOUND, ErrorCode.IS_DIRECTORY):
        return False
    if code in (ErrorCode.NOT_REGULAR_FILE, ErrorCode.IO_ERROR):
        return Path(candidate).suffix.lower() in IMAGE_SUFFIXES
    return True
