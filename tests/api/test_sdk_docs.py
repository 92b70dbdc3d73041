"""Every Python example in docs/sdk.md runs, against the scripted server playing the script written in the
comment above it (the examples' endpoint, http://127.0.0.1:11434/v1, is pointed at that server)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"
EXAMPLE = re.compile(r"<!-- script: (?P<script>.*?) -->\n```python\n(?P<code>.*?)```", re.S)
ENDPOINT = "http://127.0.0.1:11434/v1"


def examples() -> list[tuple[str, list[Any], str]]:
    text = DOC.read_text(encoding="utf-8")
    found = []
    for match in EXAMPLE.finditer(text):
        heading = [line for line in text[: match.start()].splitlines() if line.startswith("## ")][-1]
        found.append((heading[3:], json.loads(match["script"]), match["code"]))
    return found


def test_every_python_block_of_the_doc_has_a_script() -> None:
    assert len(examples()) == DOC.read_text(encoding="utf-8").count("```python") >= 7


@pytest.mark.parametrize(("heading", "script", "code"), examples(), ids=[e[0] for e in examples()])
def test_the_example_runs(heading: str, script: list[Any], code: str, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "cli.py").write_text("import sys\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with ScriptedServer({"steps": script}) as server:
        exec(compile(code.replace(ENDPOINT, server.base_url), f"docs/sdk.md: {heading}", "exec"), {})
        assert server.remaining_steps == 0, "the example made fewer requests than its script has replies"
