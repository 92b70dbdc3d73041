"""How a command in `allowlist` mode reaches the proxy from inside its sandbox: the proxy's socket is bound at
INSIDE_PROXY_SOCKET (under the sandbox's private /tmp) and the command runs under sandbox_forwarder.py, started
by this very interpreter in isolated mode (no site, no PYTHON* variables, nothing imported from the workspace)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

INSIDE_PROXY_SOCKET = "/tmp/.sneakycode-proxy.sock"


@cache
def _forwarder_source() -> str:
    return (Path(__file__).parent / "sandbox_forwarder.py").read_text(encoding="utf-8")


def through_proxy(command: Sequence[str]) -> list[str]:
    """`command` run by the forwarder, which sets the proxy variables and offers the socket on 127.0.0.1."""
    return [sys.executable, "-I", "-S", "-c", _forwarder_source(), INSIDE_PROXY_SOCKET, "--", *command]
