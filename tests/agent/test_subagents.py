"""Subagents (issue 15): the task tool runs a child Agent in its own context, in process against a scripted model
and real tools on a real workspace; the headless end (stream-json, --max-turns) runs the real CLI."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from sneakycode.agent.loop import Agent
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.agent.subagent_definitions import load_definitions
from sneakycode.agent.subagents import Subagents
from sneakycode.config import load_settings
from sneakycode.extensions.hooks import HookRunner
from sneakycode.permissions.decide import Decision
from sneakycode.permissions.gate import Gate
from sneakycode.testing.scripted_model import Reply, ScriptedModel
from sneakycode.testing.server import ScriptedServer
from sneakycode.tools.base import Tier, ToolContext
from sneakycode.tools.codemap.repomap import HEADING
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.registry import all_tools
from tests.agent.test_loop import Events, finish, reply, tc, tool_messages
from tests.conftest import project_config, run_cli
from tests.extensions.test_hook_runner import python_hook, runner
from tests.faces.cli.test_headless import ENV, call


def session(ctx: ToolContext, replies: list[Reply], hooks: HookRunner | None = None) -> tuple[
    Agent, ScriptedModel, Events, Subagents
]:
    definitions, problems = load_definitions(ctx.workspace)
    assert problems == []
    subagents = Subagents(definitions, all_tools())
    model = ScriptedModel(replies)
    events = Events()
    agent = Agent(Binding(BoundModel(model)), Calls(ctx, None, (*all_tools(), subagents.tool)), Conversation(),
                  RunConfig(events, main=True, hooks=hooks))
    subagents.attach(agent)
    return agent, model, events, subagents


def offered(tools: list[dict[str, Any]]) -> set[str]:
    return {t["function"]["name"] for t in tools}


def test_an_explore_subagent_reads_files_while_the_parent_context_grows_only_by_its_answer(ctx: ToolContext) -> None:
    big = "".join(f"line {n}: filler text that fills a context window\n" for n in range(400))
    (ctx.workspace.root / "big.txt").write_text(big + "RETRY_LIMIT = 7\n")
    replies: list[Reply] = [
        reply(tc("task", agent="explore", prompt="Where is RETRY_LIMIT set?", description="find retry limit")),
        reply(tc("grep_files", pattern="RETRY_LIMIT")),
        reply(tc("read_file", file_path="big.txt")),
        reply(text="RETRY_LIMIT = 7, on line 401 of big.txt."),
        finish("It is 7."),
    ]
    agent, model, events, _ = session(ctx, replies)
    result = agent.run_turn("What is the retry limit?")
    assert result.status == "finished" and result.message == "It is 7."
    parent_first, child_first, child_last, parent_last = (model.requests[i] for i in (0, 1, 3, 4))
    assert "read-only explorer" in child_first[0]["content"]
    assert child_first[1]["content"] == "Where is RETRY_LIMIT set?"
    assert offered(model.tools[1]) == {t.name for t in all_tools() if t.read_only}  # no task, no edits, no shell
    assert "line 399: filler" in json.dumps(child_last)  # the child read the whole file ...
    assert "line 399: filler" not in json.dumps(parent_last)  # ... the parent only got the answer
    grown = len(json.dumps(parent_last)) - len(json.dumps(parent_first))
    assert grown < 800 < len(big)
    assert "RETRY_LIMIT = 7, on line 401 of big.txt." in next(iter(tool_messages(agent.history).values()))
    assert (result.turns, result.tool_calls) == (5, 4)  # the child's turns and calls count as the run's
    tagged = [e for e in events.items if e.get("agent") == "explore-1"]
    assert [e["name"] for e in tagged if e["type"] == "tool_call"] == ["grep_files", "read_file"]
    assert [e["phase"] for e in events.of("subagent")] == ["start", "end"]
    saved = (ctx.session_dir / "agents" / "explore-1" / "transcript.jsonl").read_text()
    assert "RETRY_LIMIT = 7, on line 401" in saved


def test_the_main_agent_ends_with_stop_and_a_subagent_with_subagent_stop(ctx: ToolContext, tmp_path: Path) -> None:
    """The main agent is known by its `main` flag alone: its end runs the Stop hooks and its first request
    carries the repository map; a subagent's end runs SubagentStop, and its task comes without a map."""
    log = tmp_path / "stops.txt"
    record = f"open({str(log)!r}, 'a').write(event['hook_event_name'] + chr(10))\n"
    hooks = runner(ctx, python_hook("Stop", record), python_hook("SubagentStop", record))
    (ctx.workspace.root / "app.py").write_text("def serve(port: int) -> None:\n    print(port)\n")
    replies: list[Reply] = [reply(tc("task", agent="explore", prompt="Look around.")), reply(text="One module."),
                            finish("Done.")]
    agent, model, _, _ = session(ctx, replies, hooks=hooks)
    assert agent.run_turn("What is here?").status == "finished"
    assert log.read_text().splitlines() == ["SubagentStop", "Stop"]
    assert HEADING in model.requests[0][1]["content"]
    assert model.requests[1][1]["content"] == "Look around."


