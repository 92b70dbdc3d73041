"""Between a tool call and its execution: the permission decision, then the Approver when it says `ask`.

A call that cannot run anyway (unknown tool, arguments that fail to parse or validate) passes straight to
the registry, which returns the error the model needs; nobody is asked to approve a call that will fail.
Without an Approver (headless mode without --yes) an `ask` is a denial whose message tells the model and
the user exactly how to allow the call: the --yes flag or an allow rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from sneakycode.agent.protocol import Approver, ToolCall
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.permissions.decide import Decision, PermissionDecision, decide
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.registry import get_tool, parse_arguments

PATH_FIELDS = ("file_path", "directory_path", "path")


@dataclass
class Verdict:
    """`refusal` is the result to give the model instead of running the call (None: run it); `event` is
    what to tell the user about the decision (None: nothing worth showing)."""

    refusal: ToolResult | None = None
    event: dict[str, Any] | None = None


class Gate:
    def __init__(self, ctx: ToolContext, approver: Approver | None, mode: str | None) -> None:
        self.ctx = ctx
        self.approver = approver
        self.mode = mode

    def _decision(self, call: ToolCall) -> tuple[PermissionDecision, dict[str, Any]] | None:
        """The decision for a call that would run, or None for one the registry will refuse anyway."""
        found = get_tool(call.name)
        if found is None:
            return None
        try:
            arguments = parse_arguments(call.arguments)
            found.args_model.model_validate(arguments)
        except (ToolError, ValidationError):
            return None
        decision = decide(call.name, arguments, self.ctx.loaded, self.ctx.workspace.root, self.mode)
        return decision, arguments

    def is_allowed(self, call: ToolCall) -> bool:
        """True when the call runs without asking anyone (so it may run alongside others)."""
        decided = self._decision(call)
        return decided is None or decided[0].decision is Decision.ALLOW

    def check(self, call: ToolCall) -> Verdict:
        decided = self._decision(call)
        if decided is None or decided[0].decision is Decision.ALLOW:
            return Verdict()
        decision, arguments = decided
        event: dict[str, Any] = {"decision": decision.decision.value, "reason": decision.reason, "rule": decision.rule}
        if decision.decision is Decision.DENY:
            event["outcome"] = "denied"
            refused = ToolResult.fail(ErrorCode.PERMISSION_DENIED, f"{call.name} was not run: {decision.reason}")
            return Verdict(refused, event)
        if self.approver is None:
            rules = suggested_rules(call.name, arguments, decision)
            how = how_to_allow(rules)
            event.update(outcome="denied", how_to_allow=how)
            refusal = ToolResult.fail(
                ErrorCode.PERMISSION_DENIED,
                f"{call.name} was not run: it needs approval ({decision.reason}) and nobody can approve it in this "
                "run (headless mode without --yes)",
                detail=how,
                hint="Do not retry it. Continue without it if you can; otherwise finish and tell the user what "
                "you could not do and how to allow it.",
            )
            return Verdict(refusal, event)
        if self.approver.approve(call.name, arguments, decision.reason):
            event["outcome"] = "approved"
            return Verdict(None, event)
        event["outcome"] = "rejected"
        return Verdict(ToolResult.fail(ErrorCode.REJECTED_BY_USER, f"the user declined {call.name}"), event)


def suggested_rules(name: str, arguments: dict[str, Any], decision: PermissionDecision) -> list[str]:
    """The narrowest allow rules that would have let this exact call run."""
    if name == "run_command":
        commands = decision.commands or [str(arguments.get("command", ""))]
        return [f"run_command({command})" for command in commands if command]
    for field in PATH_FIELDS:
        if isinstance(arguments.get(field), str):
            return [f"{name}({arguments[field]})"]
    return [name]


def how_to_allow(rules: list[str]) -> str:
    listed = ", ".join(json.dumps(rule) for rule in rules)
    return (
        "To allow it, the user can rerun with --yes (approves every call no deny rule blocks), or add an allow "
        f"rule to .sneakycode/config.toml:\n[permissions]\nallow = [{listed}]"
    )
