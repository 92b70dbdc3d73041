"""Subagents: the task tool runs a child Agent in its own context (its own history, its definition's
instructions and tool subset) and gives the parent only the child's final message, bounded.

The child shares the parent's session: the same tool context (workspace, read ledger, undo journal, cancel
signal, permissions and approver), the same hooks (SubagentStop instead of Stop) and the same model unless
its definition names another: `model: small` (the built-in explore's) is the session's small model when one
is set, the main model otherwise. Its turns, calls and tokens count as the parent's (max_turns and budgets see
them, its cost at its own model's price); its events reach the parent's sink tagged with its id ("explore-1");
its messages are kept in the session folder under `agents/ID/`, and the parent's transcript records each run.
Each task call is decided by the definition it names: one for a read-only subagent is decided as an
auto-tier read-only call (it runs without asking, beside other read-only calls), any other asks first, so one
user agent that may edit does not make every explore call ask.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from pydantic import Field

from sneakycode.agent.events import Event
from sneakycode.agent.protocol import EventSink
from sneakycode.agent.roles import SMALL, Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation
from sneakycode.agent.subagent_definitions import AgentDefinition
from sneakycode.errors import ErrorCode, SneakyError
from sneakycode.permissions.gate import Approver, Declined, PendingCall, Remembered
from sneakycode.session.transcript import Transcript
from sneakycode.tools.base import Preview, Tier, Tool, ToolArgs, ToolContext, ToolResult

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent, RunResult

TASK_TOOL = "task"
MAX_ANSWER_CHARS = 4_000
DESCRIPTION_CHARS = 160  # of each definition's description, in the tool's description (sent on every request)


class TaskArgs(ToolArgs):
    agent: str = Field(description="subagent name")
    prompt: str = Field(description="all it needs: it sees nothing else")
    description: str | None = Field(None, description="3-5 words for the user")


class TaggedSink:
    """The parent's sink, with every event marked as this subagent's; one lock for all of a parent's children."""

    def __init__(self, parent: EventSink, agent_id: str, lock: threading.Lock) -> None:
        self.parent = parent
        self.agent_id = agent_id
        self.lock = lock

    def emit(self, event: Event) -> None:
        tagged = cast(Event, {**event, "agent": self.agent_id})
        with self.lock:
            self.parent.emit(tagged)


class _OneAtATime:
    """A subagent's approver: the parent's, one question at a time among parallel subagents, each call marked
    as this subagent's (a face shows its calls under their own ids)."""

    def __init__(self, inner: Approver, lock: threading.Lock, agent_id: str) -> None:
        self.inner = inner
        self.lock = lock
        self.agent_id = agent_id

    def approve(self, call: PendingCall, reason: str) -> bool | Declined | Remembered:
        with self.lock:
            return self.inner.approve(replace(call, agent=self.agent_id), reason)


