"""The one gate every caller goes through (the agent, `sneakycode tool`, the MCP server): a call is looked
up, parsed, validated and decided once, then asked about, refused or run.

A call that cannot run anyway (unknown tool, arguments that fail to parse or validate) is never decided or
asked about: its error is what the model needs. Without an Approver an `ask` is a refusal whose message
tells the model and the user exactly how to allow the call: the narrowest allow rule, and whatever the face
that started the run offers (`Unattended`: the command line's --yes; the gate itself names no flag).
Direct callers (a person typing `sneakycode tool`, an MCP client that asks its own user) have chosen the
call, so for them `ask` counts as approved; deny rules and plan mode still refuse.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from sneakycode.config import PermissionMode
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.permissions.decide import Decision, PermissionDecision, decide
from sneakycode.permissions.rules import denied_urls, hidden_paths, url_host
from sneakycode.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from sneakycode.tools.registry import cap_result, get_tool, parse_arguments, run, unknown_tool, validate

Outcome = Literal["denied", "approved", "rejected"]


@dataclass(frozen=True)
class Declined:
    """A person's "no, do this instead": false like a plain no, and `instead` goes to the model with the refusal."""

    instead: str

    def __bool__(self) -> bool:
        return False


@dataclass(frozen=True)
class Unattended:
    """How a face words a refusal when nobody can approve: `why` names the situation ("headless mode without
    --yes"), `how` the face's own way to approve such calls ("rerun with --yes ..."). Empty: neither is said."""

    why: str = ""
    how: str = ""


NOBODY = Unattended()  # a program's session: no flag to name


@dataclass(frozen=True)
class Remembered:
    """An answer for the rest of the session ("always" / "never"): true or false like a plain yes or no, and the
    session remembers it for every later call with the same key (api/approvals.py)."""

    allowed: bool

    def __bool__(self) -> bool:
        return self.allowed


@dataclass(frozen=True)
class PendingCall:
    """The call an Approver is asked about: the id the model gave it (what a face shows it by, so a question
    names exactly one call even when a reply holds several alike), its tool and its validated arguments.
    `agent`: the subagent that made it ("explore-1"; "" for the main agent), whose calls are numbered apart."""

    id: str
    name: str
    arguments: dict[str, Any]
    agent: str = ""


class Approver(Protocol):
    """Asked only when the permission decision is `ask`; True approves the call, False or Declined refuses it."""

    def approve(self, call: PendingCall, reason: str) -> bool | Declined | Remembered: ...


@dataclass
class PreparedCall:
    """One call, parsed, validated and decided. `failure` is set (and nothing else is) when it cannot run."""

    name: str
    arguments: dict[str, Any]
    tool: Tool | None = None
    args: ToolArgs | None = None
    decision: PermissionDecision | None = None
    failure: ToolResult | None = None
    decided_as: tuple[Tool, dict[str, Any]] | None = None  # the call it was decided as (see Tool.decided_as)
    id: str = ""  # the model's id for the call ("" for a direct call)

    @property
    def read_only(self) -> bool:
        """True when the call changes nothing: its tool is read-only, or it is decided as a read-only call (a
        task for a read-only subagent), so it may run beside other read-only calls."""
        found = self.decided_as[0] if self.decided_as is not None else self.tool
        return self.failure is None and found is not None and found.read_only

    @property
    def allowed(self) -> bool:
        """True when the call goes ahead without asking anyone (a call that fails on its own included)."""
        return self.failure is not None or (self.decision is not None and self.decision.decision is Decision.ALLOW)


@dataclass
class Verdict:
    """What the gate did with a call that needed more than `allow`: `refusal` is the result the model gets
    instead of running it (None: run it); `outcome` and `how_to_allow` are for the user."""

    decision: PermissionDecision
    outcome: Outcome
    refusal: ToolResult | None = None
    how_to_allow: str | None = None


