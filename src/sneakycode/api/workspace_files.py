"""Files a face reads on the user's behalf from inside a workspace (the Action's `prompt-file`): through the
workspace's containment and the one bounded reader, never a face's own open()."""

from __future__ import annotations

from pathlib import Path

__all__ = ["read_workspace_text"]


def read_workspace_text(root: Path, path: str, *, max_bytes: int) -> tuple[Path, str]:
    """The real path and text of `path`, a regular text file inside `root` (a link only to a file inside it),
    at most `max_bytes`; a ToolError (with its code) otherwise."""
    from sneakycode.workspace.files import Workspace

    found = Workspace(root, max_file_size_bytes=max_bytes).read_text(path)
    return found.path, found.text
