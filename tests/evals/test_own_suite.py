"""A user's own suite folder (`--suite DIR`, the documented format) and SWE-bench-style instances
(`--from-swebench`, batch's converter) run like the bundled suite; a malformed suite is refused whole."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_main
from tests.process.test_sandbox import require_bwrap

FAST = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
GREETING_TEST = 'grep -qx "Hello, Ann!" <(bash greet.sh Ann)\n'


def make_suite(root: Path) -> Path:
    """One shell task: greet.sh must greet by name."""
    suite = root / "mine"
    task = suite / "tasks" / "greet-name"
    for folder, files in {"repo": {"greet.sh": 'echo "Hello!"\n'}, "hidden": {"check_greeting.sh": GREETING_TEST},
                          "solution": {"greet.sh": 'echo "Hello, $1!"\n'}}.items():  # fmt: skip
        for name, text in files.items():
            (task / folder).mkdir(parents=True, exist_ok=True)
            (task / folder / name).write_text(text)
    (suite / "suite.toml").write_text('name = "mine"\nversion = "0.1"\n')
    (task / "task.toml").write_text('prompt = "greet.sh NAME should say Hello, NAME!"\n'
                                    'test = "bash check_greeting.sh"\nlanguage = "shell"\nkind = "feature"\n'
                                    'max_turns = 5\n')  # fmt: skip
    return suite


def solving(path: str, content: str) -> list[dict[str, object]]:
    return [{"tool_calls": [{"name": "read_file", "arguments": {"file_path": path}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {"file_path": path, "content": content}}]},
            {"content": "Done."}]  # fmt: skip


def test_an_own_suite_folder_is_checked_and_run(tmp_path: Path) -> None:
    require_bwrap(tmp_path)  # the agents and hidden tests run under bubblewrap
    suite = make_suite(tmp_path)
    check = run_main("eval", "check", "--suite", str(suite))
    assert check.code == 0, check.stdout + check.stderr
    assert "ok   greet-name" in check.stdout and "1 of 1 task(s) honest" in check.stdout
    with ScriptedServer({"steps": solving("greet.sh", 'echo "Hello, $1!"\n')}) as server:
        result = run_main("eval", "--suite", str(suite), "--out", str(tmp_path / "out"), "--base-url", server.base_url,
                          "--model", "scripted-model", env=FAST, timeout=120)  # fmt: skip
    assert result.code == 0, result.stderr
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["suite"]["name"] == "mine" and card["suite"]["version"] == "0.1"
    assert [(row["id"], row["solved"], row["turns"]) for row in card["tasks"]] == [("greet-name", True, 3)]


def test_a_dishonest_task_is_reported_by_check(tmp_path: Path) -> None:
    """A hidden test that already passes on the untouched repository measures nothing: check says so."""
    suite = make_suite(tmp_path)
    (suite / "tasks" / "greet-name" / "hidden" / "check_greeting.sh").write_text("true\n")
    check = run_main("eval", "check", "--suite", str(suite))
    assert check.code == 1 and "BAD  greet-name: passes untouched" in check.stdout


def test_a_malformed_suite_names_every_problem_and_runs_nothing(tmp_path: Path) -> None:
    suite = make_suite(tmp_path)
    broken = suite / "tasks" / "broken"
    (broken / "repo").mkdir(parents=True)
    (broken / "task.toml").write_text('prompt = "x"\nlanguage = "go"\nkind = "chore"\ncolour = 1\n')
    result = run_main("eval", "--suite", str(suite), "--out", str(tmp_path / "out"), "--base-url",
                      "http://127.0.0.1:9/v1", "--model", "m")  # fmt: skip
    assert result.code == 2
    for problem in ("unknown key(s) colour", "test must be a non-empty string", "kind must be one of",
                    "hidden: missing"):  # fmt: skip
        assert problem in result.stderr, result.stderr
    assert not (tmp_path / "out").exists() and "Traceback" not in result.stderr


def test_swebench_instances_run_as_an_eval(tmp_path: Path) -> None:
    """batch's SWE-bench converter plugs in: an instance's test_cmd is its hidden test, run after the agent."""
    require_bwrap(tmp_path)  # the agents and hidden tests run under bubblewrap
    mirror = tmp_path / "mirrors" / "acme__calc"
    mirror.mkdir(parents=True)
    (mirror / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(mirror)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    base = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    instances = tmp_path / "instances.json"
    instances.write_text(json.dumps([{
        "instance_id": "acme__calc-1", "repo": "acme/calc", "base_commit": base,
        "problem_statement": "add() subtracts.", "test_cmd": "python3 -c 'import calc; assert calc.add(2, 3) == 5'",
    }]))  # fmt: skip
    unknown = run_main("eval", "--from-swebench", str(instances), "--repos-dir", str(tmp_path / "mirrors"), "--tasks",
                       "nope", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")  # fmt: skip
    assert unknown.code == 2 and "no instance 'nope'" in unknown.stderr
    with ScriptedServer({"steps": solving("calc.py", "def add(a, b):\n    return a + b\n")}) as server:
        result = run_main("eval", "--from-swebench", str(instances), "--repos-dir", str(tmp_path / "mirrors"), "--out",
                          str(tmp_path / "out"), "--base-url", server.base_url, "--model", "scripted-model", env=FAST,
                          timeout=120)  # fmt: skip
    assert result.code == 0, result.stderr
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["suite"] == {"name": "instances", "version": "swebench", "tasks": 1, "folder": str(instances)}
    assert [(row["id"], row["solved"], row["language"]) for row in card["tasks"]] == [("acme__calc-1", True,
                                                                                       "swebench")]  # fmt: skip


def test_python_bytecode_beside_a_suite_is_not_part_of_its_tasks(tmp_path: Path) -> None:
    """pip byte-compiles an installed package, the bundled suite included: the __pycache__ folders it leaves in
    a task's repo/, hidden/ and solution/ are not task files, and the check still passes."""
    import shutil

    from sneakycode.evals.check import check_task
    from sneakycode.evals.suite import load_suite

    source = load_suite("core").folder
    copy = tmp_path / "core"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
    task = copy / "tasks" / "py-slugify"
    for part in ("repo", "hidden", "solution"):
        cache = task / part / "__pycache__"
        cache.mkdir(exist_ok=True)
        (cache / "module.cpython-311.pyc").write_bytes(b"\xa7\r\r\n\x00binary")
    suite = load_suite(str(copy))
    found = next(t for t in suite.tasks if t.id == "py-slugify")
    assert not any("__pycache__" in name for name in found.files)
    assert not any("__pycache__" in name for name in found.hidden)
    result = check_task(found)
    assert result.honest, result
