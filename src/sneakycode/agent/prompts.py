"""The system prompt: the tool conventions in a few lines, plus the project's own instructions (and the
message for a model that neither answers nor calls a tool).

`AGENTS.md` and `.sneakycode/context.md` at the workspace root are appended, read through the workspace
guard (so a link that leaves the workspace is not followed, and only a regular file is opened: a FIFO
or a device there is skipped, never waited on), and capped: the prompt is sent on every request, and a cut
file says so and how to read the rest. A file that exists but cannot be used is skipped with a notice.
"""

from __future__ import annotations

import os

from sneakycode.agent.messages import Message
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tool
from sneakycode.tools.registry import all_tools
from sneakycode.workspace.files import Workspace

PROJECT_FILES = ("AGENTS.md", ".sneakycode/context.md")
MAX_PROJECT_CHARS = 16_000

CONVENTIONS = """\
You are SneakyCode, a coding agent working in the user's repository through tools.
- Paths are relative to the workspace root. Read a file before you edit or overwrite it; if it changed \
since, read it again.
- A failed tool returns `Error [code]: ...` with a hint; follow the hint, do not repeat the same call."""


def base_prompt(tools: tuple[Tool, ...] | None = None) -> str:
    """The conventions, then one line of guidance from each offered tool that has one (so the prompt never
    names a tool the model was not given)."""
    offered = all_tools() if tools is None else tools
    return "\n".join([CONVENTIONS, *(f"- {t.guidance}" for t in offered if t.guidance)])


def added_folders(workspace: Workspace) -> list[str]:
    """The extra roots (`--add-dir`) as a section, when there are any: the model reaches them by absolute path."""
    if not workspace.extra_roots:
        return []
    listed = "\n".join(f"- {root}" for root in workspace.extra_roots)
    return ["# Added folders\nBesides the workspace root, these folders are part of the workspace: read, search "
            "and edit in them by absolute path, under the same permission rules.\n" + listed]


def build_system_prompt(
    workspace: Workspace,
    max_project_chars: int = MAX_PROJECT_CHARS,
    notices: list[str] | None = None,
    tools: tuple[Tool, ...] | None = None,
    skills: str = "",
) -> str:
    """The base prompt for the offered `tools` (None: all), the `skills` section (names and descriptions,
    already within its budget), then each project instruction file that exists, within max_project_chars in
    total. Why a file that exists was not used is appended to `notices`."""
    parts = [base_prompt(tools), *([skills] if skills else []), *added_folders(workspace)]
    budget = max_project_chars
    for name in PROJECT_FILES:
        if not os.path.lexists(workspace.root / name):
            # Absent, the usual case: skipped before the guarded read, whose "not found" error would look for
            # near misses across the workspace for nobody (some 30 ms before a repository's first request).
            # What exists, a link included, is read through the guard below.
            continue
        try:
            text = workspace.read_text(name).text.strip()
        except ToolError as err:
            if err.code is not ErrorCode.NOT_FOUND and notices is not None:
                notices.append(f"{name} was not added to the instructions: {err.error}")
            continue
        if not text:
            continue
        if len(text) > budget:
            note = (
                f"\n[{name} cut here: {budget} of {len(text)} characters shown; "
                f"read_file {name} for the rest]"
            )
            text = text[:budget] + note
        parts.append(f"# Project instructions from {name}\n{text}")
        budget = max(0, budget - len(text))
    return "\n\n".join(parts)


def compose_system_prompt(workspace: Workspace, offered: tuple[Tool, ...], notices: list[str], skills: str,
                          instructions: str, role: str) -> str:
    """The whole system prompt of an agent: the base prompt for the offered tools with skills and project
    files, then an embedding program's instructions, then a subagent's role."""
    prompt = build_system_prompt(workspace, notices=notices, tools=offered, skills=skills)
    if instructions:
        prompt = f"{prompt}\n\n# Instructions from the program running SneakyCode\n{instructions}"
    if role:
        prompt = f"{prompt}\n\n# Your role\n{role}"
    return prompt


def resumed_system_prompt(prompt: str, resumed: list[Message]) -> str:
    """The system prompt a resumed session sends: the saved one, byte for byte, while it still begins with the
    prompt composed now (same tools, skills and project files; the hooks' section the session started with
    follows), so the server's cache of the whole conversation still holds; else the new prompt."""
    saved = next((m["content"] for m in resumed if m["role"] == "system"), None)
    return saved if isinstance(saved, str) and saved.startswith(prompt) else prompt
