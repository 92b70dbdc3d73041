"""The paths no tool changes, whoever approves the call: the workspace root, `.git/` and `.sneakycode/`.

What is written into `.git/` (a hook, `core.hooksPath` or `core.fsmonitor` in its config) is run by git
later, and `.sneakycode/` holds SneakyCode's own settings and rules (a project file saying `mode = "yolo"`
loosens the next session): both would take effect outside any sandbox and outside the permission gate. So
the file tools treat them as protected at any depth; reading them stays allowed, and the user edits them.
"""

from __future__ import annotations

from pathlib import Path

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.workspace.paths import PROTECTED_WRITE_PATHS

# What each protected place is, for the refusal, and its hint (None: the error code's default hint).
_WHY: dict[str, tuple[str, str | None]] = {
    ".git": ("inside .git/,", None),
    ".sneakycode": (
        "inside .sneakycode/, which holds SneakyCode's own settings and permission rules,",
        "Tools never change .sneakycode/ (reading it is fine): tell the user what to change and let them edit it.",
    ),
}


def protection(root: Path, real: Path, user_path: str) -> ToolError | None:
    """Why `real` (a real path inside `root`) must not be changed, or None when it may be. The places are the
    shell policy's (`PROTECTED_WRITE_PATHS`), matched at any depth (a nested repository's hooks run too) and
    case-insensitively (for case-insensitive disks)."""
    if real == root:
        return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is the workspace root, which tools never change")
    for part in real.relative_to(root).parts:
        for place in PROTECTED_WRITE_PATHS:
            if part.casefold() == place.casefold():
                what, hint = _WHY.get(place, (f"inside {place}/,", None))
                return ToolError(
                    ErrorCode.PROTECTED_PATH, f"{user_path!r} is {what} which tools never change", hint=hint
                )
    return None
