"""`sneakycode eval` end to end: the CLI's main (in process; each agent is a real CLI process, as batch runs
it), the batch engine, the sandboxed hidden tests, against the scripted server playing the model: a solving
trajectory on some tasks and a failing one on others, with the scorecard they must give, exactly; and
`eval compare` of two runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.evals.suite import load_suite
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main
from tests.process.test_sandbox import require_bwrap

FAST = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
CORE = load_suite("core")
SOLUTION = {task.id: task for task in CORE.tasks}


def call(name: str, *, usage: tuple[int, int, int], **arguments: Any) -> dict[str, Any]:
    """One scripted reply holding a tool call, with the usage the server reports for it."""
    return {"tool_calls": [{"name": name, "arguments": arguments}], "usage": _usage(*usage)}


def say(text: str, *, usage: tuple[int, int, int]) -> dict[str, Any]:
    return {"content": text, "usage": _usage(*usage)}


def _usage(prompt: int, cached: int, completion: int) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached}}  # fmt: skip


def solution_text(task_id: str, path: str) -> str:
    return (SOLUTION[task_id].solution_dir / path).read_text(encoding="utf-8")


# In the order batch runs them with one worker (the suite's order): js-range: an unknown
# tool, an overwrite without reading first (not_read: a stale-read failure), a read, an edit that matches
# nothing, then the whole reference file written: solved with three failures on the way. py-paginate:
# solved with one exact edit. py-slugify: the model only says it is done.
SOLVE_PAGINATE = [
    call("read_file", file_path="pager.py", usage=(4000, 0, 10)),
    call("str_replace", file_path="pager.py", old_str="start = page * per_page",
         new_str="start = (page - 1) * per_page", usage=(4100, 3900, 20)),
    {**say("Fixed: pages start at 1.", usage=(4200, 4000, 8)),
     "timings": {"prompt_n": 200, "cache_n": 4000, "prompt_ms": 250.0}},  # llama.cpp's: prefill took 0.25 s
]  # fmt: skip
ONLY_DONE = [say("Done.", usage=(4000, 0, 2))]
SOLVE_RANGE_CLUMSILY = [
    call("frobnicate", usage=(4000, 0, 5)),
    call("write_file", file_path="range.js", content=solution_text("js-range", "range.js"), usage=(4100, 3800, 90)),
    call("read_file", file_path="range.js", usage=(4200, 3900, 6)),
    call("str_replace", file_path="range.js", old_str="no such text", new_str="x", usage=(4300, 4000, 10)),
    call("write_file", file_path="range.js", content=solution_text("js-range", "range.js"), usage=(4400, 4100, 90)),
    say("range() is exclusive now.", usage=(4500, 4200, 7)),
]  # fmt: skip
NO_FAILURES = {"invalid_tool_call": 0, "unknown_tool": 0, "edit_not_matched": 0, "stale_read": 0, "denied": 0,
               "budget": 0}  # fmt: skip


def run_eval(server: ScriptedServer, out: Path, tasks: str, *more: str) -> CliResult:
    if "--no-sandbox" not in more:  # the hidden tests run under bubblewrap: without it, skip and say so
        require_bwrap(out.parent)
    return run_main("eval", "--tasks", tasks, "--workers", "1", "--out", str(out), "--base-url", server.base_url,
                    "--model", "scripted-model", *more, env=FAST, timeout=240)  # fmt: skip


def measured(row: dict[str, Any]) -> dict[str, Any]:
    """A row without what depends on the machine (seconds, the run's ending message)."""
    return {key: value for key, value in row.items() if key not in ("wall_seconds", "error", "per_attempt")}


def expected_row(task_id: str, language: str, kind: str, solved: bool, turns: int, tool_calls: int,
                 tokens: tuple[int, int, int], failures: dict[str, int], codes: dict[str, int],
                 prefill: float | None = None) -> dict[str, Any]:  # fmt: skip
    return {"id": task_id, "language": language, "kind": kind, "solved": solved, "attempts": 1,
            "outcome": "passed" if solved else "failed", "status": "answered", "turns": turns,
            "tool_calls": tool_calls, "failures": {**NO_FAILURES, **failures}, "error_codes": codes,
            "tokens": {"prompt": tokens[0], "cached": tokens[1], "completion": tokens[2]},
            "prefill_seconds": prefill, "cost_usd": None, "solved_at": 1 if solved else None}  # fmt: skip


def test_eval_scores_solving_and_failing_trajectories_exactly(tmp_path: Path) -> None:
    """Three tasks run one after another against one scripted model: the scorecard says which were solved (by
    their hidden tests, in the sandbox), and counts turns, tool calls, failure classes and tokens exactly."""
    out = tmp_path / "run"
    with ScriptedServer({"steps": SOLVE_RANGE_CLUMSILY + SOLVE_PAGINATE + ONLY_DONE}) as server:
        result = run_eval(server, out, "py-paginate,py-slugify,js-range")
    assert result.code == 0, result.stderr
    card = json.loads((out / "scorecard.json").read_text())
    assert card["suite"]["name"] == "core" and card["suite"]["version"] == CORE.version
    assert card["model"] == {"provider": "custom", "model": "scripted-model", "base_url": server.base_url}
    rows = {row["id"]: measured(row) for row in card["tasks"]}
    assert [row["id"] for row in card["tasks"]] == ["js-range", "py-paginate", "py-slugify"]  # the suite's order
    assert rows["py-paginate"] == expected_row("py-paginate", "python", "bug", True, 3, 2, (12300, 7900, 38), {}, {},
                                               0.25)  # fmt: skip
    assert rows["py-slugify"] == expected_row("py-slugify", "python", "bug", False, 1, 0, (4000, 0, 2), {}, {})
    assert rows["js-range"] == expected_row(
        "js-range", "javascript", "bug", True, 6, 5, (25500, 20000, 208),
        {"unknown_tool": 1, "stale_read": 1, "edit_not_matched": 1},
        {"no_match": 1, "not_read": 1, "unknown_tool": 1})  # fmt: skip
    totals = card["totals"]
    assert {key: totals[key] for key in ("tasks", "solved", "solve_rate", "attempts", "turns", "tool_calls")} == {
        "tasks": 3, "solved": 2, "solve_rate": 0.6667, "attempts": 3, "turns": 10, "tool_calls": 7}
    assert totals["failures"] == {**NO_FAILURES, "unknown_tool": 1, "stale_read": 1, "edit_not_matched": 1}
    assert totals["tokens"] == {"prompt": 41800, "cached": 27900, "completion": 248}
    assert totals["prefill_seconds"] == 0.25  # only the server's reports count; none from the others
    assert totals["wall_seconds"] > 0 and totals["task_seconds"] > 0
    # The hidden test ran after the agent, and only then: it is in the copy, and not in the agent's diff.
    results = [json.loads(line) for line in (out / "attempt-1" / "results.jsonl").read_text().splitlines()]
    paginate = next(r for r in results if r["id"] == "py-paginate")
    assert paginate["files_changed"] == ["pager.py"] and "test_eval_hidden" not in paginate["diff"]
    assert (out / "attempt-1" / "tasks" / "py-paginate" / "test_eval_hidden.py").is_file()
    # The progress lines (stderr, no terminal) and the Markdown scorecard (stdout and scorecard.md).
    assert "eval [1/3] js-range: solved" in result.stderr and "eval [3/3] py-slugify: unsolved" in result.stderr
    markdown = (out / "scorecard.md").read_text()
    assert result.stdout == markdown
    assert "solved: **2 / 3** (66.7 %)" in markdown
    row = "| js-range | javascript | bug | yes | 1 | 6 | 5 | unknown_tool 1, edit_not_matched 1, stale_read 1 |"
    assert row in markdown


@pytest.mark.slow  # two evals, three agent runs
def test_attempts_run_unsolved_tasks_again_and_compare_shows_both_runs(tmp_path: Path) -> None:
    """--attempts 2: a task the first attempt left unsolved is run once more (and solved), a solved one is
    not; `eval compare` puts that run beside a one-attempt run, task by task."""
    second = tmp_path / "two-attempts"
    with ScriptedServer({"steps": ONLY_DONE + SOLVE_PAGINATE}) as server:
        result = run_eval(server, second, "py-paginate", "--attempts", "2")
        assert result.code == 0, result.stderr
        assert len(server.chat_requests) == 4
    card = json.loads((second / "scorecard.json").read_text())
    (row,) = card["tasks"]
    assert (row["solved"], row["attempts"], row["turns"], row["tool_calls"]) == (True, 2, 4, 2)
    assert row["tokens"] == {"prompt": 16300, "cached": 7900, "completion": 40}
    assert "attempt 2" in result.stderr
    # pass@1 and pass@k side by side (issue 40): the first attempt failed, the second passed.
    assert (card["totals"]["pass_at_1"], card["totals"]["pass_at_k"], card["totals"]["extra_attempts"]) == (0.0, 1.0, 1)
    assert (row["solved_at"], [a["outcome"] for a in row["per_attempt"]]) == (2, ["failed", "passed"])
    assert "| pass@1 | pass@2 | extra attempts | their cost |" in result.stdout
    assert "| 0.0 % | 100.0 % | 1 |" in result.stdout

    first = tmp_path / "one-attempt"
    with ScriptedServer({"steps": ONLY_DONE}) as server:
        assert run_eval(server, first, "py-paginate").code == 0
    compared = run_main("eval", "compare", str(first), str(second / "scorecard.json"))
    assert compared.code == 0, compared.stderr
    assert "| A / B | 1 / 1 | 0 / 1 | 1 / 2 | 1 / 4 | 0 / 2 |" in compared.stdout
    assert "| py-paginate | no / yes (+) | 1 / 2 | 1 / 4 | 0 / 2 | 4000 / 16300 |" in compared.stdout


def test_bad_input_is_named_and_nothing_runs(tmp_path: Path) -> None:
    """An unknown task, an unknown suite, a compare without two scorecards: exit 2 with one clear line."""
    unknown = run_main("eval", "--tasks", "no-such-task", "--out", str(tmp_path / "x"), "--base-url",
                       "http://127.0.0.1:9/v1", "--model", "m")  # fmt: skip
    assert unknown.code == 2 and "no task 'no-such-task' in suite 'core'" in unknown.stderr
    assert not (tmp_path / "x").exists()
    suite = run_main("eval", "--suite", str(tmp_path))
    assert suite.code == 2 and "neither a bundled suite" in suite.stderr
    compare = run_main("eval", "compare", str(tmp_path))
    assert compare.code == 2 and "usage: sneakycode eval compare A B" in compare.stderr
    not_a_card = run_main("eval", "compare", str(tmp_path), str(tmp_path))
    assert not_a_card.code == 2 and "cannot read the scorecard" in not_a_card.stderr
    assert "Traceback" not in unknown.stderr + suite.stderr + compare.stderr + not_a_card.stderr


def test_the_hidden_test_is_not_in_the_copy_while_the_agent_works(tmp_path: Path) -> None:
    """The model looks for the hidden test while it works: read_file finds nothing, and neither does a
    command listing every file of the copy; once the agent has ended, the test is there and decides."""
    out = tmp_path / "peek"
    steps = [call("read_file", file_path="test_eval_hidden.py", usage=(4000, 0, 5)),
             call("run_command", command="ls -aR", usage=(4100, 3900, 5)),
             say("Done.", usage=(4200, 4000, 2))]  # fmt: skip
    with ScriptedServer({"steps": steps}) as server:
        result = run_eval(server, out, "py-slugify")
    assert result.code == 0, result.stderr
    (line,) = [json.loads(text) for text in (out / "attempt-1" / "results.jsonl").read_text().splitlines()]
    records = [json.loads(text) for text in Path(line["transcript"]).read_text().splitlines()]
    tool_results = [r["message"]["content"] for r in records
                    if r["type"] == "message" and r["message"]["role"] == "tool"]  # fmt: skip
    assert tool_results[0].startswith("Error [not_found]")
    assert "text.py" in tool_results[1] and "test_eval_hidden" not in tool_results[1]
    assert line["verdict"]["passed"] is False and "test_single_dashes" in line["verdict"]["output"]
    (row,) = json.loads((out / "scorecard.json").read_text())["tasks"]
    assert row["error_codes"] == {"not_found": 1} and row["failures"] == NO_FAILURES
