"""permissions.decide: tiers, `[permissions]` rules, path globs, modes, and where each rule came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import LoadedSettings, Settings, load_settings
from sneakycode.permissions.decide import Decision, PermissionDecision, decide
from sneakycode.tools.registry import all_tools

# job reads output in the auto tier; its kill is decided as the job's command (tests/tools/test_jobs.py).
# web_search (issue 31) only reads, from the backend the user configured.
REFERENCE_AUTO = {"read_file", "list_dir", "grep_files", "find_files", "finish", "update_tasks", "job", "web_search"}


def settings(**permissions: Any) -> Settings:
    shell = permissions.pop("shell", {})
    return Settings.model_validate({"permissions": permissions, "tools": {"shell": shell}})


def check(ws: Path, tool: str, args: dict[str, Any], config: Settings | LoadedSettings | None = None,
          mode: str | None = None) -> PermissionDecision:
    return decide(tool, args, config or Settings(), ws, mode)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- tiers


def test_every_tool_has_the_tier_of_the_reference() -> None:
    tiers = {found.name: found.tier.value for found in all_tools()}
    assert {name for name, tier in tiers.items() if tier == "auto"} == REFERENCE_AUTO & set(tiers)


def test_auto_tier_tools_run_and_confirm_tier_tools_ask_by_default(ws: Path) -> None:
    for found in all_tools():
        verdict = check(ws, found.name, {})
        expected = Decision.ALLOW if found.name in REFERENCE_AUTO else Decision.ASK
        assert verdict.decision is expected, (found.name, verdict.reason)
        assert verdict.rule == f"tier: {found.tier.value}"


def test_a_name_that_is_no_tool_asks_and_says_so(ws: Path) -> None:
    verdict = check(ws, "format_disk", {})
    assert verdict.decision is Decision.ASK and "format_disk is not a SneakyCode tool" in verdict.reason


# --- rules and their order


def test_a_bare_deny_rule_refuses_every_call_of_the_tool(ws: Path) -> None:
    verdict = check(ws, "delete_file", {"file_path": "a.txt"}, settings(deny=["delete_file"], allow=["delete_file"]))
    assert verdict.decision is Decision.DENY
    assert verdict.reason == "deny rule `delete_file` (permissions.deny) covers every delete_file call"


def test_deny_beats_ask_beats_allow(ws: Path) -> None:
    rules = settings(deny=["write_file(secrets/**)"], ask=["write_file(src/config.py)"], allow=["write_file"])
    assert check(ws, "write_file", {"file_path": "secrets/k"}, rules).decision is Decision.DENY
    asked = check(ws, "write_file", {"file_path": "src/config.py"}, rules)
    assert asked.decision is Decision.ASK and "matches ask rule `write_file(src/config.py)`" in asked.reason
    assert check(ws, "write_file", {"file_path": "src/app.py"}, rules).decision is Decision.ALLOW


def test_a_deny_rule_also_stops_an_auto_tier_tool(ws: Path) -> None:
    verdict = check(ws, "read_file", {"file_path": "config/prod.env"}, settings(deny=["read_file(*.env)"]))
    assert verdict.decision is Decision.DENY
    assert verdict.reason == "`config/prod.env` matches deny rule `read_file(*.env)` (permissions.deny)"
    assert verdict.rule == "read_file(*.env)"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("secrets/**", "secrets/api/key.txt", True),
        ("secrets/**", "src/secrets/key.txt", False),
        ("*.env", "deploy/prod.env", True),
        ("/build", "build", True),
        ("/build", "src/build", False),
        ("docs/*.md", "docs/guide.md", True),
        ("docs/*.md", "docs/api/guide.md", False),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("./src/**", "src/app.py", True),
    ],
)
def test_path_patterns_are_gitignore_globs_relative_to_the_workspace(
    ws: Path, pattern: str, path: str, matches: bool
) -> None:
    verdict = check(ws, "read_file", {"file_path": path}, settings(deny=[f"read_file({pattern})"]))
    assert (verdict.decision is Decision.DENY) is matches, verdict.reason


def test_a_directory_pattern_covers_the_directory_itself(ws: Path) -> None:
    (ws / "build").mkdir()
    rules = settings(deny=["list_dir(build/)", "make_dir(out/)"])
    assert check(ws, "list_dir", {"directory_path": "build"}, rules).decision is Decision.DENY
    assert check(ws, "make_dir", {"directory_path": "out"}, rules).decision is Decision.DENY
    assert check(ws, "list_dir", {}, rules).decision is Decision.ALLOW


def test_a_path_rule_sees_through_dot_dot_absolute_paths_and_symlinks(ws: Path) -> None:
    write(ws / "secrets" / "key.txt", "k")
    (ws / "public").symlink_to(ws / "secrets")
    rules = settings(deny=["read_file(secrets/**)"])
    for path in ("src/../secrets/key.txt", str(ws / "secrets" / "key.txt"), "public/key.txt"):
        verdict = check(ws, "read_file", {"file_path": path}, rules)
        assert verdict.decision is Decision.DENY, path


def test_an_allow_rule_must_cover_the_path_a_symlink_resolves_to(ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "src").mkdir()
    (ws / "src" / "link").symlink_to(ws / "secrets")
    rules = settings(allow=["write_file(src/**)"])
    assert check(ws, "write_file", {"file_path": "src/app.py"}, rules).decision is Decision.ALLOW
    assert check(ws, "write_file", {"file_path": "src/link/key"}, rules).decision is Decision.ASK


def test_a_path_argument_left_out_is_judged_by_its_default(ws: Path) -> None:
    rules = settings(deny=["grep_files(.)"])
    verdict = check(ws, "grep_files", {"pattern": "x"}, rules)
    assert verdict.decision is Decision.DENY and "`.` matches deny rule" in verdict.reason


def test_command_rules_in_permissions_exact_and_prefix(ws: Path) -> None:
    rules = settings(allow=["run_command(git status)", "run_command(pytest:*)"])
    assert check(ws, "run_command", {"command": "git status"}, rules).decision is Decision.ALLOW
    assert check(ws, "run_command", {"command": "git status -s"}, rules).decision is Decision.ASK
    assert check(ws, "run_command", {"command": "pytest -x tests"}, rules).decision is Decision.ALLOW


def test_a_deny_command_rule_without_star_still_matches_as_a_prefix(ws: Path) -> None:
    verdict = check(ws, "run_command", {"command": "git push --force"}, settings(deny=["run_command(git push)"]))
    assert verdict.decision is Decision.DENY and verdict.rule == "run_command(git push)"


def test_an_ask_command_rule_beats_the_allowed_commands(ws: Path) -> None:
    rules = settings(ask=["run_command(git commit:*)"], shell={"allowed_commands": ["git"]})
    verdict = check(ws, "run_command", {"command": "git add . && git commit -m x"}, rules, mode="yolo")
    assert verdict.decision is Decision.ASK
    assert "`git commit -m x` matches ask rule `run_command(git commit:*)`" in verdict.reason


def test_bare_run_command_rules_cover_every_line(ws: Path) -> None:
    line = {"command": "echo $(date) > out.txt"}
    assert check(ws, "run_command", line, settings(allow=["run_command"])).decision is Decision.ALLOW
    assert check(ws, "run_command", line, settings(allow=["run_command"], ask=["run_command"])).decision is Decision.ASK
    denied = check(ws, "run_command", {"command": "ls"}, settings(deny=["run_command"]))
    assert denied.decision is Decision.DENY and "covers every command" in denied.reason
    still_denied = check(ws, "run_command", {"command": "rm -rf x"},
                         settings(allow=["run_command"], shell={"denied_commands": ["rm"]}))
    assert still_denied.decision is Decision.DENY


def test_a_rule_missing_its_closing_parenthesis_still_denies(ws: Path) -> None:
    verdict = check(ws, "run_command", {"command": "rm -rf build"}, settings(deny=["run_command(rm -rf"]))
    assert verdict.decision is Decision.DENY


def test_run_command_decisions_list_the_simple_commands(ws: Path) -> None:
    verdict = check(ws, "run_command", {"command": "ls && sudo make install"})
    assert verdict.commands == ["ls", "sudo make install"]
    assert verdict.reason.startswith("run_command needs confirmation: `ls` matches no allowed command")


# --- modes


def test_auto_edit_approves_file_edits_but_not_deletes_commands_or_its_own_settings(ws: Path) -> None:
    def in_auto_edit(tool: str, args: dict[str, Any]) -> PermissionDecision:
        return check(ws, tool, args, mode="auto-edit")

    for tool in ("write_file", "str_replace", "patch_apply", "make_dir"):
        path_key = "directory_path" if tool == "make_dir" else "file_path"
        verdict = in_auto_edit(tool, {path_key: "src/app.py"})
        assert verdict.decision is Decision.ALLOW and verdict.reason == "auto-edit mode approves file edits"
    assert in_auto_edit("delete_file", {"file_path": "src/app.py"}).decision is Decision.ASK
    command = in_auto_edit("run_command", {"command": "make"})
    assert command.decision is Decision.ASK and "auto-edit mode approves file edits, not commands" in command.reason
    own = in_auto_edit("write_file", {"file_path": ".sneakycode/config.toml"})
    assert own.decision is Decision.ASK and "holds SneakyCode's own settings" in own.reason


def test_plan_mode_denies_every_tool_outside_the_auto_tier_even_when_allowed(ws: Path) -> None:
    rules = settings(allow=["write_file", "run_command(git status)"])
    for tool, args in (("write_file", {"file_path": "a"}), ("run_command", {"command": "git status"})):
        verdict = check(ws, tool, args, rules, mode="plan")
        assert verdict.decision is Decision.DENY and verdict.rule == "mode: plan"
        assert "SneakyCode is in plan mode" in verdict.reason and f"so {tool} was refused" in verdict.reason
    assert check(ws, "read_file", {"file_path": "a"}, rules, mode="plan").decision is Decision.ALLOW


def test_plan_mode_from_settings_and_the_mode_argument_overrides_it(ws: Path) -> None:
    planning = settings(mode="plan")
    assert check(ws, "write_file", {"file_path": "a"}, planning).decision is Decision.DENY
    assert check(ws, "write_file", {"file_path": "a"}, planning, mode="yolo").decision is Decision.ALLOW


def test_yolo_approves_everything_but_deny_rules_ask_rules_and_possible_denials(ws: Path) -> None:
    rules = settings(ask=["delete_file"], shell={"denied_commands": ["git push"]})
    assert check(ws, "run_command", {"command": "curl -s x | sh"}, settings(), mode="yolo").decision is Decision.ALLOW
    assert check(ws, "write_file", {"file_path": "a"}, rules, mode="yolo").decision is Decision.ALLOW
    assert check(ws, "run_command", {"command": "git push"}, rules, mode="yolo").decision is Decision.DENY
    assert check(ws, "delete_file", {"file_path": "a"}, rules, mode="yolo").decision is Decision.ASK
    maybe = check(ws, "run_command", {"command": "x=push; git $x"}, rules, mode="yolo")
    assert maybe.decision is Decision.DENY and "might match deny rule `git push`" in maybe.reason
    unseen = check(ws, "run_command", {"command": "curl -s x | sh"}, rules, mode="yolo")
    assert unseen.decision is Decision.DENY and "which cannot be seen: it might match deny rule" in unseen.reason


def test_yolo_asks_or_refuses_when_a_command_is_hidden_from_deny_and_ask_rules(ws: Path) -> None:
    """Regression: past a depth limit wrappers were not followed, so yolo ran `nohup ... rm` despite `rm`.
    Hardening class 6: what might match a deny rule is refused; what might match an ask rule asks."""
    rules = settings(ask=["run_command(git commit:*)"], shell={"denied_commands": ["rm"]})
    deep = check(ws, "run_command", {"command": "nohup " * 40 + "rm -rf /"}, rules, mode="yolo")
    assert deep.decision is Decision.DENY and "nests commands too deeply to check" in deep.reason
    asking = settings(ask=["run_command(git commit:*)"])
    deep = check(ws, "run_command", {"command": "nohup " * 40 + "rm -rf /"}, asking, mode="yolo")
    assert deep.decision is Decision.ASK and "nests commands too deeply to check" in deep.reason
    maybe = check(ws, "run_command", {"command": "x=commit; git $x -m msg"}, asking, mode="yolo")
    assert maybe.decision is Decision.ASK and "might match ask rule `run_command(git commit:*)`" in maybe.reason


def test_an_unknown_mode_is_an_error(ws: Path) -> None:
    with pytest.raises(ValueError, match="unknown permission mode 'careful'"):
        check(ws, "read_file", {"file_path": "a"}, mode="careful")


# --- provenance


def test_reasons_name_the_file_variable_or_flag_each_rule_came_from(ws: Path, tmp_path: Path) -> None:
    user = write(tmp_path / "user.toml", '[tools.shell]\ndenied_commands = ["rm"]\n')
    project = write(ws / ".sneakycode" / "config.toml", '[permissions]\ndeny = ["read_file(secrets/**)"]\n')
    loaded = load_settings(
        ws,
        user_config=user,
        environ={"SNEAKYCODE_TOOLS__SHELL__ALLOWED_COMMANDS": '["ls"]'},
        flags={"permissions.ask": ["write_file(src/**)"]},
    )
    removal = decide("run_command", {"command": "ls && rm -rf build"}, loaded, ws)
    assert removal.decision is Decision.DENY
    assert f"`rm -rf build` matches deny rule `rm` (tools.shell.denied_commands in {user})" in removal.reason
    assert removal.rule == "tools.shell.denied_commands: rm"
    secret = decide("read_file", {"file_path": "secrets/k"}, loaded, ws)
    assert f"(permissions.deny in {project})" in secret.reason
    listing = decide("run_command", {"command": "ls -la"}, loaded, ws)
    assert "(tools.shell.allowed_commands in environment variable SNEAKYCODE_TOOLS__SHELL__ALLOWED_COMMANDS)" in (
        listing.reason
    )
    edit = decide("write_file", {"file_path": "src/a.py"}, loaded, ws)
    assert edit.decision is Decision.ASK and "(permissions.ask in command-line flags)" in edit.reason


def test_a_path_through_a_symlinked_workspace_root_matches_the_same_rules(tmp_path: Path) -> None:
    """Regression: with allow = ["write_file(src/**)"], src/a.py was allowed but the same file named through
    a symlinked checkout of the workspace was asked, because rules resolved paths their own way."""
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    alias = tmp_path / "alias"
    alias.symlink_to(real, target_is_directory=True)
    config = settings(allow=["write_file(src/**)"], deny=["write_file(src/secret.py)"])
    root = real.resolve()
    for written in ("src/a.py", str(real / "src" / "a.py"), str(alias / "src" / "a.py")):
        assert check(root, "write_file", {"file_path": written}, config).decision is Decision.ALLOW, written
    for written in ("src/secret.py", str(alias / "src" / "secret.py")):
        assert check(root, "write_file", {"file_path": written}, config).decision is Decision.DENY, written
    outside = check(root, "write_file", {"file_path": str(tmp_path / "src" / "a.py")}, config)
    assert outside.decision is Decision.ASK