def test_two_read_only_subagents_run_at_the_same_time(ctx: ToolContext) -> None:
    both_in_flight = threading.Barrier(2)

    def meets_the_other(_cancel: threading.Event | None) -> AssistantTurn:
        both_in_flight.wait(timeout=10)  # only returns if the other subagent is asking the model too
        return AssistantTurn(content="found it")

    replies: list[Reply] = [
        reply(tc("task", agent="explore", prompt="find A"), tc("task", agent="explore", prompt="find B")),
        meets_the_other,
        meets_the_other,
        finish("both found"),
    ]
    agent, _, events, subagents = session(ctx, replies)
    assert subagents.tool.read_only and subagents.tool.tier is Tier.AUTO
    result = agent.run_turn("Find A and B")
    assert result.status == "finished"
    assert list(tool_messages(agent.history).values())[:2] == ["found it", "found it"]
    assert {e["agent"] for e in events.of("subagent")} == {"explore-1", "explore-2"}


def test_each_task_call_is_decided_by_the_agent_it_names(ctx: ToolContext) -> None:
    """Regression: one user agent that may edit made every task call ask, explore included."""
    (ctx.workspace.root / ".sneakycode" / "agents").mkdir(parents=True)
    (ctx.workspace.root / ".sneakycode" / "agents" / "fixer.md").write_text(
        "---\ndescription: Fixes typos\ntools: read_file, str_replace\n---\nFix typos.\n"
    )
    both_in_flight = threading.Barrier(2)

    def meets_the_other(_cancel: threading.Event | None) -> AssistantTurn:
        both_in_flight.wait(timeout=10)  # only returns if the other explore call runs at the same time
        return AssistantTurn(content="found it")

    replies: list[Reply] = [
        reply(tc("task", agent="explore", prompt="find A"), tc("task", agent="explore", prompt="find B")),
        meets_the_other,
        meets_the_other,
        reply(tc("task", agent="fixer", prompt="fix the typo in a.txt")),
        finish("done"),
    ]
    agent, _, events, subagents = session(ctx, replies)  # no approver: a call that asks is refused
    assert subagents.tool.tier is Tier.CONFIRM and not subagents.tool.read_only
    result = agent.run_turn("Find A and B, then fix the typo")
    assert result.status == "finished"
    explored, explored_too, fixed = list(tool_messages(agent.history).values())[:3]
    assert explored == explored_too == "found it"
    assert fixed.startswith("Error [permission_denied]: task was not run: it needs approval")
    assert {e["agent"] for e in events.of("subagent")} == {"explore-1", "explore-2"}  # the fixer never started
    gate = Gate(ctx, offered=(*all_tools(), subagents.tool))
    explore_call = gate.prepare("task", {"agent": "explore", "prompt": "x"})
    fixer_call = gate.prepare("task", {"agent": "fixer", "prompt": "x"})
    assert explore_call.decision is not None and explore_call.decision.decision is Decision.ALLOW
    assert explore_call.read_only
    assert fixer_call.decision is not None and fixer_call.decision.decision is Decision.ASK
    assert not fixer_call.read_only


def test_a_deny_rule_for_task_still_refuses_a_read_only_subagent(ws: Path) -> None:
    project_config(ws, '[permissions]\ndeny = ["task"]\n')
    ctx = open_tool_context(load_settings(ws))
    (ws / ".sneakycode" / "agents").mkdir()
    (ws / ".sneakycode" / "agents" / "fixer.md").write_text("---\ndescription: Fixes\ntools: str_replace\n---\nFix.\n")
    definitions, _ = load_definitions(ctx.workspace)
    subagents = Subagents(definitions, all_tools())
    prepared = Gate(ctx, offered=(subagents.tool,)).prepare("task", {"agent": "explore", "prompt": "x"})
    assert prepared.decision is not None and prepared.decision.decision is Decision.DENY


def test_cancelling_stops_the_parent_and_both_subagents(ctx: ToolContext) -> None:
    in_flight = threading.Barrier(3)

    def long_answer(cancel: threading.Event | None) -> AssistantTurn:
        in_flight.wait(timeout=10)
        assert cancel is not None and cancel.wait(timeout=30)
        return AssistantTurn(content="partial")

    replies: list[Reply] = [
        reply(tc("task", agent="explore", prompt="find A"), tc("task", agent="explore", prompt="find B")),
        long_answer,
        long_answer,
    ]
    agent, _, _, _ = session(ctx, replies)
    outcome: list[Any] = []
    runner = threading.Thread(target=lambda: outcome.append(agent.run_turn("Find A and B")))
    started = time.monotonic()
    runner.start()
    in_flight.wait(timeout=10)
    agent.cancel.set()  # what Ctrl-C does
    runner.join(timeout=30)
    assert outcome and outcome[0].status == "cancelled" and time.monotonic() - started < 20
    results = list(tool_messages(agent.history).values())
    assert len(results) == 2 and all(text.startswith("Error [cancelled]: explore-") for text in results)


