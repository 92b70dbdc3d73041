"""`sneakycode review` run as a workflow step runs it (the real CLI, a real repository, the scripted model):
whatever the model writes, in any format, on stdout or stderr, no line of it is a workflow command GitHub's
runner would obey, except the annotations `--format github` writes itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.review.conftest import CALC, answer, commit_all, finding, review
from tests.workflow_log import workflow_commands

# Each way a line can become a command: at a line start after LF, CR and CRLF, behind spaces, a tab or a
# no-break space, the older `##[` form anywhere, a resume token.
HOSTILE = ("Looks fine.\n::add-mask::leaked\r::stop-commands::tok\r\n  ::set-output name=x::y\n"
           "\t\u00a0::warning::forged\nsee ##[error]old form\n::tok::")
OUR_COMMAND = re.compile(r"^::(error|warning|notice) [^:]*::[^\r\n]*$|^::notice title=SneakyCode review::")


def a_change(repo: Path) -> None:
    lines = "".join(f"v{n} = {n}\n" for n in range(40))
    (repo / "long.py").write_text(lines)
    commit_all(repo, "long")
    (repo / "long.py").write_text(lines.replace("v20 = 20", "v20 = 'twenty'"))


FOUND = [finding("long.py", 21, "warning", title=HOSTILE, body=HOSTILE, suggestion=HOSTILE),  # kept
         finding("long.py", 2, "note", title=HOSTILE),  # moved to the hunk: a note quoting its title
         finding("calc.py", 1, "error", title=HOSTILE)]  # a file the diff does not touch: dropped, noted


@pytest.mark.parametrize("flags", [[], ["--output-format", "json"], ["--format", "sarif"], ["--format", "github"]])
def test_no_line_the_model_wrote_starts_a_workflow_command(repo: Path, flags: list[str]) -> None:
    """Hardening round three, class 3: the text output prints the model's lines (titles, bodies, suggestions,
    the summary), and every format prints the notes about moved and dropped findings, which quote the model's
    titles; none of those lines can start a command in a job's log."""
    a_change(repo)
    with ScriptedServer([answer(HOSTILE, *FOUND)]) as server:
        result = review(server, repo, *flags)
    assert result.code == 0, result.stderr  # the error finding was dropped
    assert "dropped a finding on calc.py:1" in result.stdout + result.stderr
    assert workflow_commands(result.stderr) == []
    if flags[-1:] == ["github"]:  # its own annotations, each one line whatever the model wrote
        assert all(OUR_COMMAND.match(line) for line in result.stdout.splitlines()), result.stdout
    else:
        assert workflow_commands(result.stdout) == []
    if not flags:
        assert "\\x3a:add-mask::leaked" in result.stdout and "#\\x23[error]" in result.stdout  # shown as text


@pytest.mark.parametrize("flags", [["--output-format", "json"], ["--format", "github"], []])
def test_an_answer_without_a_verdict_is_quoted_inert(repo: Path, flags: list[str]) -> None:
    """Hardening round three, class 3: the "no verdict" message quotes the model's answer, newlines and all."""
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    wrong = {"tool_calls": [{"name": "finish", "arguments": {"message": HOSTILE}}]}
    with ScriptedServer([wrong, wrong]) as server:
        result = review(server, repo, *flags)
    assert result.code == 1 and "no verdict" in result.stderr, result.stderr
    assert "add-mask::leaked" in result.stderr  # quoted...
    assert workflow_commands(result.stderr) == [] and workflow_commands(result.stdout) == []  # ...inert


def test_the_json_keeps_the_models_exact_text(repo: Path) -> None:
    """Hardening round three, class 3: what is escaped is the log, not the data: the JSON on stdout holds
    the model's text unchanged, for a program to read."""
    a_change(repo)
    with ScriptedServer([answer(HOSTILE, *FOUND[:1])]) as server:
        result = review(server, repo, "--output-format", "json")
    shown = json.loads(result.stdout)
    assert shown["summary"] == HOSTILE and shown["findings"][0]["title"] == HOSTILE
