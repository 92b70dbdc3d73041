"""`sneakycode doctor` answers the probe tool's call with and without the call's reasoning, against the scripted
server playing a family's contract (testing/contracts.py): Kimi K2's 400 is "requires reasoning back" with the
setting that sends it, DeepSeek R1's is "refuses reasoning back", and `--save` records the policy."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sneakycode.config import load_settings, user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.doctor.helpers import MODEL, PARIS, TOKYO, check, doctor, doctor_json, script

THINKING = {"tool_calls": [PARIS], "reasoning": "The user wants Paris: call get_weather."}
STEPS = {"one": THINKING, "two": {"tool_calls": [PARIS, TOKYO], "reasoning": "Both cities."}}
ANSWER = {"content": "It is sunny in Paris.", "reasoning": "The tool says sunny."}


def test_a_server_that_requires_reasoning_back_is_named_with_the_setting_and_save_records_it(
    ws: Path, isolated_home: Path
) -> None:
    kimi = script(**STEPS, reasoning_contract="kimi")
    kimi["steps"].append(ANSWER)
    with ScriptedServer(kimi) as server:
        code, report = doctor_json(server, ws)
    found = check(report, "reasoning_history")
    assert (found["verdict"], found["layer"]) == ("warn", "config"), found
    assert "requires reasoning back" in found["measured"] and "reasoning_content is missing" in found["measured"]
    assert found["fix"] == f'[model_settings."{MODEL}"] reasoning_history = "chain" (doctor --save writes it)'
    assert report["settings"]["reasoning_history"] == "chain" and code == 0

    kimi["steps"].append(ANSWER)
    with ScriptedServer(kimi) as server:
        assert doctor(server, ws, "--save").code == 0
    assert tomllib.loads(user_config_path().read_text())["model_settings"][MODEL]["reasoning_history"] == "chain"
    assert load_settings(ws, {"model": MODEL}).settings.reasoning_history == "chain"


def test_a_server_that_refuses_reasoning_back_is_named_and_drop_is_the_policy(ws: Path) -> None:
    deepseek = script(**STEPS, reasoning_contract="deepseek")
    deepseek["steps"].append(ANSWER)
    with ScriptedServer(deepseek) as server:
        _, report = doctor_json(server, ws)
    found = check(report, "reasoning_history")
    assert found["verdict"] == "pass" and "refuses reasoning back" in found["measured"], found
    assert report["settings"]["reasoning_history"] == "drop"


def test_a_server_that_takes_both_says_whether_the_model_kept_thinking(ws: Path) -> None:
    both = script(**STEPS)
    both["steps"] += [ANSWER, ANSWER]
    with ScriptedServer(both) as server:
        _, report = doctor_json(server, ws)
    found = check(report, "reasoning_history")
    assert found["verdict"] == "pass" and "kept thinking after the tool result" in found["measured"], found


def test_a_model_that_makes_no_call_with_reasoning_is_still_asked_with_a_written_call(ws: Path) -> None:
    """The 400s are the server's check of the request: with a small model that calls no tool itself (the
    SmolLM2 of the local servers), doctor asks with a tool call it writes, and Kimi's contract still shows."""
    kimi = script(one={"content": "I cannot call tools."}, two={"content": "Nor here."}, reasoning_contract="kimi")
    kimi["steps"].append(ANSWER)
    with ScriptedServer(kimi) as server:
        _, report = doctor_json(server, ws)
    found = check(report, "reasoning_history")
    assert "requires reasoning back" in found["measured"] and "written by doctor" in found["measured"], found
    assert report["settings"]["reasoning_history"] == "chain"
