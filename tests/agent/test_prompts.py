"""Hardening class 5: the project instruction files (AGENTS.md, .sneakycode/context.md) come with the
repository, so they are opened only as regular files, never waited on, and one that cannot be used is
skipped with a notice the user sees."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sneakycode.agent.loop import Agent
from sneakycode.agent.prompts import base_prompt, build_system_prompt
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext


def test_a_fifo_or_device_as_instructions_is_skipped_with_a_notice(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 5: an AGENTS.md that is a FIFO hung the start of every run."""
    os.mkfifo(ws / "AGENTS.md")
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "context.md").symlink_to("/dev/zero")
    notices: list[str] = []
    assert build_system_prompt(ctx.workspace, notices=notices) == base_prompt()
    assert len(notices) == 2
    assert notices[0].startswith("AGENTS.md was not added to the instructions") and "FIFO" in notices[0]
    assert ".sneakycode/context.md was not added" in notices[1] and "outside the workspace" in notices[1]


def test_missing_instruction_files_give_no_notice(ctx: ToolContext) -> None:
    notices: list[str] = []
    build_system_prompt(ctx.workspace, notices=notices)
    assert notices == []


def test_the_agent_shows_the_notice_and_runs(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 5, through the agent: the notice is an event, and the run goes on."""
    os.mkfifo(ws / "AGENTS.md")
    events: list[dict[str, Any]] = []

    class Sink:
        def emit(self, event: dict[str, Any]) -> None:
            events.append(event)

    done = AssistantTurn("", [ToolCall("call_1", "finish", '{"message": "ok"}')], usage=Usage(1, 1))
    agent = Agent(Binding(BoundModel(ScriptedModel([done]))), Calls(ctx, None), Conversation(),
                  RunConfig(Sink(), main=True))
    assert agent.run_turn("Hello").status == "finished"
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert any("AGENTS.md was not added" in notice for notice in notices)
