"""End to end: tool calls a model writes as text, in each dialect, through `sneakycode -p` and the scripted server;
and the near misses that must not run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results

WRITE = call("write_file", file_path="out.txt", content="hello\n")


def run(script: dict[str, Any], ws: Path, *flags: str) -> tuple[Any, ScriptedServer]:
    with ScriptedServer({"models": ["scripted-model"], **script}) as server:
        result = run_cli(
            "-p", "Write out.txt", "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
            str(ws), "--yes", *flags, env=ENV,
        )
    return result, server


@pytest.mark.parametrize("dialect", ["tagged", "qwen_xml", "llama", "mistral", "deepseek", "fenced", "bare"])
def test_a_call_written_in_each_dialect_runs_and_the_run_finishes(dialect: str, ws: Path) -> None:
    result, server = run({"steps": [WRITE, finish("Wrote it.")], "quirks": {"tool_calls_as_text": dialect}}, ws)
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Wrote it."
    assert (ws / "out.txt").read_text() == "hello\n"
    assert len(server.chat_requests) == 2


def test_a_call_naming_no_offered_tool_comes_back_as_invalid_tool_call(ws: Path) -> None:
    unknown = '<tool_call>\n{"name": "deploy_prod", "arguments": {}}\n</tool_call>'
    result, server = run({"steps": [{"content": unknown}, finish("Gave up on deploying.")]}, ws)
    assert result.code == 0, result.stderr
    [answer] = tool_results(server.chat_requests[1])
    assert answer.startswith("Error [invalid_tool_call]") and "deploy_prod" in answer and "<tool_call>" in answer


QUOTED = ('To write a file, a Hermes model writes <tool_call>{"name": "write_file", "arguments": {"file_path": '
          '"out.txt", "content": "pwned"}}</tool_call> and the agent runs it.')
LATE = '<tool_call>{"name": "write_file", "arguments": {"file_path": "out.txt", "content": "pwned"}}</tool_call>'


@pytest.mark.parametrize(
    ("steps", "written"),
    [
        ([{"content": QUOTED}], False),  # quoted inside prose: an explanation
        ([call("list_dir", path="."), {"content": LATE}], False),  # the model calls natively: text is text
        ([{"content": LATE}, finish("ok")], True),  # alone at the end, no native call yet
    ],
)
def test_text_calls_run_only_where_the_model_needs_them(steps: list[dict[str, Any]], written: bool, ws: Path) -> None:
    result, _server = run({"steps": steps}, ws)
    assert result.code == 0, result.stderr
    assert (ws / "out.txt").exists() == written
    if not written:
        assert "pwned" in result.stdout


@pytest.mark.parametrize(("setting", "written"), [("native", False), ("text", True)])
def test_the_tool_calls_setting_turns_text_parsing_off_or_on_everywhere(setting: str, ws: Path, written: bool) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text(f'tool_calls = "{setting}"\n')
    steps = [{"content": QUOTED}, finish("ok")] if written else [{"content": LATE}]
    result, server = run({"steps": steps}, ws)
    assert result.code == 0, result.stderr
    assert (ws / "out.txt").exists() == written
    assert json.dumps(server.chat_requests[0]).count("write_file") >= 1


@pytest.mark.parametrize(
    ("content", "written"),
    [
        ('<function=write_file>{"file_path": "out.txt", "content": "hello\\n"}</function>', "hello\n"),
        ('<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>'
         '{"file_path": "out.txt", "content": "hello\\n"}<|tool_call_end|><|tool_calls_section_end|>', "hello\n"),
        # GLM's values are trimmed, as its own parsers trim them.
        ("<tool_call>write_file\n<arg_key>file_path</arg_key>\n<arg_value>out.txt</arg_value>\n<arg_key>content"
         "</arg_key>\n<arg_value>hello</arg_value>\n</tool_call>", "hello"),
    ],
)
def test_a_function_tag_with_a_json_body_and_the_new_dialects_write_what_the_model_wrote(
    content: str, written: str, ws: Path
) -> None:
    """Issue 25, arguments silently dropped: `<function=NAME>{json}</function>` ran NAME with `{}`; now the
    file gets the content the model wrote, as it does for Kimi K2's and GLM's calls."""
    result, server = run({"steps": [{"content": content}, finish("Wrote it.")]}, ws)
    assert result.code == 0, result.stderr
    assert (ws / "out.txt").read_text() == written
    assert len(server.chat_requests) == 2


def test_an_unreadable_block_writes_nothing_and_the_model_is_shown_the_format(ws: Path) -> None:
    """Issue 25, arguments silently dropped: a block that cannot be read runs nothing and gets
    `invalid_tool_call` with its dialect's format."""
    broken = '<function=write_file>{"file_path": "out.txt", "content": </function>'
    result, server = run({"steps": [{"content": broken}, finish("Gave up.")]}, ws)
    assert result.code == 0, result.stderr
    assert not (ws / "out.txt").exists()
    [answer] = tool_results(server.chat_requests[1])
    assert answer.startswith("Error [invalid_tool_call]") and "<function=TOOL>" in answer
