"""The GitHub Action's step, run as GitHub runs it (`python -m sneakycode.faces.cli.ci_action` with GITHUB_* set and an
event payload file) against a fake GitHub API on 127.0.0.1 and the scripted model server: the review it
receives (inline comments on the changed lines, suggestion blocks), one summary comment edited on a re-run,
the token sent only to the API, the job summary and outputs written."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from sneakycode.faces.cli.ci_action import Inputs
from sneakycode.faces.cli.ci_github import SUMMARY_MARKER, comment_body, commentable_lines
from sneakycode.testing.server import ScriptedServer
from tests.batch.scenario import done, make_repo, write_tasks
from tests.faces.cli.fake_github import FakeGitHub

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "ghs_workflowTOKEN0123456789"
REPOSITORY = "octo/widgets"
HEAD = "abc123def4567890abc123def4567890abc123de"
PATCH = (
    "@@ -1,4 +1,8 @@\n import os\n+import sys\n+\n+def load(path):\n+    return open(path).read()\n \n def main():\n"
    "-    pass\n+    print(load(sys.argv[1]))\n"
    "@@ -20,3 +24,4 @@ def main():\n x = 1\n+y = 2\n z = 3\n w = 4\n"
)
FILES = [{"filename": "src/app.py", "status": "modified", "patch": PATCH},
         {"filename": "assets/logo.png", "status": "added"}]  # a binary file: no patch
FINDINGS = {
    "summary": "Two problems in load() and main().",
    "findings": [
        {"path": "src/app.py", "line": 5, "severity": "error", "title": "File handle is never closed",
         "body": "open() without a with block leaks the handle.",
         "suggestion": "    with open(path) as f:\n        return f.read()"},
        {"path": "src/app.py", "line": 7, "end_line": 8, "severity": "warning", "title": "main ignores errors",
         "body": "A missing argument raises IndexError.",
         "suggestion": "def main():\n    print(load(sys.argv[1]))  # see ```usage```"},
        {"path": "src/app.py", "line": 40, "severity": "note", "title": "Far from the change", "body": "Unrelated."},
        {"path": "docs/other.md", "line": 2, "severity": "warning", "title": "Not in this PR", "body": "Elsewhere."},
    ],
}


def action_env(tmp_path: Path, api: str, **inputs: str) -> dict[str, str]:
    """What GitHub sets for a composite action's step on a pull_request event, plus the inputs action.yml maps."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": 7, "pull_request": {
        "number": 7, "head": {"sha": HEAD, "ref": "feature"}, "base": {"ref": "main"}}}))
    for name in ("summary.md", "output.txt"):
        (tmp_path / name).touch()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update({
        "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event), "GITHUB_API_URL": api, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"), "RUNNER_TEMP": str(tmp_path),
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_POST_REVIEW": "true", "INPUT_FAIL_ON": "error",
    })  # fmt: skip
    env.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return env


