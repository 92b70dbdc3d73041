"""What a prompt line brings along besides its words: `@file` (the file as read_file shows it, numbered and
bounded, and recorded as read so the model may edit it without reading it again), `@dir/` (its listing), and
`!cmd` (the user's own command, whose output joins the next request).

Mentions go through the session's gate like the model's own calls, so deny rules and hidden paths still
hold; a `!cmd` is the person's own command and runs without approval, under the same process control
(timeout, process-group kill on Esc or Ctrl-C, output capped) as run_command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolResult
from sneakycode.tools.context import ToolContext
from sneakycode.tools.images import IMAGE_SUFFIXES
from sneakycode.tools.read import list_dir, read_file
from sneakycode.tools.registry import run
from sneakycode.tools.shell import RunCommandArgs, run_command

MENTION = re.compile(r"(?<!\S)@(\S+)")
TRAILING_PUNCTUATION = ".,;:!?)'\""


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


def run_user_command(command: str, ctx: ToolContext) -> ToolResult:
    """The user's `!cmd`, run in the workspace the way run_command runs the model's (no approval: the person
    typed it)."""
    return run(run_command, RunCommandArgs(command=command), ctx)


def command_context(command: str, result: ToolResult) -> str:
    """What the next request carries about a `!cmd`: the command and its output, as the model would see it."""
    return f"I ran `{command}` in the workspace myself. What it printed:\n{result.render()}"