class Gate:
    def __init__(
        self,
        ctx: ToolContext,
        approver: Approver | None = None,
        mode: PermissionMode | None = None,
        offered: tuple[Tool, ...] | None = None,
        unattended: Unattended = NOBODY,
    ) -> None:
        """`offered`: the tools this caller's model was given (None: every tool); others are unknown to it.
        `unattended`: the face's wording for an `ask` refused because there is no approver."""
        self.ctx = ctx
        self.approver = approver
        self.unattended = unattended
        self.mode = mode
        self.offered = None if offered is None else {t.name: t for t in offered}
        ctx.hidden = hidden_paths(ctx.loaded)
        ctx.url_denied = denied_urls(ctx.loaded)

    def offer(self, more: tuple[Tool, ...]) -> None:
        """Make more tools callable from now on (tools that exist only for this session, like a server's)."""
        self.offered = {**(self.offered if self.offered is not None else {}), **{t.name: t for t in more}}

    def withdraw(self, names: Collection[str]) -> None:
        """Stop offering these tools (a server that stopped): a call to one is an unknown tool from now on."""
        if self.offered is not None:
            self.offered = {name: found for name, found in self.offered.items() if name not in names}

    def prepare(self, name: str, raw_args: str | dict[str, Any] | None) -> PreparedCall:
        found = get_tool(name) if self.offered is None else self.offered.get(name)
        if found is None:
            return PreparedCall(name, {}, failure=unknown_tool(name, offered=self._offered_names()))
        try:
            arguments = parse_arguments(raw_args)
            args = validate(found, arguments)
        except ToolError as err:
            return PreparedCall(name, {}, found, failure=ToolResult.from_error(err))
        proxy = found.decided_as(arguments, self.ctx) if found.decided_as is not None else None
        if proxy is not None:
            decision = decide(proxy[0], proxy[1], self.ctx.loaded, self.ctx.workspace.root, self.mode,
                              self.ctx.workspace.extra_roots)
            if proxy[0].name != name:  # the same tool's variant (a read-only task) needs no explanation
                shown = proxy[0].headline_of(proxy[1])
                about = f"{proxy[0].name} `{shown}`" if shown else proxy[0].name
                decision = replace(decision, reason=f"decided as {about} would be: {decision.reason}")
            return PreparedCall(name, arguments, found, args, decision, decided_as=proxy)
        decision = decide(found, arguments, self.ctx.loaded, self.ctx.workspace.root, self.mode,
                          self.ctx.workspace.extra_roots)
        return PreparedCall(name, arguments, found, args, decision)

    def _offered_names(self) -> list[str] | None:
        return None if self.offered is None else list(self.offered)

    def check(self, call: PreparedCall) -> Verdict | None:
        """None when the call runs without asking (one bound to fail included: it fails with its own error);
        otherwise what happened: refused, approved or rejected."""
        if call.allowed or call.decision is None:
            return None
        decision = call.decision
        if decision.decision is Decision.DENY:
            return Verdict(decision, "denied", self.capped(refused(call.name, decision)))
        if self.approver is None:
            how = how_to_allow(suggested_rules(call, decision), self.unattended.how)
            why = f" ({self.unattended.why})" if self.unattended.why else ""
            refusal = ToolResult.fail(
                ErrorCode.PERMISSION_DENIED,
                f"{call.name} was not run: it needs approval ({decision.reason}) and nobody can approve it in this "
                f"run{why}",
                detail=how,
                hint="Do not retry it. Continue without it if you can; otherwise finish and tell the user what "
                "you could not do and how to allow it.",
            )
            return Verdict(decision, "denied", self.capped(refusal), how)
        failure = self._bound_to_fail(call)
        if failure is not None:
            # Nobody is asked about a call that would fail anyway: the model gets the error a run would give,
            # from the tool's own checks, as a call that cannot run (the terminal shows it as a failed call).
            call.failure = failure
            return None
        answer = self.approver.approve(PendingCall(call.id, call.name, call.arguments), decision.reason)
        if answer is True or (isinstance(answer, Remembered) and answer.allowed):
            return Verdict(decision, "approved")
        if isinstance(answer, Declined) and answer.instead.strip():
            said = answer.instead.strip()
            rejection = ToolResult.fail(
                ErrorCode.REJECTED_BY_USER, f"the user declined {call.name} and said: {said}",
                hint="Do what the user said instead; do not repeat the declined call.",
            )
        elif self.ctx.cancel.is_set():  # the question was withdrawn: the user stopped the turn, nobody said no
            rejection = ToolResult.fail(ErrorCode.CANCELLED, f"{call.name} was not run: the user cancelled the turn",
                                        hint="Nothing was refused; wait for the user's next request.")
        else:
            rejection = ToolResult.fail(ErrorCode.REJECTED_BY_USER, f"the user declined {call.name}")
        return Verdict(decision, "rejected", self.capped(rejection))

    def _bound_to_fail(self, call: PreparedCall) -> ToolResult | None:
        """The tool's own dry check (`Tool.dry_check`): the result a run would fail with now, or None."""
        found = call.tool
        if found is None or found.dry_check is None or call.args is None or call.decided_as is not None:
            return None
        try:
            found.dry_check(call.args, self.ctx)
        except ToolError as err:
            return self.capped(ToolResult.from_error(err))
        except OSError:  # the run reports what the system refused in its own words: let the user decide
            return None
        return None

    def run(self, call: PreparedCall) -> ToolResult:
        """Run a prepared call (its permission already settled by the caller)."""
        if call.failure is not None:
            return self.capped(call.failure)
        assert call.tool is not None and call.args is not None
        return run(call.tool, call.args, self.ctx)

    def capped(self, result: ToolResult) -> ToolResult:
        """Every result the gate hands out fits the output limit, refusals and bad calls included."""
        return cap_result(result, self.ctx.output_limit)

    def run_direct(self, name: str, raw_args: str | dict[str, Any] | None) -> ToolResult:
        """A call a person chose: `ask` counts as approved; deny rules and plan mode still refuse."""
        call = self.prepare(name, raw_args)
        if call.decision is not None and call.decision.decision is Decision.DENY:
            return self.capped(refused(call.name, call.decision))
        return self.run(call)


def refused(name: str, decision: PermissionDecision) -> ToolResult:
    return ToolResult.fail(ErrorCode.PERMISSION_DENIED, f"{name} was not run: {decision.reason}", rule=decision.rule)


def suggested_rules(call: PreparedCall, decision: PermissionDecision) -> list[str]:
    """The narrowest allow rules that would have let this exact call run."""
    found, name, arguments = call.tool, call.name, call.arguments
    if call.decided_as is not None:
        found, arguments = call.decided_as
        name = found.name
    if found is not None and found.command is not None:
        commands = decision.commands or [str(arguments.get(found.command, ""))]
        return [f"{name}({command})" for command in commands if command]
    host = url_host(found.url_of(arguments) or "") if found is not None else None
    if host:
        return [f"{name}(domain:{host})"]
    paths = found.path_arguments(arguments) if found is not None else []
    return [f"{name}({paths[0][0]})"] if paths else [name]


def how_to_allow(rules: list[str], approve: str = "") -> str:
    """How the user allows such a call: the face's own way (`approve`, e.g. "rerun with --yes"), or an allow rule."""
    listed = ", ".join(json.dumps(rule) for rule in rules)
    first = f"{approve}, or add" if approve else "add"
    return (f"To allow it, the user can {first} an allow rule to .sneakycode/config.toml:\n[permissions]\n"
            f"allow = [{listed}]")
