"""The paths no tool changes, whoever approves the call: the workspace root, `.git/` and `.sneakycode/`.

What is written into `.git/` (a hook, `core.hooksPath` or `core.fsmonitor` in its config) is run by git
later, and `.sneakycode/` holds SneakyCode's own settings and rules (a project file saying `mode = "yolo"`
loosens the next session): both would take effect outside any sandbox and outside the permission gate. So
the file tools treat them as protected at any depth; reading them stays allowed, and the user edits them.
"""

from __future__ import annotations

from pathlib import Path

from sneakycode.errors import ErrorCode, ToolError

# Folder name -> (what the path is, the hint; None: the error code's default hint).
PROTECTED_FOLDERS: dict[str, tuple[str, str | None]] = {
    ".git": ("inside .git/,", None),
    ".sneakycode": (
        "inside .sneakycode/, which holds SneakyCode's own settings and permission rules,",
        "Tools never change .sneakycode/ (reading it is fine): tell the user what to change and let them edit it.",
    ),
}


def protection(root: Path, real: Path, user_path: str) -> ToolError | None:
    """Why `real` (a real path inside `root`) must not be changed, or None when it may be."""
    if real == root:
        return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is the workspace root, which tools never change")
    for part in real.relative_to(root).parts:
        if part in PROTECTED_FOLDERS:
            what, hint = PROTECTED_FOLDERS[part]
            return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is {what} which tools never change", hint=hint)
    return None
