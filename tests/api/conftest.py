"""Fixtures for the Python API: a workspace with a bug to fix, and the scripted server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer

CALC = "def add(a, b):\n    return a - b\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def finish(message: str) -> dict[str, Any]:
    return call("finish", message=message)


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def repo(ws: Path) -> Path:
    (ws / "calc.py").write_text(CALC)
    return ws


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": []}) as running:
        yield running


def fixing_steps() -> list[dict[str, Any]]:
    return [
        call("read_file", file_path="calc.py"),
        call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"),
        finish("Fixed add."),
    ]


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]
