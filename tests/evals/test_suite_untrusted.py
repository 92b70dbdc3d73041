"""A suite is untrusted input: only its regular files inside the suite folder are copied or read, bounded;
what the tasks hide (hidden tests, solutions) stays out of the agent's sandbox while it works; and `eval
compare` refuses a bad scorecard with one clear line. All through `sneakycode eval` (the CLI's main)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from sneakycode.evals.suite import load_suite
from sneakycode.process.sandbox import probe
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main
from tests.evals.test_own_suite import make_suite

FAST = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
SECRET = "aws_secret_access_key = AKIA-NOT-FOR-THE-MODEL\n"


def run_suite(suite: Path, out: Path, server: ScriptedServer | None = None, timeout: float = 60) -> CliResult:
    base_url = server.base_url if server is not None else "http://127.0.0.1:9/v1"
    return run_main("eval", "--suite", str(suite), "--out", str(out), "--base-url", base_url, "--model",
                    "scripted-model", env=FAST, timeout=timeout)  # fmt: skip


def every_text_under(folder: Path) -> str:
    if not folder.exists():
        return ""
    return "".join(path.read_text(errors="replace") for path in folder.rglob("*")
                   if path.is_file() and not path.is_symlink())  # fmt: skip


def test_a_link_to_a_file_outside_the_suite_never_reaches_the_task_repo_or_the_model(tmp_path: Path) -> None:
    """Hardening round three, class 6: a link in a suite's repo/ (or hidden/) to a file elsewhere (here a
    stand-in for ~/.aws/credentials) is refused, naming the entry: no model request is made, and the file's
    text is nowhere in the output folder; `eval check` refuses it too."""
    secret = tmp_path / "home" / ".aws" / "credentials"
    secret.parent.mkdir(parents=True)
    secret.write_text(SECRET)
    suite = make_suite(tmp_path)
    task = suite / "tasks" / "greet-name"
    (task / "repo" / "notes.txt").symlink_to(secret)
    with ScriptedServer({"steps": [{"content": "Done."}]}) as server:
        result = run_suite(suite, tmp_path / "out", server)
        assert server.chat_requests == []
    assert result.code == 2, result.stderr
    assert f"{task / 'repo' / 'notes.txt'}: a link leaving the suite folder" in result.stderr
    assert "AKIA" not in every_text_under(tmp_path / "out") + result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    (task / "repo" / "notes.txt").unlink()
    (task / "hidden" / "creds.sh").symlink_to(secret)
    check = run_main("eval", "check", "--suite", str(suite))
    assert check.code == 2 and f"{task / 'hidden' / 'creds.sh'}: a link leaving the suite folder" in check.stderr
    assert "AKIA" not in check.stdout + check.stderr


def test_a_link_inside_the_suite_is_copied_as_the_file_it_names(tmp_path: Path) -> None:
    """Hardening round three, class 6: a link that stays inside the suite folder is fine: the task's copy
    gets the file's text as a plain file, and the task still checks honest."""
    suite = make_suite(tmp_path)
    shared = suite / "shared.txt"
    shared.write_text("shared between tasks\n")
    (suite / "tasks" / "greet-name" / "repo" / "shared.txt").symlink_to(shared)
    (task,) = load_suite(str(suite)).tasks
    assert task.files == ["greet.sh", "shared.txt"]
    check = run_main("eval", "check", "--suite", str(suite))
    assert check.code == 0, check.stdout + check.stderr


@pytest.mark.parametrize("place", ["repo", "hidden", "solution"])
def test_a_link_to_dev_zero_or_a_fifo_is_refused_at_once(tmp_path: Path, place: str) -> None:
    """Hardening round three, class 6: a link to /dev/zero would fill the disk, a FIFO would hang the copy
    (or give a traceback): both are named as problems in a second or so, and nothing runs."""
    suite = make_suite(tmp_path)
    folder = suite / "tasks" / "greet-name" / place
    (folder / "zero.bin").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe")
    started = time.monotonic()
    result = run_suite(suite, tmp_path / "out", timeout=30)
    assert time.monotonic() - started < 20
    assert result.code == 2, result.stderr
    assert f"{folder / 'zero.bin'}: a link leaving the suite folder (to /dev/zero)" in result.stderr
    assert f"{folder / 'pipe'}: a FIFO (named pipe), not a regular file" in result.stderr
    assert not (tmp_path / "out").exists() and "Traceback" not in result.stderr


