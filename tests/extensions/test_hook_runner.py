"""The hook runner in process, with real hook processes: parallel runs, combined answers, and the events the
loop fires without a tool call (SessionStart, Notification)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from sneakycode.agent.loop import Agent
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.extensions.hooks import HookRunner
from sneakycode.extensions.hooks_config import ConfiguredHook, HookSet
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext
from tests.agent.test_loop import Approver, Events, reply, tc


def python_hook(event: str, body: str, matcher: str = "", timeout: int = 30) -> ConfiguredHook:
    code = "import json, sys, time\nevent = json.load(sys.stdin)\n" + body
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    return ConfiguredHook(event, matcher, command, timeout, "test")


def runner(ctx: ToolContext, *hooks: ConfiguredHook) -> HookRunner:
    found = HookSet()
    for hook in hooks:
        found.by_event.setdefault(hook.event, []).append(hook)
    return HookRunner.for_session(found, ctx)


def decision(permission: str) -> str:
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": permission,
                                     "permissionDecisionReason": f"said {permission}"}}
    return f"time.sleep(1)\nprint({json.dumps(json.dumps(answer))})\n"


def test_hooks_matching_one_event_run_in_parallel_and_deny_wins(ctx: ToolContext) -> None:
    hooks = runner(ctx, python_hook("PreToolUse", decision("allow")), python_hook("PreToolUse", decision("deny")),
                   python_hook("PreToolUse", decision("ask")), python_hook("PreToolUse", "", matcher="read_.*"))
    started = time.monotonic()
    outcome = hooks.run("PreToolUse", {"tool_name": "run_command", "tool_input": {}}, subject="run_command")
    assert time.monotonic() - started < 2.9  # three one-second hooks side by side (in a row: over 3 s)
    assert outcome.blocked and outcome.permission == "deny" and outcome.reason == "said deny"


def test_a_failing_hook_is_a_notice_for_the_user_and_never_blocks(ctx: ToolContext) -> None:
    hooks = runner(ctx, python_hook("PreToolUse", "print('oops', file=sys.stderr)\nsys.exit(1)\n"))
    outcome = hooks.run("PreToolUse", {"tool_name": "x"}, subject="x")
    assert not outcome.blocked and len(outcome.notices) == 1
    assert "failed (exit code 1): oops" in outcome.notices[0]


def test_session_start_context_reaches_the_model_and_notification_runs_before_approval(
    ctx: ToolContext, tmp_path: Path
) -> None:
    asked = tmp_path / "asked.json"
    notify = f"open({str(asked)!r}, 'w').write(json.dumps(event))\n"
    hooks = runner(ctx, python_hook("SessionStart", "print('Branch: main; CI is red.')\n", matcher="startup"),
                   python_hook("Notification", notify))
    model = ScriptedModel([reply(tc("run_command", command="true")), reply(text="ok")])
    approver = Approver(True)
    agent = Agent(Binding(BoundModel(model)), Calls(ctx, approver), Conversation(),
                  RunConfig(Events(), main=True, hooks=hooks))
    agent.start_session("startup")
    assert agent.run_turn("go").status == "answered"
    assert "Branch: main; CI is red." in model.requests[0][0]["content"]
    seen: dict[str, Any] = json.loads(asked.read_text())
    assert seen["hook_event_name"] == "Notification" and seen["tool_name"] == "run_command"
    assert approver.asked and approver.asked[0][0] == "run_command"


def test_the_hook_events_are_one_list_shared_with_the_settings() -> None:
    """Issue 24: HookEvent is the list the runner, the loop's hook points and the loaders use; the settings have
    one field per event, in the same order, so pydantic refuses in TOML exactly the names the runner lacks."""
    from sneakycode.config.settings import HooksSettings
    from sneakycode.extensions.hooks_config import EVENTS

    assert tuple(HooksSettings.model_fields) == EVENTS