def test_user_defined_agents_load_from_both_folders_and_a_broken_one_is_reported(ctx: ToolContext) -> None:
    root = ctx.workspace.root
    (root / ".sneakycode" / "agents").mkdir(parents=True)
    (root / ".claude" / "agents").mkdir(parents=True)
    (root / ".sneakycode" / "agents" / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a change\ntools: read_file, str_replace\nmodel: big-model\n---\n"
        "You review code and fix typos.\n"
    )
    (root / ".claude" / "agents" / "scout.md").write_text(
        "---\nname: scout\ndescription: Looks around\ntools:\n  - list_dir\n  - find_files\n---\nLook around.\n"
    )
    (root / ".claude" / "agents" / "broken.md").write_text("---\nname: broken\ndescription: [unclosed\n---\nx\n")
    definitions, problems = load_definitions(ctx.workspace, trusted=True)
    assert set(definitions) == {"explore", "reviewer", "scout"}
    reviewer = definitions["reviewer"]
    assert reviewer.tools == ("read_file", "str_replace") and reviewer.model == "big-model"
    assert definitions["reviewer"].prompt == "You review code and fix typos."
    assert definitions["scout"].read_only(all_tools()) and not definitions["reviewer"].read_only(all_tools())
    assert len(problems) == 1 and problems[0].startswith(".claude/agents/broken.md:")
    subagents = Subagents(definitions, all_tools())
    assert subagents.tool.tier is Tier.CONFIRM and not subagents.tool.read_only  # reviewer may edit
    assert "reviewer: Reviews a change" in subagents.tool.description


def test_a_user_agent_file_that_is_a_fifo_or_dev_zero_is_skipped_at_once(ctx: ToolContext) -> None:
    """Hardening round two, class 4: the user's agents folder was read with read_text(), so a FIFO named
    `x.md` hung startup and a link to /dev/zero read without end; both are now skipped with a line."""
    from sneakycode.config import user_config_path

    folder = user_config_path().parent / "agents"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.md")
    (folder / "zero.md").symlink_to("/dev/zero")
    (folder / "helper.md").write_text("---\nname: helper\ndescription: Helps\n---\nHelp.\n")
    started = time.monotonic()
    definitions, problems = load_definitions(ctx.workspace)
    assert time.monotonic() - started < 2
    assert set(definitions) == {"explore", "helper"}
    assert [p.split(":", 1)[0] for p in problems] == [str(folder / "pipe.md"), str(folder / "zero.md")]
    assert "FIFO" in problems[0] and "character device" in problems[1]


def test_subagent_events_are_tagged_in_stream_json_and_count_toward_max_turns(ws: Path) -> None:
    (ws / "notes.txt").write_text("the key is under the mat\n")
    steps = [
        call("task", agent="explore", prompt="Where is the key?"),
        call("read_file", file_path="notes.txt"),
        {"content": "Under the mat (notes.txt)."},
        call("finish", message="never reached"),
    ]
    with ScriptedServer({"models": ["m"], "steps": steps}) as server:
        result = run_cli("-p", "Find the key", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws),
                         "--output-format", "stream-json", "--max-turns", "3", env=ENV)
    assert result.code == 3, result.stderr  # 1 parent turn + 2 subagent turns = the limit of 3
    events = [json.loads(line) for line in result.stdout.splitlines()]
    tagged = [e for e in events if e.get("agent") == "explore-1"]
    assert {"subagent", "tool_call", "tool_result", "assistant"} <= {e["type"] for e in tagged}
    assert any(e["type"] == "tool_call" and e["name"] == "read_file" for e in tagged)
    untagged_results = [e for e in events if e["type"] == "tool_result" and "agent" not in e]
    assert untagged_results[0]["name"] == "task" and "Under the mat" in untagged_results[0]["content"]
    final = events[-1]
    assert final["type"] == "final" and final["status"] == "turn_limit" and final["turns"] == 3


def test_a_claude_code_agent_file_with_claude_tool_names_gets_our_tools_of_that_kind(ctx: ToolContext) -> None:
    (ctx.workspace.root / ".claude" / "agents").mkdir(parents=True)
    (ctx.workspace.root / ".claude" / "agents" / "finder.md").write_text(
        "---\nname: finder\ndescription: Finds code\ntools: Read, Grep, Glob, NotebookRead\n---\nFind it.\n"
    )
    definitions, problems = load_definitions(ctx.workspace)
    assert definitions["finder"].tools == ("read_file", "grep_files", "find_files")
    assert definitions["finder"].read_only(all_tools())
    assert problems == [".claude/agents/finder.md: no tool named NotebookRead here; ignored."]


def test_the_default_tools_array_stays_within_its_budget() -> None:
    """Every built-in tool at once (web_search with a backend, code where a language server runs) plus `task`
    (offered by default) is at most 7,000 characters of compact JSON; it was 7,406 when job, web_fetch and task
    first joined."""
    import json

    from sneakycode.agent.subagent_definitions import explore
    from sneakycode.agent.subagents import Subagents
    from sneakycode.tools.registry import all_tools, known_tools, openai_schemas

    tools = (*known_tools(), Subagents({"explore": explore()}, all_tools()).tool)
    assert {"web_search", "code"} <= {found.name for found in tools}
    assert len(json.dumps(openai_schemas(tools), separators=(",", ":"))) <= 7_000