def test_a_huge_file_or_a_linked_task_folder_is_refused(tmp_path: Path) -> None:
    """Hardening round three, class 6: a file past the per-file bound (a sparse file: no disk used) and a
    task folder that is a link to a folder elsewhere are both named; nothing is read or run."""
    suite = make_suite(tmp_path)
    big = suite / "tasks" / "greet-name" / "repo" / "big.bin"
    with big.open("wb") as fh:
        fh.truncate(1 << 30)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (suite / "tasks" / "linked").symlink_to(elsewhere, target_is_directory=True)
    result = run_suite(suite, tmp_path / "out", timeout=30)
    assert result.code == 2, result.stderr
    assert f"{big}: {1 << 30} bytes; a suite's file holds at most" in result.stderr
    assert f"{suite / 'tasks' / 'linked'}: a link; a task folder is a folder inside the suite" in result.stderr


def test_the_installed_suite_is_hidden_from_the_agents_commands(tmp_path: Path) -> None:
    """Hardening round three, class 6: the bundled suite's hidden tests and solutions are part of the
    installed package; a model that runs `cat` on them (or lists the suites) from run_command finds nothing
    while it works, and the hidden test still decides the task after it."""
    core = load_suite("core")
    if not probe(tmp_path, network=True).available:
        pytest.skip(f"the sandbox does not work here: {probe(tmp_path, network=True).reason}")
    task = next(task for task in core.tasks if task.id == "py-slugify")
    hidden_test = task.folder / "hidden" / "test_eval_hidden.py"
    solution = task.solution_dir / "text.py"
    assert "test_single_dashes" in hidden_test.read_text()  # what a successful peek would show
    command = f"cat {hidden_test} {solution}; ls -R {core.folder.parent} | head -50; echo peeked"
    steps = [{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, {"content": "Done."}]
    out = tmp_path / "peek"
    with ScriptedServer({"steps": steps}) as server:
        result = run_main("eval", "--tasks", "py-slugify", "--workers", "1", "--out", str(out), "--base-url",
                          server.base_url, "--model", "scripted-model", env=FAST, timeout=240)  # fmt: skip
    assert result.code == 0, result.stderr
    (line,) = [json.loads(text) for text in (out / "attempt-1" / "results.jsonl").read_text().splitlines()]
    records = [json.loads(text) for text in Path(line["transcript"]).read_text().splitlines()]
    (seen,) = [r["message"]["content"] for r in records if r["type"] == "message" and r["message"]["role"] == "tool"]
    assert "peeked" in seen  # the command ran, in the sandbox
    # Both reads fail; the listing shows an empty folder, or (when the package lives under /tmp, which the
    # sandbox replaces with its own) no folder at all.
    assert f"cat: {hidden_test}: No such file or directory" in seen and f"cat: {solution}: No such file" in seen, seen
    assert "test_single_dashes" not in seen and "def slugify" not in seen and "suite.toml" not in seen, seen
    assert line["verdict"]["passed"] is False and "test_single_dashes" in line["verdict"]["output"]


def _scorecard(tmp_path: Path) -> Path:
    card = {"format": 1, "suite": {"name": "core", "version": "1.0.0"}, "started_at": "2026-01-01T00:00:00+00:00",
            "model": {"model": "m", "provider": "custom", "base_url": "http://127.0.0.1:9/v1"},
            "totals": {"tasks": 1, "solved": 1, "attempts": 1, "turns": 2, "tool_calls": 1,
                       "failures": dict.fromkeys(["invalid_tool_call", "unknown_tool", "edit_not_matched",
                                                  "stale_read", "denied", "budget"], 0),
                       "tokens": {"prompt": 10, "cached": 0, "completion": 2}, "prefill_seconds": None,
                       "wall_seconds": 1.0, "cost_usd": None},
            "tasks": [{"id": "py-slugify", "solved": True, "attempts": 1, "turns": 2, "tool_calls": 1,
                       "tokens": {"prompt": 10, "cached": 0, "completion": 2}, "wall_seconds": 1.0}]}  # fmt: skip
    path = tmp_path / "good.json"
    path.write_text(json.dumps(card))
    return path


def test_bad_scorecards_give_a_clear_error_fast(tmp_path: Path) -> None:
    """Hardening round three, class 6: `eval compare` on a huge file, a FIFO, malformed JSON, wrong types,
    deep nesting or a control sequence in a name: exit 2 with one line naming the file, within seconds, no
    traceback; a good scorecard still compares."""
    good = _scorecard(tmp_path)
    card = json.loads(good.read_text())
    bad: dict[str, tuple[str, str]] = {}

    def write(name: str, text: str, said: str) -> None:
        (tmp_path / name).write_text(text)
        bad[name] = (text, said)

    with (tmp_path / "huge.json").open("wb") as fh:
        fh.truncate(64 << 20)
    bad["huge.json"] = ("", "larger than")
    os.mkfifo(tmp_path / "fifo.json")
    bad["fifo.json"] = ("", "a FIFO (named pipe), not a regular file")
    write("malformed.json", '{"format": 1, "tasks": [', "not JSON")
    write("deep.json", "[" * 100_000 + "]" * 100_000, "nested too deeply")
    write("types.json", json.dumps({**card, "totals": {**card["totals"], "solved": "many"}, "tasks": [{"id": 3}]}),
          "totals.solved")  # fmt: skip
    write("escape.json", json.dumps({**card, "suite": {"name": "\x1b]0;owned\x07", "version": "1"}}), "suite.name")
    write("list.json", "[1, 2]", "is not an eval scorecard")
    for name, (_, said) in bad.items():
        started = time.monotonic()
        result = run_main("eval", "compare", str(good), str(tmp_path / name), timeout=30)
        assert time.monotonic() - started < 20, name
        assert result.code == 2, (name, result.stderr)
        assert said in result.stderr and str(tmp_path / name) in result.stderr, (name, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
        assert result.stdout == "" and "\x1b" not in result.stderr
    same = run_main("eval", "compare", str(good), str(good))
    assert same.code == 0 and "| py-slugify | yes / yes |" in same.stdout, same.stderr


def test_another_tasks_tested_copy_is_hidden_from_the_agents_commands(tmp_path: Path) -> None:
    """Hardening round three, class 6: once a task's test ran, its copy under OUT/attempt-1/tasks holds its
    hidden test; the next task's model (or a later attempt's) looks there from run_command and finds nothing.
    OUT lies outside /tmp here, since the sandbox's private /tmp would hide it anyway."""
    if not probe(tmp_path, network=True).available:
        pytest.skip(f"the sandbox does not work here: {probe(tmp_path, network=True).reason}")
    if not os.access("/var/tmp", os.W_OK):
        pytest.skip("/var/tmp is not writable here")
    import tempfile

    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="sneakycode-eval-test-") as scratch:
        out = Path(scratch) / "run"
        tested = out / "attempt-1" / "tasks" / "py-paginate" / "test_eval_hidden.py"
        steps = [{"content": "Done."},
                 {"tool_calls": [{"name": "run_command", "arguments": {"command": f"cat {tested}; echo peeked"}}]},
                 {"content": "Done."}]  # fmt: skip
        with ScriptedServer({"steps": steps}) as server:
            result = run_main("eval", "--tasks", "py-paginate,py-slugify", "--workers", "1", "--out", str(out),
                              "--base-url", server.base_url, "--model", "scripted-model", env=FAST,
                              timeout=240)  # fmt: skip
        assert result.code == 0, result.stderr
        assert tested.is_file()  # it is there once the first task was tested
        lines = [json.loads(text) for text in (out / "attempt-1" / "results.jsonl").read_text().splitlines()]
        second = next(line for line in lines if line["id"] == "py-slugify")
        records = [json.loads(text) for text in Path(second["transcript"]).read_text().splitlines()]
        (seen,) = [r["message"]["content"] for r in records
                   if r["type"] == "message" and r["message"]["role"] == "tool"]  # fmt: skip
        assert "peeked" in seen and "No such file or directory" in seen, seen
        assert "def test_" not in seen, seen


def test_an_out_folder_inside_the_suite_is_refused(tmp_path: Path) -> None:
    """Hardening round three, class 6: the suite folder is hidden from the tasks' sandbox, so an --out inside
    it would hide the copies' git data too: refused with a clear line, nothing runs."""
    suite = make_suite(tmp_path)
    result = run_suite(suite, suite / "runs" / "one")
    assert result.code == 2 and "choose an --out outside the suite folder" in result.stderr, result.stderr
    assert not (suite / "runs").exists()
