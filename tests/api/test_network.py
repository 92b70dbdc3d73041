"""Issue 36: the network proxy's refusals a face offers to allow (api/network.py), through the session."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import sneakycode
from sneakycode.api.session import Session
from sneakycode.process.sandbox import probe
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish


def test_a_refused_host_is_named_once_and_can_be_allowed_for_the_session_and_saved(
        server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    found = probe(repo, network=False)
    if not found.available:
        pytest.skip(f"bwrap sandbox cannot run here: {found.reason}")
    server.add_steps([call("run_command", command="curl -sS -p http://denied.test:443/"), finish("done")])
    settings = {"retry_backoff": 0.01, "permissions.mode": "yolo", "tools.shell.sandbox": "bwrap",
                "tools.shell.allowed_hosts": ["allowed.test"]}  # fmt: skip
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                                 settings=settings)
    with Session(options) as session:
        mark = session.refusals_mark()
        session.run("fetch it")
        assert session.refused_hosts(mark) == ["denied.test"]
        assert session.allow_host("denied.test") is None
        assert session.refused_hosts(mark) == []  # allowed since: no longer offered
        saved = session.allow_host("other.test", always=True, user_config=tmp_path / "config.toml")
    assert saved == tmp_path / "config.toml"
    assert tomllib.loads(saved.read_text())["tools"]["shell"]["allowed_hosts"] == ["other.test"]
