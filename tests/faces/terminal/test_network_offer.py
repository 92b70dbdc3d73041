"""Hardening round three, class 41: after a request whose command the sandbox's proxy refused a host, the
terminal offers to allow it for the session (the next command reaches past the allowlist check) or always
(written to the user's own config). Real `sneakycode` in a pty, real bwrap, the scripted model."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pexpect
import pytest

from sneakycode.config import user_config_path
from sneakycode.process.sandbox import probe
from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def curl(host: str) -> dict[str, object]:
    return call("run_command", command=f"curl -sS -p http://{host}:443/")


def test_a_refused_host_can_be_allowed_for_the_session_or_saved(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = probe(ws, network=False)
    if not found.available:
        pytest.skip(f"bwrap sandbox cannot run here: {found.reason}")
    for name, value in {"ALLOWED_HOSTS": '["allowed.test"]', "SANDBOX": "bwrap"}.items():
        monkeypatch.setenv(f"SNEAKYCODE_TOOLS__SHELL__{name}", value)
    monkeypatch.setenv("SNEAKYCODE_PERMISSIONS__MODE", "yolo")
    script = {"steps": [curl("denied.test"), call("finish", message="First."),
                        curl("denied.test"), curl("other.test"), call("finish", message="Second.")]}  # fmt: skip
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        wait_for_prompt(child)
        child.sendline("fetch it")
        child.expect_exact("Allow denied.test for commands: (s)ession, (a)lways (your config), (n)o?")
        child.send("s")
        child.expect_exact("denied.test is allowed for this session")
        wait_for_prompt(child)
        child.sendline("try again")
        child.expect_exact("Allow other.test for commands")
        child.send("a")
        child.expect_exact("added to tools.shell.allowed_hosts")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        seen = [m["content"] for r in server.chat_requests for m in r["messages"] if m["role"] == "tool"]
    first, again = [text for text in dict.fromkeys(seen) if "denied.test" in text or "502" in text][:2]
    assert "Error [network_denied]" in first and "denied.test" in first
    # Allowed now: the proxy lets the name through and tries to resolve it (nothing is called denied.test).
    assert "network_denied" not in again and "502" in again
    saved = tomllib.loads(user_config_path().read_text())
    assert saved["tools"]["shell"]["allowed_hosts"] == ["other.test"]
