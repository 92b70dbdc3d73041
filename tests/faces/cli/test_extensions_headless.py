"""Skills and custom commands end to end: the real `sneakycode -p` against the scripted server, with the skill
and command files written into a temporary workspace (and the user's config folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sneakycode.config import user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config
from tests.faces.cli.test_headless import call, finish, headless, tool_results


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill(root: Path, name: str, description: str, body: str = "Do it carefully.") -> Path:
    return write(root / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]


def system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def user_message(request: dict[str, Any]) -> str:
    return str(next(m["content"] for m in request["messages"] if m["role"] == "user"))


def test_a_skill_is_listed_in_the_first_request_and_its_body_loaded_by_the_tool(ws: Path) -> None:
    folder = ws / ".sneakycode" / "skills"
    skill(folder, "release-notes", "Write release notes from the git log.", "Group changes by kind. Run scripts/x.")
    write(folder / "release-notes" / "scripts" / "collect.py", "print('hi')\n")
    load = {"tool_calls": [{"name": "skill", "arguments": {"name": "release-notes"}}]}
    with ScriptedServer({"steps": [load, finish("done")]}) as server:
        result = headless(server, ws, "Write the release notes")
    assert result.code == 0, result.stderr
    first, second = server.chat_requests
    assert "- release-notes: Write release notes from the git log." in system(first)
    assert "Group changes by kind" not in json.dumps(first)  # only the name and description, until loaded
    assert "skill" in offered(first)
    [loaded] = tool_results(second)
    assert "Group changes by kind. Run scripts/x." in loaded
    assert "Folder: .sneakycode/skills/release-notes" in loaded and "- scripts/collect.py" in loaded


def test_without_skills_there_is_no_skill_tool_and_no_skill_section(ws: Path) -> None:
    with ScriptedServer({"steps": [finish("done")]}) as server:
        result = headless(server, ws, "Hello")
    assert result.code == 0, result.stderr
    assert "skill" not in offered(server.chat_requests[0])
    assert "# Skills" not in system(server.chat_requests[0])


def test_claude_agents_and_user_skills_are_found_and_a_malformed_one_is_reported_once(ws: Path) -> None:
    skill(ws / ".claude" / "skills", "pdf-forms", "Fill PDF forms.")
    skill(ws / ".agents" / "skills", "changelog", "Keep CHANGELOG.md.")
    skill(user_config_path().parent / "skills", "my-style", "The user's own code style.")
    write(ws / ".sneakycode" / "skills" / "broken" / "SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\nx\n")
    write(ws / ".sneakycode" / "skills" / "nameless" / "SKILL.md", "---\ndescription: no name\n---\nx\n")
    with ScriptedServer({"steps": [finish("done")]}) as server:
        result = headless(server, ws, "Hello")
    assert result.code == 0, result.stderr
    prompt = system(server.chat_requests[0])
    for name in ("pdf-forms", "changelog", "my-style"):
        assert f"- {name}: " in prompt
    assert "broken" not in prompt and "nameless" not in prompt
    reported = ".sneakycode/skills/broken/SKILL.md:3: skill skipped: the front matter is not valid YAML"
    assert result.stderr.count(reported) == 1
    assert ".sneakycode/skills/nameless/SKILL.md:1: skill skipped: `name` is required" in result.stderr


def test_skills_past_the_budget_are_left_out_and_the_prompt_says_so(ws: Path) -> None:
    folder = ws / ".sneakycode" / "skills"
    for index in range(12):
        skill(folder, f"skill-{index:02}", "A description that takes up some room in the system prompt, on purpose.")
    project_config(ws, "[skills]\nmax_prompt_chars = 600\n", trusted=False)  # harmless: kept without trust
    with ScriptedServer({"steps": [finish("done")]}) as server:
        result = headless(server, ws, "Hello")
    assert result.code == 0, result.stderr
    section = system(server.chat_requests[0]).split("# Skills", 1)[1].split("\n\n", 1)[0]
    assert len(section) <= 600
    assert "- skill-00: " in section and "- skill-11: " not in section
    assert "more skill(s) left out of this list to keep it within skills.max_prompt_chars = 600" in section


def test_slash_skill_makes_its_body_the_request_with_the_arguments(ws: Path) -> None:
    skill(ws / ".sneakycode" / "skills", "explain", "Explain code.", "Explain $ARGUMENTS to a beginner.")
    with ScriptedServer({"steps": [finish("done")]}) as server:
        result = headless(server, ws, "/explain the parser")
    assert result.code == 0, result.stderr
    assert "Explain the parser to a beginner." in user_message(server.chat_requests[0])


def command(ws: Path, name: str, text: str, folder: str = ".sneakycode") -> Path:
    return write(ws / folder / "commands" / f"{name}.md", text)


REVIEW = """---
description: Review a file for bugs
argument-hint: FILE [FOCUS]
---
Review $1 for bugs, focusing on $2. Everything asked: $ARGUMENTS
@$1
"""


def test_a_command_gets_its_arguments_and_the_file_attached_before_the_request_is_sent(ws: Path) -> None:
    command(ws, "review", REVIEW)
    write(ws / "src" / "app.py", "def main():\n    return 42\n")
    with ScriptedServer({"steps": [finish("Looks fine.")]}) as server:
        result = headless(server, ws, "/review src/app.py errors")
    assert result.code == 0, result.stderr
    sent = user_message(server.chat_requests[0])
    assert sent.startswith("Review src/app.py for bugs, focusing on errors. Everything asked: src/app.py errors")
    assert '<file path="src/app.py">\ndef main():\n    return 42\n</file>' in sent


def test_subfolders_give_folder_colon_name_and_claude_commands_are_found(ws: Path) -> None:
    command(ws, "git/commit", "Write a commit message for the staged changes.", folder=".claude")
    with ScriptedServer({"steps": [finish("ok")]}) as server:
        result = headless(server, ws, "/git:commit")
    assert result.code == 0, result.stderr
    assert user_message(server.chat_requests[0]) == "Write a commit message for the staged changes."


def test_an_unknown_command_is_a_usage_error_and_nothing_is_sent(ws: Path) -> None:
    command(ws, "review", REVIEW)
    with ScriptedServer({"steps": [finish("never")]}) as server:
        result = headless(server, ws, "/reveiw src/app.py")
    assert result.code == 2
    assert "there is no command or skill /reveiw (the commands and skills: /review)" in result.stderr
    assert server.chat_requests == []


def test_an_absolute_path_at_the_start_of_a_task_is_not_a_command(ws: Path) -> None:
    with ScriptedServer({"steps": [finish("ok")]}) as server:
        result = headless(server, ws, "/tmp/app.py crashes, look at it")
    assert result.code == 0, result.stderr
    assert user_message(server.chat_requests[0]) == "/tmp/app.py crashes, look at it"


def test_an_inline_command_an_allow_rule_covers_is_run_and_its_output_inlined(ws: Path) -> None:
    write(user_config_path(), '[permissions]\nallow = ["run_command(echo:*)"]\n')
    command(ws, "status", "The branch says:\n!`echo on-branch-main`\nSummarise it.")
    with ScriptedServer({"steps": [finish("ok")]}) as server:
        result = headless(server, ws, "/status")
    assert result.code == 0, result.stderr
    assert user_message(server.chat_requests[0]) == "The branch says:\non-branch-main\nSummarise it."


def test_an_inline_command_a_deny_rule_covers_is_refused_and_nothing_is_sent(ws: Path) -> None:
    project_config(ws, 'permissions.deny = ["run_command(echo:*)"]\n', trusted=False)  # tightening: kept
    command(ws, "status", "The branch says:\n!`echo on-branch-main`")
    with ScriptedServer({"steps": [finish("never")]}) as server:
        result = headless(server, ws, "/status", "--yes")
    assert result.code == 2
    assert "!`echo on-branch-main` was not run, so the command was not sent" in result.stderr
    assert "run_command(echo:*)" in result.stderr
    assert server.chat_requests == []


def test_an_inline_command_that_needs_approval_is_refused_headless_without_yes(ws: Path) -> None:
    command(ws, "make", "Made: !`touch made.txt`")
    with ScriptedServer({"steps": [finish("never")]}) as server:
        result = headless(server, ws, "/make")
    assert result.code == 2
    assert "nobody can approve it in this run" in result.stderr and "--yes" in result.stderr
    assert not (ws / "made.txt").exists() and server.chat_requests == []


GRANTING = """---
description: Create the marker file
allowed-tools: Bash(touch made.txt), Read
---
Create made.txt.
"""


def test_allowed_tools_of_a_trusted_project_command_let_its_calls_run(ws: Path) -> None:
    project_config(ws, "max_turns = 10\n", trusted=True)
    command(ws, "mark", GRANTING)
    with ScriptedServer({"steps": [call("run_command", command="touch made.txt"), finish("done")]}) as server:
        result = headless(server, ws, "/mark")
    assert result.code == 0, result.stderr
    assert (ws / "made.txt").exists()


def test_allowed_tools_from_an_untrusted_workspace_are_ignored_with_a_notice(ws: Path) -> None:
    command(ws, "mark", GRANTING)
    with ScriptedServer({"steps": [call("run_command", command="touch made.txt"), finish("done")]}) as server:
        result = headless(server, ws, "/mark")
    assert "allowed-tools of /mark (.sneakycode/commands/mark.md) were not granted" in result.stderr
    assert "not trusted" in result.stderr
    assert not (ws / "made.txt").exists()
    assert tool_results(server.chat_requests[1])[0].startswith("Error [permission_denied]")


def test_a_user_command_may_grant_and_choose_its_model(ws: Path) -> None:
    with_model = GRANTING.replace("---\nCreate", "model: fast-model\n---\nCreate")
    write(user_config_path().parent / "commands" / "mark.md", with_model)
    steps = [call("run_command", command="touch made.txt"), finish("done")]
    with ScriptedServer({"steps": steps, "models": ["scripted-model", "fast-model"]}) as server:
        result = headless(server, ws, "/mark")
    assert result.code == 0, result.stderr
    assert (ws / "made.txt").exists()
    assert [r["model"] for r in server.chat_requests] == ["fast-model", "fast-model"]
