"""Which language servers a session may use (issue 29): the common ones found on PATH (its absolute folders
only), `[lsp.servers.NAME]` adding, changing or turning one off, and `code` offered only when a server serves
a language the workspace holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.api.assembly import builtin_tools
from sneakycode.config import load_settings
from sneakycode.tools.lsp.servers import available_servers, configured_servers, root_for, server_for
from tests.conftest import project_config
from tests.tools.lsp.servers import user_config


def fake_program(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / name
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    return program


def test_common_servers_are_found_on_the_absolute_folders_of_path(ws: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    gopls = fake_program(tmp_path / "bin", "gopls")
    fake_program(ws / "here", "rust-analyzer")  # a relative PATH entry is the current folder's business: skipped
    monkeypatch.chdir(ws)
    monkeypatch.setenv("PATH", f"here{os.pathsep}{tmp_path / 'bin'}")
    servers = configured_servers(load_settings(ws))
    assert [(s.name, s.argv) for s in servers] == [("gopls", (str(gopls),))]
    assert available_servers(load_settings(ws)) == []  # no Go file in the workspace
    (ws / "cmd").mkdir()
    (ws / "cmd" / "main.go").write_text("package main\n")
    assert [s.name for s in available_servers(load_settings(ws))] == ["gopls"]
    assert "code" in [t.name for t in builtin_tools(load_settings(ws), "some-model")]


def test_configured_servers_come_first_and_can_turn_a_built_in_one_off(ws: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fake_program(tmp_path / "bin", "gopls")
    mine = fake_program(tmp_path / "opt", "my-python-server")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    user_config(f'[lsp.servers.mine]\ncommand = "{mine}"\nargs = ["--stdio"]\nlanguages = ["python"]\n'
                'root_markers = ["setup.cfg"]\n[lsp.servers.gopls]\nenabled = false\n')
    servers = configured_servers(load_settings(ws))
    assert [(s.name, s.argv) for s in servers] == [("mine", (str(mine), "--stdio"))]
    python = server_for(servers, "python")
    assert python is not None and server_for(servers, "go") is None
    (ws / "lib" / "pkg").mkdir(parents=True)
    (ws / "lib" / "setup.cfg").write_text("")
    assert root_for(python, ws / "lib" / "pkg" / "a.py", ws) == ws / "lib"
    assert root_for(python, ws / "b.py", ws) == ws


def test_lsp_turned_off_offers_no_code_tool_and_a_project_may_turn_it_off(ws: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake_program(tmp_path / "bin", "gopls")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    (ws / "main.go").write_text("package main\n")
    project_config(ws, "[lsp]\nenabled = false\n", trusted=False)  # tightening: kept without trust
    loaded = load_settings(ws)
    assert loaded.settings.lsp.enabled is False and configured_servers(loaded) == []
    assert "code" not in [t.name for t in builtin_tools(loaded, "some-model")]
