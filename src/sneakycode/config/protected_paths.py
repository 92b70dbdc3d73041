"""The one list of workspace places whose contents decide what runs later, outside any sandbox and outside the
permission gate: no tool changes them, the command policy never approves a visible write into them by itself,
and the sandbox keeps them read-only (a missing one is held empty, or removed after the command if the
command created it). It lives here, below both `workspace/` (file tools, command policy) and `process/` (the
sandbox's repository guard), so each of them reads the same list.

- `.sneakycode/`: SneakyCode's own settings and rules (a project file saying `mode = "yolo"` loosens the next
  session); `.claude/` and `.mcp.json`: the skills, commands, hooks and MCP servers SneakyCode (and other
  agents) load from a project;
- `.git/`: hooks, and config naming programs (`core.fsmonitor`, filters, aliases); `.gitmodules`: the
  repositories git clones and enters;
- `.vscode/` and `.idea/`: tasks and run configurations an editor runs when the folder is opened;
- `.envrc`: direnv runs it on entering the folder; shell start-up files: a shell started there (or the whole
  account, when the workspace is the home folder) runs them.
"""

from __future__ import annotations

# Each place, and why it matters, for a refusal: "'.envrc' is at .envrc, which direnv runs on entering ...".
PROTECTED_FOLDERS: dict[str, str] = {
    ".sneakycode": "holds SneakyCode's own settings and permission rules",
    ".git": "holds git's hooks and configuration",
    ".claude": "holds the skills, commands and hooks an agent loads from the project",
    ".vscode": "holds editor tasks that can run when the folder is opened",
    ".idea": "holds an editor's run configurations and tasks",
}
PROTECTED_FILES: dict[str, str] = {
    ".mcp.json": "names the MCP servers an agent starts for the project",
    ".gitmodules": "names the repositories git clones and enters",
    ".envrc": "direnv runs on entering the folder",
    ".bashrc": "a shell runs when it starts",
    ".bash_profile": "a shell runs when it starts",
    ".bash_login": "a shell runs when it starts",
    ".profile": "a shell runs when it starts",
    ".zshrc": "a shell runs when it starts",
    ".zshenv": "a shell runs when it starts",
    ".zprofile": "a shell runs when it starts",
    ".zlogin": "a shell runs when it starts",
}
PROTECTED_WRITE_PATHS: tuple[str, ...] = (*PROTECTED_FOLDERS, *PROTECTED_FILES)


def shown_place(place: str) -> str:
    """A protected place as the user reads it: a folder with its trailing slash."""
    return place + "/" if place in PROTECTED_FOLDERS else place
