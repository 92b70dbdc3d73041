"""PreToolUse and PostToolUse as gate steps: how a hook's answer changes a prepared call, and what the model is
told after a call ran.

A hook can never approve past a deny rule: its `allow` only turns an `ask` into `allow`, and a rewritten
input (`updatedInput`) is parsed, validated and decided again from scratch, so deny rules and plan mode
refuse it as they would the model's own call.

Hooks written for Claude Code match its tool names (`Bash`, `Edit|MultiEdit|Write`), so a hook's matcher is
tried on our name and on Claude Code's names for the tool; its input carries Claude Code's argument names
beside ours (`old_string` beside `old_str`), and a rewritten input is read back in either naming.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.extensions.hooks import HookOutcome, HookRunner
from sneakycode.permissions.decide import Decision, PermissionDecision
from sneakycode.permissions.gate import Gate, PreparedCall
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.claude_names import claude_input, claude_names, native_input

HOOK_RULE = "hook: PreToolUse"


def pre_tool_use(hooks: HookRunner, gate: Gate, prepared: PreparedCall) -> tuple[PreparedCall, HookOutcome]:
    """The call as the PreToolUse hooks leave it: refused (`blocked_by_hook`), prepared again from a rewritten
    input, or with its `ask` settled either way. A call that cannot run anyway is not shown to hooks."""
    aliases = claude_names(prepared.tool) if prepared.tool is not None else ()
    if prepared.failure is not None or not hooks.matching("PreToolUse", prepared.name, aliases):
        return prepared, HookOutcome()
    sent = _hook_input(prepared)
    outcome = hooks.run("PreToolUse", {"tool_name": prepared.name, "tool_input": sent}, subject=prepared.name,
                        aliases=aliases)
    if outcome.blocked:
        error = f"{prepared.name} was not run: a PreToolUse hook blocked it"
        failure = ToolResult.fail(ErrorCode.BLOCKED_BY_HOOK, error, detail=outcome.reason)
        return PreparedCall(prepared.name, prepared.arguments, prepared.tool, failure=failure), outcome
    if outcome.updated_input is not None:
        outcome.notices.append(f"a PreToolUse hook rewrote the input of {prepared.name}")
        updated = outcome.updated_input
        if prepared.tool is not None:
            updated = native_input(prepared.tool, sent, updated)
        prepared = gate.prepare(prepared.name, updated)
        if prepared.failure is not None:
            return prepared, outcome
    decision = prepared.decision
    if decision is None or outcome.permission is None:
        return prepared, outcome
    why = f": {outcome.permission_reason}" if outcome.permission_reason else ""
    commands = decision.commands
    if outcome.permission == "allow" and decision.decision is Decision.ASK:
        settled = PermissionDecision(Decision.ALLOW, f"a PreToolUse hook approved it{why}", HOOK_RULE, commands)
        prepared = replace(prepared, decision=settled)
    elif outcome.permission == "ask" and decision.decision is Decision.ALLOW:
        asked = PermissionDecision(Decision.ASK, f"a PreToolUse hook asks for approval{why}", HOOK_RULE, commands)
        prepared = replace(prepared, decision=asked)
    return prepared, outcome


@dataclass
class FileSnapshot:
    """The hashes of the files a call edits, taken before the PostToolUse hooks ran (a formatter may change them)."""

    digests: dict[str, str | None] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: ToolContext, prepared: PreparedCall) -> FileSnapshot:
        found = prepared.tool
        if found is None or not found.edits_files:
            return cls()
        return cls({value: _digest(ctx, value) for value, directory in found.path_arguments(prepared.arguments)
                    if not directory})

    def changed(self, ctx: ToolContext) -> list[str]:
        return [value for value, digest in self.digests.items() if _digest(ctx, value) != digest]


def post_tool_use(
    hooks: HookRunner, ctx: ToolContext, prepared: PreparedCall, result: ToolResult
) -> tuple[list[str], HookOutcome]:
    """Run the PostToolUse hooks of a call that ran; the notes the model gets below the result (a blocking
    hook's reason, added context, files a hook changed after the call) and the outcome (for its notices)."""
    aliases = claude_names(prepared.tool) if prepared.tool is not None else ()
    if not hooks.matching("PostToolUse", prepared.name, aliases):
        return [], HookOutcome()
    before = FileSnapshot.of(ctx, prepared)
    fields = {"tool_name": prepared.name, "tool_input": _hook_input(prepared), "tool_response": result.to_dict()}
    outcome = hooks.run("PostToolUse", fields, subject=prepared.name, aliases=aliases)
    notes = [f"PostToolUse hook: {outcome.reason}"] if outcome.blocked else []
    notes += [f"PostToolUse hook: {text}" for text in outcome.context]
    changed = before.changed(ctx)
    if changed:
        notes.append(
            f"A PostToolUse hook changed {', '.join(changed)} after this call (a formatter, say); read it again "
            "before you edit it."
        )
    return notes, outcome


def _hook_input(prepared: PreparedCall) -> dict[str, Any]:
    """The call's arguments with Claude Code's names for them added, which its hook scripts read."""
    return claude_input(prepared.tool, prepared.arguments) if prepared.tool is not None else prepared.arguments


def _digest(ctx: ToolContext, value: str) -> str | None:
    """What the file holds, to tell whether a hook changed it; None when there is no regular file there. It is
    opened through the workspace's regular-file reader, so a FIFO the call was aimed at is not waited on, and
    a file over max_file_size_bytes (which no tool edits) is told by its size and time, not read."""
    ws = ctx.workspace
    try:
        opened = ws.open_file(value)
    except ToolError:
        return None
    with opened.fh:
        info = opened.info
        if info.st_size > ws.max_file_size_bytes:
            return f"{info.st_size}:{info.st_mtime_ns}"
        try:
            return hashlib.sha256(opened.fh.read(ws.max_file_size_bytes + 1)).hexdigest()
        except OSError:
            return None
