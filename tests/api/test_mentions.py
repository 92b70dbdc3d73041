"""Issue 36: what a prompt line brings along, through the session (api/mentions.py): `@file` read through the
session's gate (deny rules hold), `!cmd`, `@PATH` completion and image attachments."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import sneakycode
from sneakycode.api.mentions import image_attachment
from sneakycode.api.session import Session
from sneakycode.api.vocabulary import ErrorCode, ToolError
from sneakycode.testing.server import ScriptedServer


def session_in(server: ScriptedServer, repo: Path, **settings: object) -> Session:
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                                 settings={"retry_backoff": 0.01, **settings})
    return Session(options)


def test_mentions_are_read_through_the_gate_so_deny_rules_hold(server: ScriptedServer, repo: Path) -> None:
    (repo / "secret.txt").write_text("token\n")
    with session_in(server, repo, **{"permissions.deny": ["read_file(secret.txt)"]}) as session:
        found = session.attach_mentions("look at @calc.py and @secret.txt.")
    assert found.names == ["calc.py"] and "1\tdef add(a, b):" in found.blocks[0]
    assert len(found.problems) == 1 and found.problems[0].startswith("@secret.txt: [")
    assert "token" not in found.request("look")


def test_a_users_command_runs_in_the_workspace_and_completion_hides_ignored_files(
        server: ScriptedServer, repo: Path) -> None:
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "calc.log").write_text("")
    with session_in(server, repo) as session:
        result = session.run_user_command("pwd")
        assert result.success and str(session.workspace) in result.render()
        assert session.complete_path("ca") == ["calc.py"]
        assert session.complete_path("../") == []  # never outside the workspace
        assert not session.supports_images


def test_an_image_attachment_named_for_a_fifo_is_a_coded_error_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "shot.png"
    os.mkfifo(fifo)
    with pytest.raises(ToolError) as raised:
        image_attachment(fifo)
    assert raised.value.code is ErrorCode.NOT_REGULAR_FILE
    (tmp_path / "notes.png").write_text("not an image")
    assert image_attachment(tmp_path / "notes.png") is None
