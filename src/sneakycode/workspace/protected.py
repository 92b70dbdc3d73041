"""The paths no tool changes, whoever approves the call: the workspace root and the places of
config/protected_paths.py (`.git/`, `.sneakycode/`, `.claude/`, `.vscode/`, `.envrc`, `.gitmodules`, ...).

What is written there is run later, by git, by SneakyCode at its next start, by an editor opening the folder
or a shell starting in it: outside any sandbox and outside the permission gate. So the file tools treat them
as protected at any depth; reading them stays allowed, and the user edits them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from sneakycode.config.protected_paths import PROTECTED_FILES, PROTECTED_FOLDERS, PROTECTED_WRITE_PATHS, shown_place
from sneakycode.errors import ErrorCode, ToolError

_SNEAKYCODE_HINT = (
    "Tools never change .sneakycode/ (reading it is fine): tell the user what to change and let them edit it."
)


def protection(roots: Sequence[Path], real: Path, user_path: str,
               held: Mapping[Path, str] | None = None) -> ToolError | None:
    """Why `real` (a real path inside one of `roots`: the workspace root first, then any extra roots) must not
    be changed, or None when it may be. The places are the shell policy's (`PROTECTED_WRITE_PATHS`), matched
    at any depth below the root that holds it (a nested repository's hooks run too) and case-insensitively
    (for case-insensitive disks). `held`: real paths protected for one run only, with why (a goal's check
    files, api/goal.py)."""
    if real == roots[0]:
        return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is the workspace root, which tools never change")
    if real in roots:
        return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is an added folder's root, which tools never change")
    if held and real in held:
        return ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} {held[real]}: tools do not change it in this run",
                         hint="Change the code the check tests, not the check.")
    root = next((root for root in roots if root in real.parents), roots[0])  # else relative_to raises, as before
    for part in real.relative_to(root).parts:
        for place in PROTECTED_WRITE_PATHS:
            if part.casefold() == place.casefold():
                what = PROTECTED_FOLDERS.get(place) or PROTECTED_FILES[place]
                where = f"inside {shown_place(place)}" if place in PROTECTED_FOLDERS else f"at {place}"
                hint = _SNEAKYCODE_HINT if place == ".sneakycode" else None
                return ToolError(
                    ErrorCode.PROTECTED_PATH,
                    f"{user_path!r} is {where}, which {what}: tools never change it",
                    hint=hint,
                )
    return None
