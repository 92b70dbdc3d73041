"""Hooks: programs the user configured, run on agent events with Claude Code's protocol, so its hook scripts
work unchanged.

A hook gets the event as one JSON object on stdin (`session_id`, `transcript_path`, `cwd`,
`hook_event_name`, and the event's own fields: `tool_name`, `tool_input`, `tool_response`, `prompt`, ...).
Exit 0 goes on (stdout is context where the event takes it: UserPromptSubmit, SessionStart); exit 2 blocks
with stderr as the reason, where the event can be blocked; any other exit is a failure the user is shown,
never the model. JSON on stdout is read instead: `decision`/`reason`, `systemMessage` and
`hookSpecificOutput` (`permissionDecision`, `permissionDecisionReason`, `updatedInput`, `additionalContext`).

Hooks run through `process/` like commands: own process group killed at the timeout or on cancel, stdin
fed and closed, bounded output, credentials stripped from the environment. They are not sandboxed: the
user (or a project they trusted) chose to run them, as in Claude Code. Several hooks matching one event run
in parallel.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.extensions.hooks_config import ConfiguredHook, HookEvent, HookSet
from sneakycode.permissions.gate import Approver, Declined, PendingCall, Remembered
from sneakycode.process.environment import command_environment, shell_argv
from sneakycode.process.supervise import ProcessResult, run_process
from sneakycode.session.transcript import TRANSCRIPT
from sneakycode.tools.context import ToolContext

# Events whose hook may refuse what is about to happen (exit 2 or `decision: block`).
BLOCKING_EVENTS: frozenset[HookEvent] = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop",
                                                   "SubagentStop"})
# Events whose plain stdout (exit 0) is added for the model, as Claude Code does.
CONTEXT_EVENTS: frozenset[HookEvent] = frozenset({"UserPromptSubmit", "SessionStart"})
OUTPUT_LIMIT = 64 << 10  # bytes kept of each stream of a hook
CONTEXT_LIMIT = 10_000  # characters of context one hook may add for the model
MAX_PARALLEL_HOOKS = 4
KILL_GRACE_SECONDS = 2.0
PERMISSION_ORDER = ("allow", "ask", "deny")  # a later one wins when hooks disagree


@dataclass
class HookOutcome:
    """What the hooks of one event said, combined: `reason` is for the model when `blocked`; `notices` are
    for the user only."""

    blocked: bool = False
    reason: str = ""
    context: list[str] = field(default_factory=list)
    permission: str | None = None
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    notices: list[str] = field(default_factory=list)

    def merge(self, other: HookOutcome) -> None:
        if other.blocked:
            self.blocked = True
            self.reason = "\n".join(part for part in (self.reason, other.reason) if part)
        self.context += other.context
        self.notices += other.notices
        rank = PERMISSION_ORDER.index
        if other.permission is not None and (self.permission is None or rank(other.permission) > rank(self.permission)):
            self.permission, self.permission_reason = other.permission, other.permission_reason
        if self.updated_input is None:
            self.updated_input = other.updated_input


class HookRunner:
    """Runs the configured hooks of an event in the workspace and reads what they answer."""

    def __init__(
        self,
        hooks: HookSet,
        *,
        cwd: Path,
        session_id: str,
        transcript_path: Path,
        env: dict[str, str],
        cancel: threading.Event | None = None,
    ) -> None:
        self.hooks = hooks
        self.cwd = cwd
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.env = {**env, "CLAUDE_PROJECT_DIR": str(cwd), "SNEAKYCODE_PROJECT_DIR": str(cwd)}
        self.cancel = cancel

    @classmethod
    def for_session(cls, hooks: HookSet, ctx: ToolContext) -> HookRunner:
        """A runner for a tool session: its workspace, transcript and cancel, and the environment commands get."""
        shell = ctx.settings.tools.shell
        key_env = [name for name in (ctx.settings.api_key_env, ctx.settings.tools.web.search.key_variable) if name]
        env = command_environment(also_remove=key_env, keep=shell.env_keep, strip=shell.env_strip)
        return cls(hooks, cwd=ctx.workspace.root, session_id=ctx.session_id,
                   transcript_path=ctx.session_dir / TRANSCRIPT, env=env, cancel=ctx.cancel)

    def matching(self, event: HookEvent, subject: str = "", aliases: tuple[str, ...] = ()) -> list[ConfiguredHook]:
        """The hooks of `event` whose matcher takes `subject` (the tool name, SessionStart's source, ...) or one
        of its `aliases` (Claude Code's names for the tool, which its hook scripts match)."""
        subjects = (subject, *aliases)
        return [hook for hook in self.hooks.by_event.get(event, [])
                if any(_matches(hook.matcher, name) for name in subjects)]

    def run(
        self, event: HookEvent, fields: dict[str, Any], *, subject: str = "", aliases: tuple[str, ...] = (),
        cancellable: bool = True,
    ) -> HookOutcome:
        """Run every hook of `event` that matches `subject` (or an alias), in parallel, and combine their answers.
        Not `cancellable`: Ctrl-C does not stop them (SessionEnd, which runs after a cancelled run); timeouts do."""
        chosen = self.matching(event, subject, aliases)
        outcome = HookOutcome()
        if not chosen:
            return outcome
        payload = json.dumps(
            {"session_id": self.session_id, "transcript_path": str(self.transcript_path), "cwd": str(self.cwd),
             "hook_event_name": event, **fields},
            ensure_ascii=False, default=str,
        ).encode("utf-8")
        if len(chosen) == 1:
            answers = [self._run_one(chosen[0], payload, cancellable)]
        else:
            with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_HOOKS, len(chosen))) as pool:
                answers = list(pool.map(lambda hook: self._run_one(hook, payload, cancellable), chosen))
        for answer in answers:
            outcome.merge(answer)
        return outcome

    def _run_one(self, hook: ConfiguredHook, payload: bytes, cancellable: bool) -> HookOutcome:
        try:
            result = run_process(
                shell_argv(hook.command), cwd=self.cwd, env=self.env, timeout=hook.timeout,
                capture_limit=OUTPUT_LIMIT, cancel=self.cancel if cancellable else None,
                kill_grace=KILL_GRACE_SECONDS, stdin=payload,
            )
        except OSError as exc:
            return HookOutcome(notices=[f"{_named(hook)} could not be started: {exc}"])
        return interpret(hook, result)


