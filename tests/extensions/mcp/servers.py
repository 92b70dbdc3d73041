"""Helpers for the MCP client tests: the fixture server, configuring servers, and checking processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sneakycode.config import user_config_path

FIXTURE = str(Path(__file__).resolve().parents[2] / "fixtures" / "mcp_fixture_server.py")


def fixture_server(*flags: str, **settings: Any) -> dict[str, Any]:
    """Settings of a stdio server running the fixture with `flags`."""
    return {"command": sys.executable, "args": [FIXTURE, *flags], **settings}


def toml_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + " }"
    return json.dumps(value)


def servers_toml(servers: dict[str, dict[str, Any]], extra: str = "") -> str:
    lines = [extra]
    for name, settings in servers.items():
        lines.append(f"[mcp.servers.{name}]")
        lines.extend(f"{key} = {toml_value(value)}" for key, value in settings.items())
    return "\n".join(lines) + "\n"


def user_servers(servers: dict[str, dict[str, Any]], extra: str = "") -> Path:
    """Write the user's config with these `[mcp.servers.NAME]` tables (and `extra` TOML before them)."""
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(servers_toml(servers, extra))
    return path


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def pid_in(path: Path, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"no pid in {path}")


def gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


@contextmanager
def http_fixture(*flags: str) -> Iterator[str]:
    """The fixture serving streamable HTTP on 127.0.0.1 in a subprocess; yields its URL."""
    proc = subprocess.Popen([sys.executable, FIXTURE, "--http", *flags], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        # The fixture prints its URL before its server listens: wait until the port takes a connection.
        where = urlsplit(url)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection((where.hostname, where.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"the fixture at {url} never listened"
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
