"""The loops small models fall into (issue 38), through api.Session against the scripted server: the same call
returning the same result, the same text, the same reasoning, reply after reply. Each is told to the model once
(in a tool result), and repeating once more ends the run with the coded reason `repetition`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.agent.feedback import REPEAT_LIMIT
from sneakycode.testing.server import ScriptedServer

CALC = "def add(a, b):\n    return a - b\n"
PARAGRAPH = ("I will look at the calculator module to understand how the add function works and then decide what "
             "to change in it.")


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def repo(ws: Path) -> Path:
    (ws / "calc.py").write_text(CALC)
    (ws / "notes.txt").write_text("nothing here\n")
    return ws


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": []}) as running:
        yield running


def call(name: str, content: str = "", reasoning: str = "", **arguments: Any) -> dict[str, Any]:
    step: dict[str, Any] = {"tool_calls": [{"name": name, "arguments": arguments}]}
    if content:
        step["content"] = content
    if reasoning:
        step["reasoning"] = reasoning
    return step


def run(server: ScriptedServer, repo: Path) -> sneakycode.Result:
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b", api_key="k",
                                 isolated=True, max_turns=20, settings={"retry_backoff": 0.01})
    with sneakycode.Session(options) as session:
        return session.run("fix add")


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_the_same_successful_call_is_told_once_then_ends_the_run(server: ScriptedServer, repo: Path) -> None:
    """Hardening round three, issue 38: a small model reading the same file over and over (each read succeeds,
    same result) used to loop until max_turns; it is told at the third read and stopped at the fourth."""
    server.add_steps([call("read_file", file_path="calc.py") for _ in range(6)] + [call("finish", message="x")])
    result = run(server, repo)
    assert (result.status, result.error_kind) == ("error", "repetition")
    assert "same read_file call 4 times in a row" in result.message
    assert len(server.chat_requests) == REPEAT_LIMIT + 1  # nothing asked after the fourth read
    told = tool_results(server.chat_requests[REPEAT_LIMIT])
    assert "returned the same result 3 times in a row" in told[-1]
    assert all("same result" not in text for text in told[:-1])


def test_the_same_call_returning_something_new_is_not_a_loop(server: ScriptedServer, repo: Path) -> None:
    """A call repeated while what it returns changes (a file rewritten between reads) is work, not a loop."""
    steps: list[dict[str, Any]] = []
    for number in range(5):
        steps += [call("read_file", file_path="notes.txt"),
                  call("write_file", file_path="notes.txt", content=f"version {number}\n")]
    server.add_steps([*steps, call("finish", message="Done.")])
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b", api_key="k",
                                 isolated=True, max_turns=20, mode="auto-edit", settings={"retry_backoff": 0.01})
    with sneakycode.Session(options) as session:
        result = session.run("rewrite notes")
    assert (result.status, result.message) == ("finished", "Done.")
    assert not any("Note:" in text for text in tool_results(server.chat_requests[-1]))


@pytest.mark.parametrize("field", ["content", "reasoning"])
def test_the_same_text_or_reasoning_is_told_once_then_ends_the_run(server: ScriptedServer, repo: Path,
                                                                   field: str) -> None:
    """The same paragraph (or the same reasoning) before different calls, reply after reply: told once, in
    the next tool result, and the run ends when it comes again."""
    arguments = [{"file_path": "calc.py"}, {"file_path": "notes.txt"}, {"path": "."}, {"file_path": "calc.py",
                                                                                       "offset": 2}, {"path": "."}]
    names = ["read_file", "read_file", "list_dir", "read_file", "list_dir"]
    server.add_steps([call(name, **{field: PARAGRAPH}, **args) for name, args in zip(names, arguments, strict=True)]
                     + [call("finish", message="x")])
    result = run(server, repo)
    kind = "text" if field == "content" else "reasoning"
    assert (result.status, result.error_kind) == ("error", "repetition")
    assert f"same {kind} in 4 replies in a row" in result.message
    assert len(server.chat_requests) == REPEAT_LIMIT + 1
    assert f"you have written the same {kind} in 3 replies" in tool_results(server.chat_requests[REPEAT_LIMIT])[-1]


def test_a_short_lead_in_said_again_is_not_a_loop(server: ScriptedServer, repo: Path) -> None:
    """"Let me check." before different calls is how small models talk, not a loop."""
    server.add_steps([call("read_file", content="Let me check.", file_path=name)
                      for name in ("calc.py", "notes.txt", "calc.py", "notes.txt")]
                     + [call("list_dir", content="Let me check.", path="."), call("finish", message="Done.")])
    result = run(server, repo)
    assert (result.status, result.message) == ("finished", "Done.")