def interpret(hook: ConfiguredHook, result: ProcessResult) -> HookOutcome:
    """One hook's answer, by Claude Code's rules: its exit code, or the JSON it printed."""
    ending = result.ending
    stdout = result.stdout.decode("utf-8", errors="replace").strip()
    stderr = result.stderr.decode("utf-8", errors="replace").strip()
    if ending.timed_out:
        return HookOutcome(notices=[f"{_named(hook)} timed out after {hook.timeout} s and was killed"])
    if ending.cancelled:
        return HookOutcome(notices=[f"{_named(hook)} was cancelled"])
    if ending.exit_code == 2:
        reason = stderr or f"a {hook.event} hook exited with code 2 without saying why"
        if hook.event in BLOCKING_EVENTS:
            return HookOutcome(blocked=True, reason=reason)
        return HookOutcome(notices=[f"{_named(hook)}: {reason}"])
    if ending.exit_code != 0:
        how = f"exit code {ending.exit_code}" if ending.exit_code is not None else f"signal {ending.signal_name}"
        return HookOutcome(notices=[f"{_named(hook)} failed ({how}){': ' + _first_line(stderr) if stderr else ''}"])
    if stdout.startswith("{"):
        try:
            answer = json.loads(stdout)
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            return _from_json(hook, answer)
    if stdout and hook.event in CONTEXT_EVENTS:
        return HookOutcome(context=[_bounded(stdout)])
    return HookOutcome()


def _from_json(hook: ConfiguredHook, answer: dict[str, Any]) -> HookOutcome:
    outcome = HookOutcome()
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    reason = str(answer.get("reason") or "")
    decision = answer.get("decision")
    if decision == "block" and hook.event in BLOCKING_EVENTS:
        outcome.blocked = True
        outcome.reason = reason or f"a {hook.event} hook blocked it"
    elif decision == "approve":  # Claude Code's older PreToolUse field, the same as permissionDecision allow
        outcome.permission, outcome.permission_reason = "allow", reason
    permission = specific.get("permissionDecision")
    if permission in PERMISSION_ORDER and hook.event == "PreToolUse":
        outcome.permission = str(permission)
        outcome.permission_reason = str(specific.get("permissionDecisionReason") or reason)
        if permission == "deny":
            outcome.blocked = True
            outcome.reason = outcome.permission_reason or "a PreToolUse hook denied it"
    updated = specific.get("updatedInput")
    if isinstance(updated, dict) and hook.event == "PreToolUse":
        outcome.updated_input = updated
    context = specific.get("additionalContext")
    if isinstance(context, str) and context.strip():
        outcome.context.append(_bounded(context.strip()))
    message = answer.get("systemMessage")
    if isinstance(message, str) and message.strip():
        outcome.notices.append(f"{hook.event} hook: {message.strip()}")
    return outcome


class NotifyingApprover:
    """An Approver that runs the Notification hooks before the user is asked (a desktop ping, a chat message)."""

    def __init__(self, inner: Approver, hooks: HookRunner, report: Callable[[HookOutcome], None]) -> None:
        self.inner = inner
        self.hooks = hooks
        self.report = report

    def approve(self, call: PendingCall, reason: str) -> bool | Declined | Remembered:
        message = f"SneakyCode needs your permission to use {call.name}"
        self.report(self.hooks.run("Notification", {"message": message, "tool_name": call.name}))
        return self.inner.approve(call, reason)


def _matches(matcher: str, subject: str) -> bool:
    if matcher in ("", "*"):
        return True
    try:
        return re.fullmatch(matcher, subject) is not None
    except re.error:
        return matcher == subject  # not a regex: the exact name, as Claude Code treats a plain string


def _named(hook: ConfiguredHook) -> str:
    shown = hook.command if len(hook.command) <= 60 else hook.command[:57] + "..."
    return f"{hook.event} hook `{shown}` (from {hook.source})"


def _first_line(text: str) -> str:
    line = text.splitlines()[0] if text else ""
    return line[:300]


def _bounded(text: str) -> str:
    if len(text) <= CONTEXT_LIMIT:
        return text
    return f"{text[:CONTEXT_LIMIT]}\n[hook output cut: {len(text) - CONTEXT_LIMIT} more characters]"
