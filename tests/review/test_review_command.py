"""`sneakycode review` end to end: the real CLI, real git on a repository made in tmp, the scripted server as
the model. What a pipeline relies on: which change is reviewed (--base, --staged, --commit, PATH), that
nothing can be written, the findings on lines the diff shows, the JSON valid against the published schema,
and the exit code by --fail-on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import pytest

from sneakycode.review.findings import findings_schema
from sneakycode.testing.server import ScriptedServer
from tests.review.conftest import CALC, LOOPBACK, answer, commit_all, diff_sent, finding, git, review

FINDINGS = jsonschema.Draft202012Validator(findings_schema())


def test_the_uncommitted_change_is_reviewed_in_plan_mode_and_the_findings_printed(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    steps = [{"tool_calls": [{"name": "read_file", "arguments": {"file_path": "calc.py"}}]},
             answer("add() now subtracts.", finding("calc.py", 2, title="add subtracts",
                                                    body="It returns a - b.", suggestion="    return a + b"))]
    with ScriptedServer(steps) as server:
        result = review(server, repo)
        requests = server.chat_requests
        sent = diff_sent(server)
    assert result.code == 1, result.stderr  # an error finding, and --fail-on error by default
    assert "calc.py:2: error: add subtracts\n    It returns a - b.\n    suggestion:\n            return a + b" \
        in result.stdout
    assert result.stdout.startswith("add() now subtracts.") and "1 finding: 1 error" in result.stdout
    assert "-    return a + b\n+    return a - b" in sent and "Review the uncommitted changes" in str(
        requests[0]["messages"][-1]["content"])
    offered = {t["function"]["name"] for t in requests[0]["tools"]}
    assert offered == {"read_file", "list_dir", "grep_files", "find_files", "finish"}  # reads only
    assert "# Output format" in requests[0]["messages"][0]["content"]  # the findings schema, as structured output
    assert "Traceback" not in result.stderr


def test_nothing_can_be_written_even_when_the_model_tries(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    steps = [{"tool_calls": [{"name": "write_file", "arguments": {"file_path": "calc.py", "content": "x = 1\n"}}]},
             {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch planted"}}]},
             answer("Fine.")]
    with ScriptedServer(steps) as server:
        result = review(server, repo, "--output-format", "json")
        results = [m["content"] for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert result.code == 0, result.stderr
    assert (repo / "calc.py").read_text() == CALC.replace("a + b", "a - b") and not (repo / "planted").exists()
    assert len(results) == 2 and all(text.startswith("Error [") for text in results)
    assert json.loads(result.stdout) == {"summary": "Fine.", "findings": []}


def test_json_is_valid_and_findings_outside_the_diff_are_moved_or_dropped(repo: Path) -> None:
    lines = [f"x{n} = {n}\n" for n in range(1, 41)]
    (repo / "long.py").write_text("".join(lines))
    commit_all(repo, "long")
    (repo / "long.py").write_text("".join(lines).replace("x20 = 20", "x20 = 'twenty'"))
    found = [finding("long.py", 20, "warning", end_line=21, suggestion="x20 = 20"),
             finding("long.py", 2, "note", title="far above"),  # outside the hunk (17-23): moved to 17
             finding("long.py", 19, "note", end_line=30, suggestion="nope"),  # range cut at 23, suggestion gone
             finding("calc.py", 1, "error", title="untouched file")]  # not in the diff: dropped
    with ScriptedServer([answer("x20 became a string.", *found)]) as server:
        result = review(server, repo, "--output-format", "json")
    assert result.code == 0, result.stderr  # the error was dropped; what is left is below --fail-on error
    shown = json.loads(result.stdout)
    FINDINGS.validate(shown)
    assert [(f["line"], f.get("end_line")) for f in shown["findings"]] == [(20, 21), (17, None), (19, 23)]
    assert shown["findings"][0]["suggestion"] == "x20 = 20"
    assert "suggestion" not in shown["findings"][2]
    assert shown["findings"][1]["body"].endswith("(Moved from line 2, which the diff does not show.)")
    assert "dropped a finding on calc.py:1 (untouched file): the diff does not touch that file" in result.stderr
    assert "moved a finding on long.py:2 (far above) to line 17" in result.stderr


@pytest.mark.parametrize(("severities", "fail_on", "code"), [
    (["warning", "note"], None, 0),
    (["warning", "note"], "warning", 1),
    (["note"], "warning", 0),
    (["note"], "note", 1),
    (["error"], "error", 1),
    ([], "note", 0),
])
def test_the_exit_code_follows_fail_on(repo: Path, severities: list[str], fail_on: str | None, code: int) -> None:
    (repo / "calc.py").write_text(CALC.replace("a - b", "b - a"))
    with ScriptedServer([answer("ok", *(finding("calc.py", 6, s) for s in severities))]) as server:
        result = review(server, repo, *(["--fail-on", fail_on] if fail_on else []))
    assert result.code == code, result.stdout + result.stderr


def test_staged_reviews_only_the_index(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC.replace("a + b", "a + b + 0"))
    git(repo, "add", "calc.py")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a + b + 0").replace("a - b", "a - b - 0"))
    (repo / "new.py").write_text("print('untracked')\n")
    with ScriptedServer([answer("Adds zero.")]) as server:
        result = review(server, repo, "--staged")
        sent = diff_sent(server)
    assert result.code == 0, result.stderr
    assert "+    return a + b + 0" in sent and "a - b - 0" not in sent and "new.py" not in sent
    assert "the staged changes" in result.stderr


def test_commit_reviews_that_commit_against_its_parent(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC + "\n\ndef mul(a, b):\n    return a * b\n")
    first = commit_all(repo, "mul")
    (repo / "calc.py").write_text(CALC + "\n\ndef mul(a, b):\n    return a * b * 1\n")
    commit_all(repo, "later")
    with ScriptedServer([answer("Adds mul.", finding("calc.py", 10, "note"))]) as server:
        result = review(server, repo, "--commit", first[:10], "--output-format", "json")
        sent = diff_sent(server)
    assert result.code == 0, result.stderr
    assert "+    return a * b\n" in sent + "\n" and "* 1" not in sent
    assert [f["line"] for f in json.loads(result.stdout)["findings"]] == [10]
    assert f"commit {first[:12]}" in result.stderr


def test_base_reviews_what_a_pull_request_shows(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "feature.py").write_text("FLAG = True\n")
    commit_all(repo, "feature one")
    (repo / "feature.py").write_text("FLAG = False\n")
    commit_all(repo, "feature two")
    git(repo, "checkout", "-q", "main")
    (repo / "main_only.py").write_text("LATER = 1\n")
    commit_all(repo, "main moves on")
    git(repo, "checkout", "-q", "feature")
    with ScriptedServer([answer("Adds a flag.")]) as server:
        result = review(server, repo, "--base", "main", "feature.py", "calc.py")
        sent = diff_sent(server)
    assert result.code == 0, result.stderr
    assert "+FLAG = False" in sent and "main_only.py" not in sent and "calc.py" not in sent


def test_an_empty_change_needs_no_model(repo: Path) -> None:
    with ScriptedServer([answer("never")]) as server:
        result = review(server, repo, "--output-format", "json")
        asked = server.chat_requests
    assert result.code == 0 and asked == []
    assert json.loads(result.stdout) == {"summary": "Nothing to review: no file changed in the uncommitted changes "
                                                    "(staged and not) against HEAD.", "findings": []}


@pytest.mark.parametrize(("flags", "said"), [
    (["--base", "no-such-branch"], "--base 'no-such-branch' is not a commit this repository knows"),
    (["--commit=--output=/tmp/x"], "is not a commit this repository knows"),  # never read as an option
    (["--staged", "--commit", "HEAD"], "not allowed with argument"),
    (["--output-format", "json", "--format", "sarif"], "not allowed with argument"),
    (["--max-turns", "0"], "--max-turns must be above 0"),
])
def test_bad_flags_are_usage_errors_before_any_request(repo: Path, flags: list[str], said: str) -> None:
    with ScriptedServer([answer("never")]) as server:
        result = review(server, repo, *flags)
        asked = server.requests
    assert result.code == 2 and asked == [] and said in result.stderr
    assert "Traceback" not in result.stderr


def test_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    with ScriptedServer([answer("never")]) as server:
        result = review(server, tmp_path)
    assert result.code == 2 and "is not in a git repository" in result.stderr


def test_findings_that_never_match_the_schema_end_without_a_verdict(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    bad = {"tool_calls": [{"name": "finish", "arguments": {"message": '{"summary": "x", "findings": [{"path": 1}]}'}}]}
    with ScriptedServer([bad, bad]) as server:
        result = review(server, repo, "--output-format", "json")
    assert result.code == 1 and result.stdout == ""
    assert "no verdict" in result.stderr and "[output_schema_mismatch]" in result.stderr


def test_sigint_stops_the_review_with_exit_130_and_no_verdict(repo: Path) -> None:
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    slow = {"content": "Let me think about this change for a long while", "chunk_delay": 3.0}
    with ScriptedServer({"steps": [slow, answer("never")], "chunk_size": 4}) as server:
        argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "review", "--base-url", server.base_url, "--model",
                "scripted-model", "--workspace", str(repo), "--output-format", "json"]
        proc = subprocess.Popen(argv, env={**os.environ, **LOOPBACK}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while not server.chat_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert stdout == "" and "no verdict: Cancelled" in stderr and "Traceback" not in stderr