class Subagents:
    """The subagent definitions of a session and the task tool that runs them; `attach` the parent Agent
    before its first run. `model_for` binds a definition's own model (its price registered; a ConfigError when it
    cannot run, e.g. unpriced under a cost budget)."""

    def __init__(
        self,
        definitions: dict[str, AgentDefinition],
        available: tuple[Tool, ...],
        model_for: Callable[[str], BoundModel] | None = None,
    ) -> None:
        self.definitions = definitions
        self.available = available
        self.model_for = model_for
        self.parent: Agent | None = None
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._events = threading.Lock()
        self._approvals = threading.Lock()
        self.tool = self._build_tool()
        # How a call for a read-only subagent is decided when the tool itself is not read-only (see decided_as).
        self._read_only_task = replace(self.tool, tier=Tier.AUTO, read_only=True, decided_as=None)

    def attach(self, parent: Agent) -> None:
        self.parent = parent

    def _build_tool(self) -> Tool:
        read_only = all(d.read_only(self.available) for d in self.definitions.values())
        listed = "; ".join(f"{d.name}: {_clip(d.description, DESCRIPTION_CHARS)}" for d in self.definitions.values())
        return Tool(
            name=TASK_TOOL,
            description=f"A subagent does a self-contained task in its own context; only its answer comes back. "
            f"Agents: {listed}",
            args_model=TaskArgs,
            func=self.run,
            tier=Tier.AUTO if read_only else Tier.CONFIRM,
            read_only=read_only,
            decided_as=None if read_only else self._decided_as,
            mcp=False,
            claude_names=("Task", "Agent"),
            headline="description",
            preview=lambda arguments: Preview(f"{arguments.get('agent', '?')}: {arguments.get('prompt', '')}"),
            example={"agent": "explore", "prompt": "Where is the retry logic of the HTTP client?"},
            guidance="To search or read widely, give the task to a subagent with task (explore): it answers "
            "without filling your context; independent tasks may run at the same time.",
        )

    def _decided_as(self, arguments: dict[str, Any], ctx: ToolContext) -> tuple[Tool, dict[str, Any]] | None:
        """A call naming a read-only definition is decided as an auto-tier read-only tool of the same name
        would be (deny rules and plan mode still apply); any other call by the tool's own confirm tier."""
        definition = self.definitions.get(str(arguments.get("agent")))
        if definition is None or not definition.read_only(self.available):
            return None
        return self._read_only_task, arguments

    def run(self, args: TaskArgs, ctx: ToolContext) -> ToolResult:
        """The task tool: run the named subagent to its end and return its final message."""
        from sneakycode.agent.loop import Agent

        parent = self.parent
        definition = self.definitions.get(args.agent)
        if parent is None:
            return ToolResult.fail(ErrorCode.INTERNAL_ERROR, "the task tool is not attached to an agent")
        if definition is None:
            return ToolResult.fail(
                ErrorCode.INVALID_ARGUMENTS, f"there is no subagent named {args.agent!r}",
                hint=f"Use one of: {', '.join(self.definitions)}.",
            )
        turns = parent.max_turns - parent.totals.turns
        if turns < 1:
            return ToolResult.fail(ErrorCode.SUBAGENT_FAILED, "no model turns are left for a subagent (max_turns)")
        agent_id = self._next_id(definition.name)
        sink = TaggedSink(parent.sink, agent_id, self._events)
        sink.emit({"type": "subagent", "agent": agent_id, "phase": "start", "prompt": args.prompt})
        try:
            bound = self._model_of(definition, parent)
        except SneakyError as exc:
            return ToolResult.fail(ErrorCode.SUBAGENT_FAILED, f"{agent_id} cannot run on {definition.model}: {exc}")
        folder = ctx.session_dir / "agents" / agent_id
        folder.mkdir(parents=True, exist_ok=True)
        transcript = Transcript(folder)
        approver = None if parent.approver is None else _OneAtATime(parent.approver, self._approvals, agent_id)
        # The parent's hooks, budgets and spending: a subagent's tokens count, and it stops when they run out.
        child = Agent(
            Binding(bound, parent.small),
            Calls(ctx.for_subagent(), approver, definition.offered(self.available), parent.gate.unattended),
            Conversation(transcript=transcript, role=definition.prompt),
            replace(parent.config, sink=sink, main=False, mode=parent.mode, max_turns=turns),
        )
        try:
            result = child.work(args.prompt)
        finally:
            transcript.close()
            if bound.model is not parent.model and (parent.small is None or bound.model is not parent.small.model):
                close = getattr(bound.model, "close", None)  # a definition's own model: its connection ends here
                if callable(close):
                    close()
        parent.absorb(result)
        sink.emit({"type": "subagent", "agent": agent_id, "phase": "end", "prompt": args.prompt,
                   "status": result.status, "turns": result.turns})
        if parent.transcript is not None:
            with self._events:
                parent.transcript.write("subagent", agent=agent_id, definition=definition.name, prompt=args.prompt,
                                        status=result.status, turns=result.turns, message=result.message)
        return _answer(agent_id, result)

    def _model_of(self, definition: AgentDefinition, parent: Agent) -> BoundModel:
        """The model a definition runs on, its name (for its price), its window and its reply cap."""
        small = parent.small
        if definition.model == SMALL and small is not None:
            return small
        own = parent.bound
        if definition.model in (None, SMALL) or self.model_for is None:
            return own
        return self.model_for(definition.model)

    def _next_id(self, name: str) -> str:
        with self._lock:
            self._counts[name] = self._counts.get(name, 0) + 1
            return f"{name}-{self._counts[name]}"


def _answer(agent_id: str, result: RunResult) -> ToolResult:
    text = _clip(result.message, MAX_ANSWER_CHARS)
    if len(result.message) > MAX_ANSWER_CHARS:
        text += (f"\n[{agent_id}'s answer cut: {len(result.message) - MAX_ANSWER_CHARS:,} more characters; ask a "
                 "subagent for a shorter answer if you need the rest]")
    if result.status in ("finished", "answered"):
        return ToolResult.ok(text, agent=agent_id, turns=result.turns)
    if result.status == "cancelled":
        return ToolResult.fail(ErrorCode.CANCELLED, f"{agent_id} was cancelled", detail=text)
    return ToolResult.fail(ErrorCode.SUBAGENT_FAILED, f"{agent_id} stopped without an answer ({result.status})",
                           detail=text)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
