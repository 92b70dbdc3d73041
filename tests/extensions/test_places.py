"""One discovery for skills, custom commands and subagent definitions (issue 24): the same places, precedence,
file cap, depth limit and bounded reads for all three, and `user=False` reading nothing of the user's. Real
files in a real workspace and in the test's own HOME (tests/conftest.py)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from sneakycode.agent.subagent_definitions import AgentDefinition, load_definitions
from sneakycode.config import user_config_path
from sneakycode.extensions.invocation import Extensions, load_extensions
from sneakycode.extensions.places import MAX_FILES_PER_PLACE, MAX_FOLDER_DEPTH
from sneakycode.testing.server import ScriptedServer
from sneakycode.tools.base import ToolContext
from tests.faces.cli.test_headless import finish, headless


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def user_folder(kind: str) -> Path:
    return user_config_path().parent / kind


def skill_text(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nbody of {description}\n"


def agent_text(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nYou are {description}.\n"


def everything(ctx: ToolContext, *, user: bool = True) -> tuple[Extensions, dict[str, AgentDefinition], list[str]]:
    definitions, problems = load_definitions(ctx.workspace, user=user)
    return load_extensions(ctx.workspace, user=user), definitions, problems


@pytest.mark.parametrize("where", ["project", "user"])
def test_subagent_definitions_read_at_most_the_file_cap_and_say_the_rest_were_skipped(
    ctx: ToolContext, where: str
) -> None:
    """Regression: definitions globbed every file of their folders, with no cap, where skills and commands
    stop at MAX_FILES_PER_PLACE; now the same cap applies and a notice names the folder."""
    folder = ctx.workspace.root / ".sneakycode" / "agents" if where == "project" else user_folder("agents")
    for n in range(MAX_FILES_PER_PLACE + 1):
        write(folder / f"a{n:03d}.md", agent_text(f"a{n:03d}", f"agent {n}"))
    definitions, problems = load_definitions(ctx.workspace)
    assert len(definitions) == MAX_FILES_PER_PLACE + 1  # 500 files and the built-in explore
    assert "a499" in definitions and "a500" not in definitions  # the first 500 by name
    shown = ".sneakycode/agents" if where == "project" else str(folder)
    assert problems == [f"{shown}: the folder has more than 500 files; only the first 500 by name were read"]


def test_skills_and_commands_say_so_too_when_a_folder_is_over_the_cap(ctx: ToolContext) -> None:
    """The cap used to drop skills and commands silently; the one discovery now says which folder was cut."""
    root = ctx.workspace.root / ".claude"
    for n in range(MAX_FILES_PER_PLACE + 1):
        write(root / "skills" / f"s{n:03d}" / "SKILL.md", skill_text(f"s{n:03d}", "d"))
        write(root / "commands" / f"c{n:03d}.md", "Do it.")
    extensions = load_extensions(ctx.workspace)
    assert len(extensions.skills.skills) == len(extensions.commands.commands) == MAX_FILES_PER_PLACE
    cut = "the folder has more than 500 files; only the first 500 by name were read"
    assert extensions.notices() == [
        f".claude/skills: skills skipped: {cut}", f".claude/commands: commands skipped: {cut}"
    ]


def test_a_project_file_beats_the_users_file_of_the_same_name_for_all_three_kinds(ctx: ToolContext) -> None:
    """The same precedence for every kind: project folders in order (.sneakycode, then .claude), then the user's."""
    root = ctx.workspace.root
    write(user_folder("skills") / "same" / "SKILL.md", skill_text("same", "user"))
    write(root / ".claude/skills/same/SKILL.md", skill_text("same", "claude"))
    write(user_folder("commands") / "same.md", "user command")
    write(root / ".claude/commands/same.md", "claude command")
    write(user_folder("agents") / "same.md", agent_text("same", "user"))
    write(root / ".claude/agents/same.md", agent_text("same", "claude"))
    extensions, definitions, problems = everything(ctx)
    assert extensions.skills.get("same").description == "claude"  # type: ignore[union-attr]
    assert extensions.commands.get("same").body == "claude command"  # type: ignore[union-attr]
    assert definitions["same"].description == "claude" and problems == []
    write(root / ".sneakycode/skills/same/SKILL.md", skill_text("same", "sneakycode"))
    write(root / ".sneakycode/commands/same.md", "sneakycode command")
    write(root / ".sneakycode/agents/same.md", agent_text("same", "sneakycode"))
    extensions, definitions, _ = everything(ctx)
    assert extensions.skills.get("same").description == "sneakycode"  # type: ignore[union-attr]
    assert extensions.commands.get("same").body == "sneakycode command"  # type: ignore[union-attr]
    assert definitions["same"].description == "sneakycode"
    assert definitions["same"].source == ".sneakycode/agents/same.md"


