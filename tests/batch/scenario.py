"""The batch tests' world: three temporary git repositories and six tasks, each with its own scripted server,
whose expected outcomes, verdicts and diffs are known."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer

GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, name: str, files: dict[str, str]) -> Path:
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for path, text in files.items():
        (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "start")
    return repo


def write_step(path: str, content: str) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"name": "write_file", "arguments": {"file_path": path, "content": content}}]}


def done(message: str = "Done.") -> dict[str, Any]:
    return {"content": message}


@dataclass
class Expected:
    outcome: str
    status: str
    verdict: bool | None
    files: list[str]
    diff_has: str = ""


@dataclass
class Scenario:
    task_file: Path
    servers: dict[str, ScriptedServer]
    expected: dict[str, Expected]


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks), encoding="utf-8")
    return path


@contextmanager
def six_tasks(root: Path, *, delay: float = 0.0, only_done: bool = False) -> Iterator[Scenario]:
    """Six tasks over three repositories. `only_done`: every script answers "Done." (three times, so a task
    run again after a kill still has replies), for tests that count requests rather than diffs."""
    make_repo(root, "r1", {"a.py": "a = 1\n"})
    make_repo(root, "r2", {"README.md": "two\n"})
    r3 = make_repo(root, "r3", {"main.txt": "three\n"})
    git(r3, "checkout", "-qb", "feature")
    (r3 / "feature.txt").write_text("on the branch\n", encoding="utf-8")
    git(r3, "add", "-A")
    git(r3, "commit", "-qm", "feature")
    git(r3, "checkout", "-q", "main")
    plans: list[tuple[dict[str, Any], list[dict[str, Any]], Expected]] = [
        ({"id": "add-b", "repo": "r1", "prompt": "Add b.py", "test": "test -f b.py"},
         [write_step("b.py", "b = 2\n"), done()], Expected("passed", "answered", True, ["b.py"], "+b = 2")),
        ({"id": "hello", "repo": "r1", "prompt": "Say hello", "test": "grep -q hello c.txt"},
         [write_step("c.txt", "hello\n"), done()], Expected("passed", "answered", True, ["c.txt"], "+hello")),
        ({"id": "wrong", "repo": "r2", "prompt": "Write right", "test": "grep -q right x.txt"},
         [write_step("x.txt", "wrong\n"), done()], Expected("failed", "answered", False, ["x.txt"], "+wrong")),
        ({"id": "bad-setup", "repo": "r2", "prompt": "Never runs", "setup": "echo no database >&2; exit 7"},
         [done()], Expected("errored", "setup_failed", None, [])),
        ({"id": "on-branch", "repo": "r3", "ref": "feature", "prompt": "Add y",
          "test": "test -f feature.txt && test -f y.txt"},
         [write_step("y.txt", "why\n"), done()], Expected("passed", "answered", True, ["y.txt"], "+why")),
        ({"id": "nothing", "repo": "r3", "prompt": "Look only"}, [done("Nothing to do.")],
         Expected("passed", "answered", None, [])),
    ]  # fmt: skip
    with ExitStack() as stack:
        servers: dict[str, ScriptedServer] = {}
        lines = []
        for task, steps, _ in plans:
            script = {"steps": [done()] * 3 if only_done else steps, "delay": delay}
            server = stack.enter_context(ScriptedServer(script))
            servers[task["id"]] = server
            lines.append({**task, "base_url": server.base_url, "model": "scripted-model"})
        expected = {task["id"]: exp for task, _, exp in plans}
        yield Scenario(write_tasks(root / "tasks.jsonl", lines), servers, expected)


def results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def check_six(scenario: Scenario, out: Path) -> None:
    """Every task has one result line with the expected outcome, status, verdict and diff."""
    lines = results(out)
    assert sorted(r["id"] for r in lines) == sorted(scenario.expected)
    for line in lines:
        exp = scenario.expected[line["id"]]
        assert (line["outcome"], line["status"]) == (exp.outcome, exp.status), line
        assert (line["verdict"] or {}).get("passed") == exp.verdict, line
        assert line["files_changed"] == exp.files, line
        assert exp.diff_has in line["diff"]
        if exp.status != "setup_failed":
            assert Path(line["transcript"]).is_file()
    setup = next(r for r in lines if r["id"] == "bad-setup")
    assert "exit code 7" in setup["error"] and "no database" in setup["error"]
    assert scenario.servers["bad-setup"].chat_requests == []
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["passed"], summary["failed"], summary["errored"]) == (4, 1, 1)
