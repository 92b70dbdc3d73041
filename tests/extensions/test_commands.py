"""Custom commands: names from folders, argument substitution, file attachments and grants, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from sneakycode.extensions.commands import discover_commands
from sneakycode.extensions.grants import granted, translate
from sneakycode.extensions.invocation import Extensions, invoke, parse_slash, with_arguments
from sneakycode.permissions.decide import Decision
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import open_tool_context
from tests.conftest import project_config


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_names_come_from_subfolders_and_an_untypeable_name_is_reported(ws: Path) -> None:
    write(ws / ".sneakycode/commands/review.md", "Review it.")
    write(ws / ".sneakycode/commands/git/commit.md", "Commit it.")
    write(ws / ".sneakycode/commands/has space.md", "Never.")
    write(ws / ".sneakycode/commands/empty.md", "---\ndescription: nothing\n---\n")
    catalog = discover_commands(open_tool_context(load_settings(ws)).workspace)
    assert [c.name for c in catalog.commands] == ["git:commit", "review"]
    assert [n.split(": ", 1)[0] for n in catalog.notices()] == [
        ".sneakycode/commands/empty.md:1", ".sneakycode/commands/has space.md:1"
    ]


def test_arguments_fill_their_places_or_are_appended() -> None:
    assert with_arguments("Fix $1 in $2; all: $ARGUMENTS", '"my file.py" parser') == (
        'Fix my file.py in parser; all: "my file.py" parser'
    )
    assert with_arguments("Missing $3 stays empty.", "a b") == "Missing  stays empty."
    assert with_arguments("No placeholders.", "extra words") == "No placeholders.\n\nARGUMENTS: extra words"
    assert parse_slash("/git:commit -m x") == ("git:commit", "-m x")
    assert parse_slash("/usr/bin/env is missing") is None


def test_a_file_a_deny_rule_hides_is_not_attached(ws: Path) -> None:
    project_config(ws, 'permissions.deny = ["read_file(.env)"]\n', trusted=False)
    write(ws / ".env", "KEY=secret\n")
    write(ws / "notes.md", "hello\n")
    write(ws / ".sneakycode/commands/look.md", "Look at @notes.md and @.env and @property.")
    ctx = open_tool_context(load_settings(ws))
    extensions = Extensions(commands=discover_commands(ctx.workspace))
    invocation = invoke("/look", extensions, Gate(ctx), trusted=False)
    assert '<file path="notes.md">\nhello\n</file>' in invocation.prompt
    assert "secret" not in invocation.prompt
    assert invocation.notices == ["@.env was not attached: deny rule `read_file(.env)` keeps it from the model"]


def test_unknown_commands_name_the_ones_there_are(ws: Path) -> None:
    ctx = open_tool_context(load_settings(ws))
    with pytest.raises(ConfigError, match="none are defined"):
        invoke("/nothing", Extensions(), Gate(ctx), trusted=True)


def test_other_agents_tool_names_translate_through_facets() -> None:
    rules, dropped = translate(("Bash(git add:*)", "Edit(src/**)", "WebFetch", "read_file"))
    assert "run_command(git add:*)" in rules and "str_replace(src/**)" in rules and "write_file(src/**)" in rules
    assert "read_file" in rules and "web_fetch" in rules and dropped == []
    reads, _ = translate(("Read(docs/**)", "Grep"))
    assert {"read_file(docs/**)", "grep_files(docs/**)", "list_dir(docs/**)", "grep_files"} <= set(reads)
    assert "find_files" not in reads


def test_a_grant_holds_only_inside_its_block(ws: Path) -> None:
    ctx = open_tool_context(load_settings(ws))
    gate = Gate(ctx)

    def decision() -> Decision:
        prepared = gate.prepare("run_command", {"command": "touch made.txt"})
        assert prepared.decision is not None
        return prepared.decision.decision

    assert decision() is Decision.ASK
    with granted(ctx, ["run_command(touch made.txt)"], "/mark (.sneakycode/commands/mark.md)"):
        prepared = gate.prepare("run_command", {"command": "touch made.txt"})
        assert prepared.decision is not None and prepared.decision.decision is Decision.ALLOW
        assert "/mark (.sneakycode/commands/mark.md)" in prepared.decision.reason
    assert decision() is Decision.ASK
    with pytest.raises(RuntimeError), granted(ctx, ["run_command(touch made.txt)"], "/mark"):
        raise RuntimeError("the request failed")
    assert decision() is Decision.ASK
