"""Wires settings, a session folder, the workspace guard and the undo journal into a ToolContext.

The agent, `sneakycode tool` and the MCP server all build their tool context here, so the three run tools
in exactly the same conditions.
"""

from __future__ import annotations

from sneakycode.config import LoadedSettings, state_dir
from sneakycode.journal import Journal
from sneakycode.sessions import SessionInfo, new_session
from sneakycode.tools.base import ToolContext
from sneakycode.workspace import Workspace


def open_tool_context(loaded: LoadedSettings, *, kind: str = "tool", session: SessionInfo | None = None) -> ToolContext:
    """A fresh session (or the given one) over the configured workspace."""
    settings = loaded.settings
    info = session or new_session(state_dir(settings), loaded.workspace, kind=kind)
    workspace = Workspace(
        loaded.workspace,
        max_file_size_bytes=settings.max_file_size_bytes,
        journal=Journal(info.dir),
    )
    return ToolContext(workspace=workspace, loaded=loaded, session_id=info.id, session_dir=info.dir)
