"""A real git repository in tmp, and `sneakycode review` (the CLI's main, in process) against the scripted server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main

LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "SNEAKYCODE_RETRY_BACKOFF": "0.01"}
CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args], cwd=repo,
                          capture_output=True, text=True, check=True)
    return done.stdout


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with calc.py committed on main."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "calc.py").write_text(CALC)
    commit_all(root, "calc")
    return root


def finding(path: str, line: int, severity: str = "error", **more: Any) -> dict[str, Any]:
    return {"path": path, "line": line, "severity": severity, "title": more.pop("title", f"{severity} at {line}"),
            "body": more.pop("body", "Why it is wrong."), **more}


def answer(summary: str, *found: dict[str, Any]) -> dict[str, Any]:
    """The scripted model ends with the findings as its finish message."""
    return {"tool_calls": [{"name": "finish", "arguments": {"message": json.dumps(
        {"summary": summary, "findings": list(found)})}}]}


def review(server: ScriptedServer, repo: Path, *flags: str, env: dict[str, str] | None = None) -> CliResult:
    return run_main("review", "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(repo),
                    *flags, env={**LOOPBACK, **(env or {})}, timeout=120)


def diff_sent(server: ScriptedServer, request: int = 0) -> str:
    """The diff the model was given in a request (the last user message's <diff> block)."""
    content = [m for m in server.chat_requests[request]["messages"] if m["role"] == "user"][-1]["content"]
    return str(content).split("<diff>\n", 1)[1].rsplit("\n</diff>", 1)[0]
