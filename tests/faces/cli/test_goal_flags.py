"""`-p --until CMD` (issue 40): the real command line loops to a passing check, says so in its JSON result, and
refuses a bad goal before anything starts."""

from __future__ import annotations

import json
from pathlib import Path

from sneakycode.testing.server import ScriptedServer
from tests.faces.cli.test_headless import CALC, call, finish, headless


def test_until_loops_to_a_pass_and_the_json_result_holds_the_check(ws: Path) -> None:
    (ws / "calc.py").write_text(CALC)
    (ws / "check_calc.py").write_text("from calc import add\nassert add(2, 3) == 5\n")
    steps = [finish("done"), call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("fixed")]
    with ScriptedServer({"steps": steps}) as server:
        result = headless(server, ws, "make add right", "--until", "python3 check_calc.py", "--yes",
                          "--output-format", "json")
        assert len(server.chat_requests) == 4
    assert result.code == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["status"] == "finished" and shown["check"]["passed"] and shown["check"]["rounds"] == 2
    assert shown["check"]["files"] == ["check_calc.py"] and shown["solved_by"] == "scripted-model"
    assert "a + b" in (ws / "calc.py").read_text()


def test_a_bad_goal_is_a_usage_error_before_anything_starts(ws: Path) -> None:
    with ScriptedServer({"steps": []}) as server:
        result = headless(server, ws, "x", "--until-files", "check.py")
        assert server.chat_requests == []
    assert result.code == 2 and "--until-files (Options.until_files) needs a check" in result.stderr


def test_a_goals_stream_shows_each_check_and_its_final_event_follows_the_schema(ws: Path) -> None:
    from importlib.resources import files

    import jsonschema

    (ws / "calc.py").write_text(CALC)
    (ws / "check_calc.py").write_text("from calc import add\nassert add(2, 3) == 5\n")
    with ScriptedServer({"steps": [finish("done"), finish("still done")]}) as server:
        result = headless(server, ws, "make add right", "--until", "python3 check_calc.py", "--max-turns", "2",
                          "--output-format", "stream-json")
    assert result.code == 3, result.stderr  # a budget ended it, the check still failing
    schema = json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text())
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        jsonschema.Draft202012Validator(schema).validate(event)
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert [n for n in notices if n.startswith("Check ")] == [
        "Check `python3 check_calc.py` fails (exit 1) before any change.",
        "Check `python3 check_calc.py` fails (exit 1) after round 1.",
        "Check `python3 check_calc.py` fails (exit 1) after round 2."]
    final = events[-1]
    assert (final["status"], final["budget"], final["check"]["passed"]) == ("turn_limit", "max_turns", False)


def test_attempts_through_p_keep_the_passing_attempt_and_apply_it_with_yes(ws: Path) -> None:
    import subprocess

    (ws / "calc.py").write_text(CALC)
    (ws / "check_calc.py").write_text("from calc import add\nassert add(2, 3) == 5\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "s"]):
        subprocess.run(["git", "-C", str(ws), *argv], check=True)
    # One worker: attempt 1 only says it is done (its three turns spent), attempt 2 fixes add.
    steps = [finish("done"), finish("done!"), finish("done!!"), call("read_file", file_path="calc.py"),
             call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"), finish("fixed")]
    with ScriptedServer({"steps": steps}) as server:
        result = headless(server, ws, "make add right", "--until", "python3 check_calc.py", "--attempts", "2",
                          "--max-turns", "3", "--yes", "--output-format", "json")
    assert result.code == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["chosen_attempt"] == 2 and [row["check_passed"] for row in shown["attempts"]] == [False, True]
    assert "a + b" in (ws / "calc.py").read_text() and "applied to the workspace" in shown["result"]


def test_attempts_without_p_is_a_usage_error_naming_p_not_silently_ignored(ws: Path) -> None:
    from tests.conftest import run_cli

    result = run_cli("--attempts", "3", "make add right", "--workspace", str(ws))
    assert result.code == 2 and "sneakycode -p TASK --attempts N" in result.stderr
    assert "/attempts N TASK" in result.stderr


def test_attempts_on_ray_without_ray_installed_is_a_clear_usage_error(ws: Path, tmp_path: Path) -> None:
    import subprocess

    from tests.conftest import run_cli

    (ws / "calc.py").write_text(CALC)
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "s"]):
        subprocess.run(["git", "-C", str(ws), *argv], check=True)
    # A `ray` that cannot be imported, as without the extra (Ray is installed in the test environment).
    (tmp_path / "no_ray" / "ray").mkdir(parents=True)
    (tmp_path / "no_ray" / "ray" / "__init__.py").write_text("raise ImportError('no ray here')\n")
    with ScriptedServer({"steps": []}) as server:
        result = run_cli("-p", "x", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws),
                         "--until", "true", "--attempts", "2", "--executor", "ray",
                         env={"PYTHONPATH": str(tmp_path / "no_ray")})
        assert server.chat_requests == []
    assert result.code == 2 and "--executor ray needs Ray: pip install 'sneakycode[ray]'" in result.stderr
    listed = subprocess.run(["git", "-C", str(ws), "worktree", "list"], capture_output=True, text=True).stdout
    assert len(listed.splitlines()) == 1