def test_of_two_files_in_one_folder_declaring_the_same_name_the_first_by_path_wins_as_for_skills(
    ctx: ToolContext,
) -> None:
    """Regression: definitions let the later file win (the opposite of skills and commands), so a file sorted
    last, `zz-evil.md` declaring `name: reviewer`, silently replaced `reviewer.md`."""
    root = ctx.workspace.root
    write(root / ".sneakycode/skills/a/SKILL.md", skill_text("twin", "first skill"))
    write(root / ".sneakycode/skills/b/SKILL.md", skill_text("twin", "second skill"))
    write(root / ".sneakycode/agents/reviewer.md", agent_text("reviewer", "the reviewer"))
    write(root / ".sneakycode/agents/zz-evil.md", agent_text("reviewer", "an impostor"))
    extensions, definitions, problems = everything(ctx)
    assert extensions.skills.get("twin").description == "first skill"  # type: ignore[union-attr]
    assert definitions["reviewer"].description == "the reviewer"
    assert definitions["reviewer"].source == ".sneakycode/agents/reviewer.md" and problems == []


def test_user_false_ignores_the_users_skill_command_and_definition(ctx: ToolContext) -> None:
    """An embedding program's isolated run (`user=False`) reads nothing from ~/.config/sneakycode."""
    write(user_folder("skills") / "mine" / "SKILL.md", skill_text("mine", "my skill"))
    write(user_folder("commands") / "mine.md", "my command")
    write(user_folder("agents") / "mine.md", agent_text("mine", "my agent"))
    os.mkfifo(user_folder("agents") / "pipe.md")  # would be reported as unreadable if it were looked at
    write(ctx.workspace.root / ".sneakycode/commands/ours.md", "our command")
    extensions, definitions, problems = everything(ctx, user=False)
    assert extensions.skills.skills == () and [c.name for c in extensions.commands.commands] == ["ours"]
    assert set(definitions) == {"explore"} and problems == [] and extensions.notices() == []
    extensions, definitions, problems = everything(ctx)  # the same files are found by a normal run
    assert extensions.skills.get("mine") is not None and extensions.commands.get("mine") is not None
    assert "mine" in definitions and len(problems) == 1 and "pipe.md:1: cannot be read" in problems[0]


def test_a_user_definition_that_is_a_fifo_is_reported_not_waited_on(ctx: ToolContext) -> None:
    """Regression: user definitions were read with path.read_text, so a FIFO in ~/.config/sneakycode/agents
    hung start-up for ever; now they are read as bounded regular files, like user skills and commands."""
    write(user_folder("agents") / "good.md", agent_text("good", "fine"))
    os.mkfifo(user_folder("agents") / "stuck.md")
    outcome: list[tuple[dict[str, AgentDefinition], list[str]]] = []
    loader = threading.Thread(target=lambda: outcome.append(load_definitions(ctx.workspace)), daemon=True)
    loader.start()
    loader.join(timeout=10)
    assert outcome, "load_definitions hung on a FIFO"
    definitions, problems = outcome[0]
    assert "good" in definitions
    stuck = user_folder("agents") / "stuck.md"
    assert problems == [f"{stuck}:1: cannot be read: {stuck}: not a regular file (a FIFO (named pipe)), so it is "
                        "not read; skipped"]


def test_a_claude_folder_linked_out_of_the_workspace_is_not_listed_for_any_kind(
    ctx: ToolContext, tmp_path: Path
) -> None:
    """A repository's `.claude` that is a link to a folder outside it (say ~/.claude) is neither listed nor read,
    for skills, commands and definitions alike, and one notice per folder says why."""
    outside = tmp_path / "elsewhere"
    write(outside / "skills/leak/SKILL.md", skill_text("leak", "secret"))
    write(outside / "commands/leak.md", "secret")
    write(outside / "agents/leak.md", agent_text("leak", "secret"))
    (ctx.workspace.root / ".claude").symlink_to(outside)
    extensions, definitions, problems = everything(ctx)
    assert extensions.skills.skills == () and extensions.commands.commands == () and set(definitions) == {"explore"}
    notices = [*extensions.notices(), *problems]
    assert [n.split(": ", 1)[0] for n in notices] == [".claude/skills", ".claude/commands", ".claude/agents"]
    assert all("the folder was not read" in n and "outside the workspace" in n for n in notices)


def test_definitions_and_commands_are_found_in_subfolders_down_to_the_same_depth(ctx: ToolContext) -> None:
    """Definitions in subfolders load (Claude Code finds them there too), to the depth commands go and no deeper."""
    root = ctx.workspace.root / ".sneakycode"
    inner = "/".join(f"d{n}" for n in range(1, MAX_FOLDER_DEPTH))  # the deepest folder still searched
    write(root / "agents" / inner / "deep.md", agent_text("deep", "deep"))
    write(root / "agents" / inner / "d9" / "deeper.md", agent_text("deeper", "too deep"))
    write(root / "commands" / inner / "deep.md", "deep")
    write(root / "commands" / inner / "d9" / "deeper.md", "too deep")
    extensions, definitions, _ = everything(ctx)
    assert set(definitions) == {"explore", "deep"}
    assert [c.name for c in extensions.commands.commands] == ["d1:d2:d3:deep"]


def test_a_fifo_among_the_users_definitions_does_not_hang_the_cli_and_is_reported(ws: Path) -> None:
    """Through the real CLI: a FIFO among the user's subagent definitions is a notice, and the run goes on."""
    os.makedirs(user_folder("agents"))
    os.mkfifo(user_folder("agents") / "stuck.md")
    with ScriptedServer({"steps": [finish("done")]}) as server:
        result = headless(server, ws, "Hello")
    assert result.code == 0, result.stderr
    assert "stuck.md:1: cannot be read" in result.stderr and "not a regular file (a FIFO (named pipe))" in result.stderr
