"""What a face that drives a session for an editor (the Agent Client Protocol face) asks of it beyond the
verbs every face shares (api/verbs.py and its mixins): the tools it offers by name, the editor's buffers as
the text the tools read, the reasoning effort, what an edit would write, the files as written. Each is one
call here, so a face never reaches into the session's parts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.api.options import Options

if TYPE_CHECKING:
    from sneakycode.api.session import Session
    from sneakycode.tools.base import ImagePart, ProposedEdit, Tool, ToolResult

EFFORTS = ("low", "medium", "high")


def takes_images(options: Options) -> bool:
    """Whether the model these options start with takes images (False when the settings cannot be read)."""
    from sneakycode.agent.model.families import supports_images_for
    from sneakycode.api.settings import load_options
    from sneakycode.errors import ConfigError

    try:
        settings = load_options(options).settings
    except ConfigError:
        return False
    return supports_images_for(settings.model, settings.supports_images)


def offered_tool(session: Session | None, name: str) -> Tool | None:
    """The tool `name` as the session offers it to the model (its MCP tools included); without a session,
    the built-in one by that name."""
    from sneakycode.tools.registry import get_tool

    offered = session._parts.agent.gate.offered if session is not None else None
    return offered.get(name) if offered is not None else get_tool(name)


def read_through(session: Session, text_of: Callable[[Path], str | None]) -> None:
    """Every file the session's tools read is asked of `text_of` first (the editor's buffer, unsaved changes
    included); None from it means the disk. The workspace checks the path before `text_of` is asked."""
    session._parts.ctx.workspace.editor_text = text_of


def effort_levels(session: Session) -> tuple[str, ...]:
    """The reasoning efforts the main model can be asked for: none when its family (on this provider) takes no
    effort, as the request would send none (agent/model/reasoning_policy.py decides both)."""
    from sneakycode.agent.model.reasoning_policy import effort_request, reasoning_policy_for

    config = session.config
    policy = reasoning_policy_for(config.model, config.reasoning_history)
    return EFFORTS if effort_request(policy, "high", config.provider) != ({}, "") else ()


def reasoning_effort(session: Session) -> str | None:
    return session.config.reasoning_effort


def set_reasoning_effort(session: Session, effort: str) -> None:
    """Ask the main model for `effort` from the next request on; a ValueError when the model takes none or
    `effort` is not one of low, medium, high."""
    if effort not in effort_levels(session):
        raise ValueError(f"{session.config.model} takes no reasoning effort {effort!r}")
    parts = session._parts
    parts.config = replace(parts.config, reasoning_effort=effort)
    model: Any = parts.agent.model
    if hasattr(model, "config"):  # the OpenAI-compatible client reads its config on every request
        model.config = replace(model.config, reasoning_effort=effort)


def workspace_root(session: Session) -> Path:
    return session._parts.ctx.workspace.root


def images_taken(session: Session) -> bool:
    """Whether the model in use now takes images."""
    return session._parts.ctx.supports_images


def read_for_user(session: Session, path: str) -> ToolResult:
    """`read_file` of `path` as the user's own call (a file they attached): recorded as read, so the model may
    edit it; deny rules and hidden paths refuse it, nothing asks."""
    from sneakycode.tools.registry import all_tools

    reader = next(found.name for found in all_tools() if found.records_read)  # found by its facet
    return session._parts.agent.gate.run_direct(reader, {"file_path": path})


def image_of(raw: bytes, label: str) -> ImagePart:
    """An attached image scaled as `--image` scales it; a ToolError says why it cannot be sent."""
    from sneakycode.tools.images import prepare_image

    image, _original = prepare_image(raw, label)
    return image


def absolute_path(session: Session, path: str) -> str:
    """A workspace path as the absolute path an editor opens (resolved by the workspace guard when it can)."""
    from sneakycode.errors import ToolError

    workspace = session._parts.ctx.workspace
    try:
        return str(workspace.resolve(path))
    except ToolError:
        return str((workspace.root / path).resolve())


def proposed_edit(session: Session, found: Tool, arguments: dict[str, Any]) -> ProposedEdit | None:
    """What an edit call would write if approved now, computed by the tool's own `proposed` facet against the
    file as it is: None for a tool that is no edit, or an edit that would fail."""
    from sneakycode.errors import ToolError
    from sneakycode.tools.registry import validate

    if found.proposed is None:
        return None
    try:
        return found.proposed(validate(found, arguments), session._parts.ctx)
    except (ToolError, OSError):
        return None


def written_text(session: Session, path: str) -> tuple[Path, str] | None:
    """The file `path` as it is on disk now (after an edit), for the editor's buffer: its real path and text.
    None for a file outside what the workspace may read, over the size limit, with a BOM, or not UTF-8 (the
    editor reloads those from the disk itself)."""
    from sneakycode.errors import ToolError

    workspace = session._parts.ctx.workspace
    try:
        opened = workspace.open_file(path)
        with opened.fh:
            raw = opened.fh.read(workspace.max_file_size_bytes + 1)
    except (ToolError, OSError):
        return None
    if len(raw) > workspace.max_file_size_bytes or raw.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        return opened.path, raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
