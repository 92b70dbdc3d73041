"""`make install` puts `sneakycode` on PATH for your own projects (issue 37: `make run` installed into the
clone's .venv and started in the clone, so every example, and the exit message's `sneakycode --resume ...`,
said "command not found")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer

ROOT = Path(__file__).resolve().parents[3]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.mark.slow
def test_make_install_into_a_prefix_gives_a_command_that_works_in_another_folder(tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    # The private-venv way (what the machine without uv or pipx gets), into a prefix of the test's own.
    installed = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "install", f"PREFIX={prefix}", f"PYTHON={sys.executable}"],
        env={**os.environ, "SNEAKYCODE_INSTALLER": "venv"}, capture_output=True, text=True, timeout=600,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert "next: cd your-project && sneakycode" in installed.stdout
    binary = prefix / "bin" / "sneakycode"
    project = tmp_path / "my-project"
    project.mkdir()
    (project / "notes.txt").write_text("hello\n")
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{os.environ['PATH']}", "NO_PROXY": "127.0.0.1",
           "no_proxy": "127.0.0.1"}
    env.pop("PYTHONPATH", None)
    version = subprocess.run(["sneakycode", "--version"], cwd=project, env=env, capture_output=True, text=True,
                             timeout=60)
    assert re.fullmatch(r"sneakycode \S+ \(commit [0-9a-f]{7,40}(-dirty)?\)\n", version.stdout), version
    with ScriptedServer([call("list_dir", directory_path="."), call("finish", message="Listed.")]) as server:
        ran = subprocess.run(["sneakycode", "-p", "what is here?", "--base-url", server.base_url, "--model", "m"],
                             cwd=project, env=env, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert "Listed." in ran.stdout
        listed = [m["content"] for r in server.requests if isinstance(r.body, dict) and "messages" in r.body
                  for m in r.body["messages"] if m["role"] == "tool"]
    assert "notes.txt" in listed[0]  # the folder it was started in is the workspace, not the clone
