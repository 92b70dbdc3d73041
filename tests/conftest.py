"""Shared fixtures: a real workspace folder, an isolated state/config home, a ToolContext, and a CLI runner.

Every test gets its own HOME/XDG folders so no user configuration or session of the machine leaks in.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import load_settings, record_trust, trust_state_dir
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in list(os.environ):
        if name.startswith("SNEAKYCODE_") or name.endswith("_API_KEY"):
            monkeypatch.delenv(name, raising=False)
    yield home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    """A tool session over `ws` with default settings."""
    return open_tool_context(load_settings(ws))


def call(ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    """Run a tool the way the model would (JSON arguments through the registry)."""
    return Gate(ctx).run_direct(name, json.dumps(args))


def project_config(ws: Path, text: str, *, trusted: bool = True) -> Path:
    """Write the workspace's `.sneakycode/config.toml`; `trusted` records the user's trust in it, as
    `sneakycode trust` does (over every repository file present, `.mcp.json` included), so what it asks for
    applies in full."""
    path = ws / ".sneakycode" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if trusted:
        record_trust(ws.resolve(), trust_state_dir())
    return path


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None,
            timeout: float = 60) -> CliResult:
    """Run the real `sneakycode` entry point in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "sneakycode.faces.cli.main", *argv],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


# Whole suites that drive real outside programs turn after turn (language servers, eval's many agent runs,
# doctor's timed probes): slow as a whole, so `make test` leaves them to `make test-slow`, which .ci/run runs
# after it. (The editor face's suite runs its agent in process and marks its few real-process tests slow.)
SLOW_SUITES = ("evals", "doctor", "tools/lsp")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        relative = item.path.relative_to(tests).as_posix() if item.path.is_relative_to(tests) else ""
        if relative.startswith(tuple(f"{suite}/" for suite in SLOW_SUITES)):
            item.add_marker(pytest.mark.slow)
