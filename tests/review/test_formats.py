"""`sneakycode review --format github|sarif` through the real CLI: every GitHub line is a well-formed workflow
command whose values come back exactly once unescaped (and none the model wrote can start a command of its
own); the SARIF validates against the SARIF 2.1.0 objects it writes, each with what the standard requires of
it and nothing else (tests/fixtures/sarif/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema

from sneakycode.testing.server import ScriptedServer
from tests.review.conftest import CALC, answer, commit_all, finding, review

SARIF = jsonschema.Draft7Validator(json.loads(
    (Path(__file__).parents[1] / "fixtures" / "sarif" / "sarif-2.1.0-subset.schema.json").read_text()))
# ::name key=value,key=value::message, values escaped: no raw CR, LF, and (in properties) no ':' or ','.
COMMAND = re.compile(r"^::(?P<name>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<data>[^\r\n]*)$")
HOSTILE_TITLE = "100% wrong, see: here"
HOSTILE_BODY = "Line one.\r\n::add-mask::secret\n::stop-commands::token\n%0A stays literal"


def unescape_data(text: str) -> str:
    return re.sub("%(25|0D|0A|3A|2C)", lambda m: {"25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": ","}[m[1]], text)


def properties(text: str) -> dict[str, str]:
    pairs = [item.split("=", 1) for item in text.split(",")] if text else []
    return {key: unescape_data(value) for key, value in pairs}


def a_change(repo: Path) -> None:
    (repo / "my file.py").write_text("A = 1\nB = 2\nC = 3\n")
    commit_all(repo, "space")
    (repo / "my file.py").write_text("A = 1\nB = 'two'\nC = 3\n")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))


FOUND = [finding("calc.py", 2, "error", end_line=3, title=HOSTILE_TITLE, body=HOSTILE_BODY,
                 suggestion="    return a + b\n"),
         finding("my file.py", 2, "warning", title="B is a string"),
         finding("my file.py", 3, "note", title="C"),
         finding("gone.py", 1, "note", title="dropped")]


def test_github_annotations_are_well_formed_and_escaped(repo: Path) -> None:
    a_change(repo)
    with ScriptedServer([answer("Two changes.\nSee: below, 100%", *FOUND)]) as server:
        result = review(server, repo, "--format", "github")
    assert result.code == 1, result.stderr
    lines = result.stdout.splitlines()
    parsed = [COMMAND.match(line) for line in lines]
    assert all(parsed), lines  # every line is one command: nothing the model wrote starts a line of its own
    commands = [(m["name"], properties(m["props"] or ""), unescape_data(m["data"])) for m in parsed if m]
    assert commands[0] == ("notice", {"title": "SneakyCode review"}, "Two changes.\nSee: below, 100%")
    assert commands[1][0] == "notice" and "dropped a finding on gone.py:1" in commands[1][2]
    # Regression: a dropped or moved finding came out as a warning, though docs/ci.md says notice (issue 37).
    error, warning, notice = commands[2:]
    assert error[0] == "error" and error[1] == {"file": "calc.py", "line": "2", "endLine": "3",
                                                "title": HOSTILE_TITLE}
    assert error[2] == HOSTILE_BODY + "\n\nSuggested change:\n    return a + b\n"
    assert warning[:2] == ("warning", {"file": "my file.py", "line": "2", "title": "B is a string"})
    assert notice[:2] == ("notice", {"file": "my file.py", "line": "3", "title": "C"})
    assert not any(line.startswith(("::add-mask", "::stop-commands")) for line in lines)


def test_sarif_validates_against_the_sarif_2_1_0_objects_it_writes(repo: Path) -> None:
    a_change(repo)
    with ScriptedServer([answer("Two changes.", *FOUND)]) as server:
        result = review(server, repo, "--format", "sarif")
    assert result.code == 1, result.stderr
    log = json.loads(result.stdout)
    SARIF.validate(log)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["tool"]["driver"]["name"] == "SneakyCode" and run["tool"]["driver"]["rules"][0]["id"]
    levels = [(r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
               r["locations"][0]["physicalLocation"]["region"]) for r in run["results"]]
    assert levels == [("error", "calc.py", {"startLine": 2, "endLine": 3}),
                      ("warning", "my%20file.py", {"startLine": 2, "endLine": 2}),
                      ("note", "my%20file.py", {"startLine": 3, "endLine": 3})]
    fix = run["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert fix == {"deletedRegion": {"startLine": 2, "endLine": 3}, "insertedContent": {"text": "    return a + b\n"}}
    assert run["results"][0]["message"]["text"].startswith(HOSTILE_TITLE)
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert any("gone.py" in n["message"]["text"] for n in notes)


def test_sarif_without_findings_is_valid_and_passes(repo: Path) -> None:
    a_change(repo)
    with ScriptedServer([answer("Looks right.")]) as server:
        result = review(server, repo, "--format", "sarif", "--fail-on", "note")
    assert result.code == 0, result.stderr
    log = json.loads(result.stdout)
    SARIF.validate(log)
    assert log["runs"][0]["results"] == []
