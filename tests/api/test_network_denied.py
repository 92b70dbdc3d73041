"""Hardening round three, class 41: a headless run lists the hosts the sandbox's proxy refused in the
result's denied list, beside the calls the permission gate refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import sneakycode
from sneakycode.process.sandbox import probe
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish, tool_messages


def test_a_refused_host_is_in_the_result_denied_list(server: ScriptedServer, repo: Path) -> None:
    found = probe(repo, network=False)
    if not found.available:
        pytest.skip(f"bwrap sandbox cannot run here: {found.reason}")
    server.add_steps([call("run_command", command="curl -sS -p http://denied.test:443/"), finish("done")])
    settings = {"retry_backoff": 0.01, "permissions.mode": "yolo", "tools.shell.sandbox": "bwrap",
                "tools.shell.allowed_hosts": ["allowed.test"]}  # fmt: skip
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b", api_key="k",
                                 isolated=True, settings=settings)  # fmt: skip
    result = sneakycode.run("fetch it", options)
    seen = tool_messages(server.chat_requests[1])[-1]
    assert "Error [network_denied]" in seen and 'tools.shell.allowed_hosts = [..., "denied.test"]' in seen
    assert [(d["tool"], d["rule"]) for d in result.denied] == [("run_command", "tools.shell.allowed_hosts")]
    assert "denied.test:443" in result.denied[0]["reason"]
