"""What a prompt line brings along besides its words, for a face: `@file` (the file as read_file shows it,
numbered and bounded, recorded as read so the model may edit it without reading it again), `@dir/` (its
listing), an image named or pasted (read through the one regular-file image reader), `!cmd` (the person's own
command, whose output joins the next request), and the `@PATH` completions a prompt offers.

Mentions go through the session's gate like the model's own calls, so deny rules and hidden paths still hold;
a `!cmd` is the person's own command and runs without approval, under the same process control (timeout,
process-group kill on Esc or Ctrl-C, output capped) as run_command.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.tools.base import ImagePart, ToolResult
from sneakycode.tools.images import IMAGE_SUFFIXES, prepare_image, read_image_file

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts
    from sneakycode.permissions.gate import Gate

MENTION = re.compile(r"(?<!\S)@(\S+)")
TRAILING_PUNCTUATION = ".,;:!?)'\""
MAX_PATH_COMPLETIONS = 200


@dataclass
class Mentions:
    blocks: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def request(self, line: str) -> str:
        """The line as the model gets it: the user's words, then what they attached."""
        return "\n\n".join([line, *self.blocks])


def mentioned_paths(line: str, workspace: Path) -> list[str]:
    """The `@PATH` tokens naming an existing file or folder of the workspace (images aside: those are
    attached as images); trailing prose punctuation is not part of the path."""
    found = []
    for token in dict.fromkeys(MENTION.findall(line)):
        for candidate in dict.fromkeys((token, token.rstrip(TRAILING_PUNCTUATION))):
            path = workspace / candidate
            if candidate and path.exists() and Path(candidate).suffix.lower() not in IMAGE_SUFFIXES:
                found.append(candidate)
                break
    return found


def expand_mentions(line: str, gate: Gate) -> Mentions:
    """Read every mentioned file and list every mentioned folder, through `gate` (a person's call: deny rules
    refuse, nothing asks)."""
    from sneakycode.tools.read import list_dir, read_file

    mentions = Mentions()
    root = gate.ctx.workspace.root
    for name in mentioned_paths(line, root):
        if (root / name).is_dir():
            result = gate.run_direct(list_dir.name, {"directory_path": name})
            label = f"Listing of {name.rstrip('/')}/ (attached by the user)"
        else:
            result = gate.run_direct(read_file.name, {"file_path": name})
            label = f"Contents of {name} (attached by the user, as read_file shows it)"
        if not result.success:
            mentions.problems.append(f"@{name}: [{result.code}] {result.error}")
            continue
        mentions.names.append(name)
        mentions.blocks.append(f"{label}:\n{result.render()}")
    return mentions


def command_context(command: str, result: ToolResult) -> str:
    """What the next request carries about a `!cmd`: the command and its output, as the model would see it."""
    return f"I ran `{command}` in the workspace myself. What it printed:\n{result.render()}"


def image_attachment(path: Path) -> ImagePart | None:
    """The image at `path` as it would be sent, or None when the file is not an image; a ToolError (coded)
    when it cannot be read or used: a FIFO or `/dev/zero` named `shot.png` fails at once, never hangs."""
    raw = read_image_file(path)
    return None if raw is None else prepare_image(raw, str(path))[0]


def path_completions(root: Path, typed: str, limit: int = MAX_PATH_COMPLETIONS) -> list[str]:
    """The entries of the workspace folder `typed` points into whose names start with what follows its last
    slash, as `folder/name` (folders end in `/`); what .gitignore and the other ignore files hide is left
    out, as the search tools leave it out, and nothing outside the workspace is listed."""
    from sneakycode.tools.search.walk import Chain
    from sneakycode.workspace.paths import contains

    folder_part, _, prefix = typed.rpartition("/")
    folder = (root / folder_part) if folder_part else root
    try:
        real = folder.resolve()
        if not contains(root.resolve(), real):
            return []
        entries = sorted(os.scandir(real), key=lambda entry: entry.name)
    except OSError:
        return []
    chain = Chain.above(str(real))
    found: list[str] = []
    for entry in entries:
        if entry.name == ".git" or not entry.name.startswith(prefix):
            continue
        if not prefix.startswith(".") and entry.name.startswith("."):
            continue  # dot files only when asked for, as a shell does
        is_dir = entry.is_dir()
        if chain.levels and chain.ignored(entry.path, is_dir):
            continue
        name = f"{folder_part}/{entry.name}" if folder_part else entry.name
        found.append(name + ("/" if is_dir else ""))
        if len(found) >= limit:
            break
    return found


class MentionVerbs:
    """Mixed into `Session`: a prompt line's mentions and `!cmd`, in the session's workspace and gate."""

    _parts: Parts

    @property
    def workspace(self) -> Path:
        """The workspace's root folder (resolved)."""
        return self._parts.ctx.workspace.root

    @property
    def supports_images(self) -> bool:
        """Whether the model in use takes images (after `set_model`, the new one's)."""
        return self._parts.ctx.supports_images

    def attach_mentions(self, line: str) -> Mentions:
        """The files and folder listings the line's `@PATH`s attach, read through the session's gate."""
        return expand_mentions(line, self._parts.agent.gate)

    def run_user_command(self, command: str) -> ToolResult:
        """The person's `!cmd`, run in the workspace the way run_command runs the model's (no approval: the
        person typed it); `cancel` stops it as Esc does."""
        from sneakycode.tools.registry import run
        from sneakycode.tools.shell import RunCommandArgs, run_command

        cancel = self._parts.ctx.cancel
        cancel.clear()
        try:
            return run(run_command, RunCommandArgs(command=command), self._parts.ctx)
        finally:
            cancel.clear()  # a stop meant for this command must not stop the next request

    def complete_path(self, typed: str) -> list[str]:
        """`@PATH` completions in the session's workspace (see `path_completions`)."""
        return path_completions(self._parts.ctx.workspace.root, typed)
