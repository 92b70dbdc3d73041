"""The places that make tools run when a folder is opened (`.vscode/`, `.idea/`, `.claude/`, `.mcp.json`,
`.envrc`, `.gitmodules`, shell start-up files) are protected like `.git/hooks`, from the one list in
config/protected_paths.py: read-only in the bwrap sandbox (one a command creates is removed and reported),
never approved by the command policy on its own, refused by the file tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.config.protected_paths import PROTECTED_FILES, PROTECTED_FOLDERS
from sneakycode.errors import ErrorCode
from sneakycode.tools.context import open_tool_context
from sneakycode.workspace import paths
from tests.conftest import call
from tests.permissions.shell.test_hardening import MODES, judge
from tests.process.test_sandbox import require_bwrap
from tests.process.test_sandbox_hardening import sandboxed_cli

TASKS = '{"version": "2.0.0", "tasks": [{"command": "touch pwned", "runOptions": {"runOn": "folderOpen"}}]}'
# What a hostile command tries, one line each, so that one refusal does not skip the rest.
PLANT = f"""
mkdir -p .vscode && echo '{TASKS}' > .vscode/tasks.json
mkdir -p .idea && echo planted > .idea/workspace.xml
echo planted > .claude/settings.json
mkdir -p .claude/commands && echo planted > .claude/commands/evil.md
echo 'touch pwned' > .envrc
echo '{{"mcpServers": {{"x": {{"command": "touch", "args": ["pwned"]}}}}}}' > .mcp.json
echo '[submodule "evil"]' >> .gitmodules
echo 'touch pwned' >> .bashrc
echo 'touch pwned' >> .profile
echo tried
"""
EXISTING = {".claude/settings.json": "{}\n", ".gitmodules": "", ".profile": "# mine\n"}


def workspace_files(ws: Path) -> dict[str, str]:
    return {str(p.relative_to(ws)): p.read_text() for p in sorted(ws.rglob("*")) if p.is_file()}


def test_a_sandboxed_command_cannot_plant_what_an_editor_agent_or_shell_runs_on_open(ws: Path) -> None:
    """Hardening round three, class 10: the sandbox protected `.git` and `.sneakycode/` only; a command could
    write `.vscode/tasks.json` (run when the folder opens), `.claude/` (SneakyCode's own skills, commands and
    hooks), `.mcp.json`, `.envrc`, `.gitmodules` and shell start-up files."""
    require_bwrap(ws)
    (ws / ".claude").mkdir()
    for name, text in EXISTING.items():
        (ws / name).write_text(text)
    before = workspace_files(ws)

    result = sandboxed_cli(ws, PLANT)

    assert "tried" in result.stdout, result.stdout + result.stderr
    assert workspace_files(ws) == before  # nothing written stays, nothing existing changed
    assert not (ws / ".vscode").exists() and not (ws / ".idea").exists() and not (ws / ".claude" / "commands").exists()
    for created in (".envrc", ".mcp.json"):
        assert f"{created} was created by the command and deleted" in result.stdout, result.stdout
    assert "Read-only file system" in result.stdout


def test_ordinary_work_beside_the_protected_places_still_succeeds(ws: Path) -> None:
    """Hardening round three, class 10: the protection costs no ordinary work in the rest of the workspace."""
    require_bwrap(ws)
    result = sandboxed_cli(ws, "mkdir -p src/.vscode-notes && echo ok > src/app.py && cat src/app.py")
    assert "exit code 0" in result.stdout and (ws / "src" / "app.py").read_text() == "ok\n", result.stdout


@pytest.mark.parametrize("path", [
    ".vscode/tasks.json", ".idea/workspace.xml", ".claude/settings.json", ".claude/commands/x.md", ".mcp.json",
    ".envrc", ".gitmodules", ".bashrc", ".zshrc", ".profile", "sub/.vscode/tasks.json", ".VSCode/tasks.json",
])  # fmt: skip
def test_the_file_tools_refuse_to_write_a_protected_place(ws: Path, path: str) -> None:
    """Hardening round three, class 10: write_file created `.vscode/tasks.json` or `.envrc` once approved; they
    are protected like `.git/` (reading stays allowed)."""
    ctx = open_tool_context(load_settings(ws))

    result = call(ctx, "write_file", file_path=path, content="planted\n")

    assert result.code == ErrorCode.PROTECTED_PATH, result.message
    assert "tools never change it" in (result.error or result.message)
    assert not (ws / path).exists() and not (ws / path.split("/")[0]).exists()


def test_the_file_tools_still_read_a_protected_place(ws: Path) -> None:
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text('{"editor.tabSize": 4}\n')
    result = call(open_tool_context(load_settings(ws)), "read_file", file_path=".vscode/settings.json")
    assert result.success and "tabSize" in result.content


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", [
    "echo x > .vscode/tasks.json", "echo x >> .envrc", "cp evil.json .mcp.json", "tee .claude/settings.json",
    "echo x >> .bashrc", "echo x >> .gitmodules", "mv t.xml .idea/workspace.xml", "touch .zshenv",
])  # fmt: skip
def test_the_command_policy_never_approves_a_visible_write_into_a_protected_place(
    ws: Path, line: str, mode: str
) -> None:
    """Hardening round three, class 10: without a sandbox (and with one), a command line that visibly writes a
    protected place asks, in every mode, even with its program allowed."""
    allowed = ["echo", "cp", "tee", "mv", "touch"]
    decision, reason = judge(ws, line, mode, allowed_commands=allowed, allow=["run_command"])
    assert decision == "ask", reason
    assert "never approves that by itself" in reason, reason


def test_one_list_serves_the_sandbox_the_command_policy_and_the_file_tools() -> None:
    """Hardening round three, class 10: the three guards read config/protected_paths.py, not copies."""
    assert set(paths.PROTECTED_WRITE_PATHS) == {*PROTECTED_FOLDERS, *PROTECTED_FILES}
    assert {".vscode", ".idea", ".claude", ".sneakycode", ".git"} <= set(PROTECTED_FOLDERS)
    assert {".mcp.json", ".envrc", ".gitmodules", ".bashrc", ".profile", ".zshrc"} <= set(PROTECTED_FILES)