def run_action(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.ci_action"],
                          cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def outputs(tmp_path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's name<<DELIMITER blocks."""
    found: dict[str, str] = {}
    lines = (tmp_path / "output.txt").read_text().splitlines()
    while lines:
        name, _, delimiter = lines.pop(0).partition("<<")
        end = lines.index(delimiter)
        found[name], lines = "\n".join(lines[:end]), lines[end + 1:]
    return found


@pytest.fixture
def findings_file(ws: Path) -> Path:
    path = ws / "findings.json"
    path.write_text(json.dumps(FINDINGS))
    return path


def test_a_review_is_posted_with_inline_comments_on_changed_lines_and_one_summary_comment(
    ws: Path, tmp_path: Path, findings_file: Path
) -> None:
    with FakeGitHub(REPOSITORY, 7, FILES) as github:
        done = run_action(action_env(tmp_path, github.url, COMMAND="review", FINDINGS_FILE="findings.json"), ws)
    assert done.returncode == 1, done.stdout + done.stderr  # an error finding, --fail-on error
    assert "Traceback" not in done.stderr
    (review,) = github.reviews
    assert review["commit_id"] == HEAD and review["event"] == "COMMENT"
    first, second = review["comments"]
    assert (first["path"], first["line"], first["side"]) == ("src/app.py", 5, "RIGHT") and "start_line" not in first
    assert "**error: File handle is never closed**" in first["body"]
    assert "```suggestion\n    with open(path) as f:\n        return f.read()\n```" in first["body"]
    assert (second["start_line"], second["line"], second["start_side"], second["side"]) == (7, 8, "RIGHT", "RIGHT")
    assert "````suggestion\ndef main():" in second["body"]  # a longer fence: the suggestion holds ```
    (comment,) = github.issue_comments
    assert comment["body"].startswith(SUMMARY_MARKER)
    assert "Far from the change" in comment["body"] and "Not in this PR" in comment["body"]  # not inline
    assert "2 errors" not in comment["body"] and "1 error, 2 warnings, 1 note" in comment["body"]
    # The token went with every request, and every request went to the API.
    assert github.requests and all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in github.requests)
    summary = (tmp_path / "summary.md").read_text()
    assert "## SneakyCode review" in summary and "| error | `src/app.py:5` | File handle is never closed |" in summary
    assert "Posted on #7" in summary and "summary comment created" in summary
    got = outputs(tmp_path)
    assert got["exit-code"] == "1" and json.loads(Path(got["findings-file"]).read_text()) == FINDINGS
    assert TOKEN not in done.stdout + done.stderr


def test_a_rerun_edits_the_summary_comment_and_comments_only_on_new_findings(
    ws: Path, tmp_path: Path, findings_file: Path
) -> None:
    with FakeGitHub(REPOSITORY, 7, FILES) as github:
        env = action_env(tmp_path, github.url, COMMAND="review", FINDINGS_FILE="findings.json", FAIL_ON="note")
        assert run_action(env, ws).returncode == 1
        again = run_action(env, ws)
        assert again.returncode == 1, again.stdout + again.stderr
        assert len(github.reviews) == 1  # nothing new to say inline: no second review
        more = {**FINDINGS, "findings": [*FINDINGS["findings"], {
            "path": "src/app.py", "line": 25, "severity": "note", "title": "y is unused", "body": "Remove it."}]}
        findings_file.write_text(json.dumps(more))
        third = run_action(env, ws)
        assert third.returncode == 1, third.stdout + third.stderr
    assert len(github.issue_comments) == 1  # edited, never repeated
    assert "5 findings" in github.issue_comments[0]["body"]
    assert [c["line"] for c in github.reviews[1]["comments"]] == [25]
    assert [r.method for r in github.requests if "/issues/comments/" in r.path] == ["PATCH", "PATCH"]
    assert "2 finding(s) were commented on by an earlier run" in (tmp_path / "summary.md").read_text()


def test_a_read_only_token_leaves_a_warning_and_the_gate_decides_the_exit_code(ws: Path, tmp_path: Path) -> None:
    (ws / "findings.json").write_text(json.dumps({"summary": "One.", "findings": FINDINGS["findings"][:1]}))
    with FakeGitHub(REPOSITORY, 7, FILES, refuse_reviews=403) as github:
        done = run_action(action_env(tmp_path, github.url, COMMAND="review", FINDINGS_FILE="findings.json",
                                     FAIL_ON="warning"), ws)
    assert done.returncode == 1
    assert "::warning::SneakyCode could not post the review" in done.stdout and "HTTP 403" in done.stdout
    assert "read-only token" in (tmp_path / "summary.md").read_text()
    assert "Traceback" not in done.stderr


def test_findings_of_the_wrong_shape_fail_the_step_with_one_line(ws: Path, tmp_path: Path) -> None:
    (ws / "findings.json").write_text(json.dumps({"summary": "x", "findings": [{"path": "a.py", "line": "3"}]}))
    with FakeGitHub(REPOSITORY, 7, FILES) as github:
        done = run_action(action_env(tmp_path, github.url, COMMAND="review", FINDINGS_FILE="findings.json"), ws)
    assert done.returncode == 2 and "::error::SneakyCode: the review's findings" in done.stdout
    assert github.requests == [] and "Traceback" not in done.stderr


def test_a_prompt_run_writes_result_and_cost_and_the_agent_never_sees_the_token(ws: Path, tmp_path: Path) -> None:
    """`-p` through the action: the key reaches the model (the server demands it) by environment; the
    workflow's token reaches neither the model server nor a command the agent runs (its `env` output goes
    back to the model, which the server records)."""
    key = "sk-model-KEY-99"
    steps = [{"tool_calls": [{"name": "run_command", "arguments": {"command": "env"}}]},
             {"tool_calls": [{"name": "finish", "arguments": {"message": "All good: 3 tests pass."}}]}]
    with ScriptedServer({"steps": steps, "api_key": key}) as server, FakeGitHub(REPOSITORY, 7, FILES) as github:
        env = action_env(tmp_path, github.url, COMMAND="prompt", PROMPT="Run the tests", MODEL="gpt-4.1-mini",
                         PROVIDER="openai", BASE_URL=server.base_url, API_KEY=key, MODE="yolo", MAX_TURNS="5")
        env["GITHUB_TOKEN"] = TOKEN
        done = run_action(env, ws)
        sent = json.dumps([r.body for r in server.requests]) + json.dumps([r.headers for r in server.requests])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::add-mask::sk-model-KEY-99" in done.stdout
    assert github.requests == []  # nothing to post for -p
    assert "SNEAKYCODE=1" in sent or "PATH=" in sent  # the command's environment did go to the model...
    assert TOKEN not in sent and key not in json.dumps([r.body for r in server.requests])  # ...without secrets
    summary = (tmp_path / "summary.md").read_text()
    assert "| finished | 0 | 2 | 2 |" in summary and "$0.00" in summary and "All good: 3 tests pass." in summary
    got = outputs(tmp_path)
    assert got["status"] == "finished" and got["result"] == "All good: 3 tests pass."
    assert float(got["cost-usd"]) > 0 and json.loads(Path(got["result-file"]).read_text())["turns"] == 2


def test_action_yml_declares_every_input_it_uses_and_runs_an_existing_module() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    declared = set(action["inputs"])
    text = (ROOT / "action.yml").read_text()
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", text))
    assert used <= declared and declared - used == set()  # every input is used, none undeclared
    install, run = action["runs"]["steps"]
    assert "${{ github.action_path }}" in install["env"].values() and "pip install" in install["run"]
    mapped = {name for name in run["env"] if name.startswith("INPUT_")}
    for name in declared - {"extras", "python"}:
        variable = f"INPUT_{name.upper().replace('-', '_')}"
        assert variable in mapped, name  # every input the module reads reaches it...
        assert Inputs("prompt", {variable: " x "}).get(name) == "x"  # ...under the name it reads
    module = run["run"].split("-m ")[1].strip("'\" ")
    assert importlib.util.find_spec(module) is not None and module == "sneakycode.faces.cli.ci_action"
    for step in action["runs"]["steps"]:  # inputs reach the scripts by environment, never pasted into them
        assert "${{" not in step["run"]
    for output in action["outputs"].values():
        assert output["value"].startswith("${{ steps.run.outputs.")


def test_commentable_lines_are_the_new_side_of_each_hunk() -> None:
    lines = commentable_lines(PATCH)
    assert sorted(lines) == [1, 2, 3, 4, 5, 6, 7, 8, 24, 25, 26, 27]
    assert lines[8] == 0 and lines[24] == 1
    assert commentable_lines("") == {}


def test_a_comment_body_carries_severity_title_explanation_and_a_fence_longer_than_the_suggestions() -> None:
    body = comment_body({"severity": "note", "title": "T", "body": "B", "suggestion": "a ```` b"}, "0123456789ab")
    assert body.startswith("🔵 **note: T**\n\nB\n\n`````suggestion\na ```` b\n`````")
    assert body.endswith("<!-- sneakycode:finding:0123456789ab -->")


def test_a_batch_through_the_action_summarises_its_tasks(tmp_path: Path, ws: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    with ScriptedServer([done(), done()]) as server, FakeGitHub(REPOSITORY, 7, FILES) as github:
        task = {"repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}
        write_tasks(ws / "tasks.jsonl", [{"id": "one", **task}, {"id": "two", **task}])
        done_run = run_action(action_env(tmp_path, github.url, COMMAND="batch", TASKS_FILE="tasks.jsonl",
                                         EXTRA_ARGS="--workers 1 --no-sandbox"), ws)
    assert done_run.returncode == 0, done_run.stdout + done_run.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert "## SneakyCode batch" in summary and "| 2 | 2 | 0 | 0 |" in summary
    assert "| one | passed | answered |" in summary and "| two | passed | answered |" in summary
    assert (Path(outputs(tmp_path)["results-dir"]) / "results.jsonl").is_file()


def test_the_workflows_in_docs_ci_md_parse_and_use_only_the_actions_inputs() -> None:
    declared = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "ci.md").read_text(), re.S)
    uses = []
    for block in blocks:
        parsed = yaml.safe_load(textwrap.dedent(block))
        steps = parsed if isinstance(parsed, list) else [
            step for job in parsed["jobs"].values() for step in job["steps"]]
        uses += [step for step in steps if "sneakycode@" in str(step.get("uses", ""))]
    assert len(uses) >= 4
    for step in uses:
        assert set(step["with"]) <= declared, set(step["with"]) - declared


def test_action_yml_run_step_as_the_runner_runs_it(ws: Path, tmp_path: Path, findings_file: Path) -> None:
    """The composite step itself: its `env:` expressions evaluated from the `with:` inputs (defaults for the
    rest), its `run:` line executed by bash in `working-directory`, with the interpreter the install step
    would have made."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    given = {"command": "review", "findings-file": "findings.json", "fail-on": "warning",
             "working-directory": str(ws)}
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()} | given

    def evaluate(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            scope, name = match.group(1), match.group(2)
            return {"inputs": values, "github": {"action_path": str(ROOT), "token": TOKEN}}[scope][name]

        return re.sub(r"\$\{\{\s*(inputs|github)\.([\w-]+)\s*\}\}", one, text)

    values = {name: evaluate(value) for name, value in values.items()}  # github-token's default: the token
    venv_bin = tmp_path / "sneakycode-venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # a link would leave its venv
    (venv_bin / "python").chmod(0o755)
    step = action["runs"]["steps"][1]
    with FakeGitHub(REPOSITORY, 7, FILES) as github:
        env = {k: v for k, v in action_env(tmp_path, github.url).items() if not k.startswith("INPUT_")}
        env["PYTHONPATH"] = str(ROOT / "src")
        env.update({name: evaluate(str(value)) for name, value in step["env"].items()})
        done = subprocess.run(["bash", "-c", step["run"]], cwd=evaluate(step["working-directory"]), env=env,
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stdout + done.stderr  # --fail-on warning
    assert len(github.reviews) == 1
    assert len(github.reviews[0]["comments"]) == 2
    assert all(r.headers["authorization"] == f"Bearer {TOKEN}" for r in github.requests)
    assert "## SneakyCode review" in (tmp_path / "summary.md").read_text()
