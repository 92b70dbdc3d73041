"""The agent loop: model turn -> tool calls -> permission -> tool -> result -> next turn.

The loop runs tools only through `permissions.gate` (each call parsed, validated and decided once), asks
only through an `Approver` and reports only through an `EventSink` (the typed events of `agent.events`).
Every tool call in a reply gets exactly one tool message, whatever happens to it (denied, rejected,
cancelled, never reached), so the history is always a valid request. What a tool is (read-only, ends the
run) it learns from the tool's own facets, never from its name.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from sneakycode.agent import compaction_auto
from sneakycode.agent.budgets import BudgetKeeper, Budgets, Spending
from sneakycode.agent.calls import ToolCalls
from sneakycode.agent.context import ContextManager, repair_history
from sneakycode.agent.feedback import NUDGE, RepeatWatch, no_answer_message
from sneakycode.agent.first_request import compose_request
from sneakycode.agent.hook_points import HookPoints
from sneakycode.agent.images import user_message
from sneakycode.agent.messages import AssistantMessage, Message, SystemMessage, UserMessage, history_from
from sneakycode.agent.model_turns import ModelTurns
from sneakycode.agent.offered import OfferedTools
from sneakycode.agent.prompts import compose_system_prompt, resumed_system_prompt
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.agent.results import RunResult, RunStatus
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.agent.tally import Tally
from sneakycode.agent.watch import RunWatch
from sneakycode.config import PermissionMode
from sneakycode.errors import ModelError, SneakyError
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ImagePart, Tool
from sneakycode.tools.registry import all_tools

DEFAULT_CONTEXT_WINDOW = 32_768
REPAIRED = "answered calls left without a result"
RESUMED_NOTE = "This session was resumed: files read earlier count as unread, so read a file again before you edit it."
HOOKS_CONTEXT = "# Session context from hooks"


class Agent(ModelTurns, ToolCalls):
    """Runs requests against one ChatModel in one tool session; `history` is the message list so far.

    Built from four groups (agent/setup.py, agent/roles.py): `binding`, the models it runs on; `calls`, the
    tool side; `conversation`, where the conversation starts and is recorded; `config`, how its runs go.
    Helpers (compaction, the task tool) change it only through its methods."""

    def __init__(self, binding: Binding, calls: Calls, conversation: Conversation, config: RunConfig) -> None:
        ctx, sink, settings = calls.ctx, config.sink, calls.ctx.settings
        self.ctx = ctx
        self.sink = sink
        self.approver = calls.approver
        self.main = config.main
        self.hooks = HookPoints(config.hooks, sink, main=config.main)
        offered = all_tools() if calls.tools is None else calls.tools
        self.gate = Gate(ctx, self.hooks.approver(calls.approver), PermissionMode(config.mode) if config.mode else None,
                         offered=offered, unattended=calls.unattended)
        self.max_turns = config.max_turns or settings.max_turns
        bound = self._fitted(binding.model)
        self.model, self.model_name, self.small = bound.model, bound.name, binding.small
        self.context = ContextManager(bound.window, ctx.workspace, reserve=bound.reserve)
        self._compacted_at = -1  # the session turn of the last automatic compaction: at most one per turn
        self.transcript = conversation.transcript
        self.offered = OfferedTools(self.gate, offered)
        notices: list[str] = []
        self._prompt_parts = (conversation.skills_prompt, conversation.system_prompt, conversation.role)
        prompt = self._prompt = compose_system_prompt(ctx.workspace, offered, notices, *self._prompt_parts)
        self.checkpoints = checkpoints = conversation.checkpoints
        self.session_turns = conversation.session_turns  # model turns across the session: what checkpoints count
        for notice in [*notices, checkpoints.notice if checkpoints else None]:
            self._notice(notice)
        history = conversation.history
        resumed = history_from(history or [], "the resumed session")  # outside messages: checked here and in rewound
        system: SystemMessage = {"role": "system", "content": resumed_system_prompt(prompt, resumed)}
        self.history: list[Message] = [system, *(m for m in resumed if m["role"] != "system")]
        # What a resumed session must be told goes into its first new user message, after the history: the
        # system prompt and every earlier message stay byte for byte what the server has cached.
        self._session_notes: list[str] = [f"[{RESUMED_NOTE}]"] if history else []
        if repair_history(self.history) and self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason=REPAIRED)
        self.repeats = RepeatWatch()
        self._reasoned = ""  # the reasoning of the request under way streamed so far (reasoning_delta events)
        spending = config.spending or Spending()
        self.tally = Tally(spending)
        self.budgets = BudgetKeeper(config.budgets or Budgets(), spending)
        # What a subagent inherits: the same hooks, budgets and spending (its tokens count, it stops with them).
        self.config = replace(config, spending=spending, budgets=self.budgets.budgets)
        self.fit_output_budget()
        self._images: list[tuple[str, ImagePart]] = []  # tool results' images, sent after the reply's results
        self.watch = RunWatch(sink.emit, settings.stall_seconds, first_byte_limit=settings.request_timeout,
                              stall_limit=settings.stall_timeout or settings.stream_idle_timeout)

    def _fitted(self, bound: BoundModel) -> BoundModel:
        """`bound` with its window filled in: a model built without a binding (0) gets the configured one."""
        window = bound.window or self.ctx.settings.context_window or DEFAULT_CONTEXT_WINDOW
        return replace(bound, window=window)

    @property
    def cancel(self) -> threading.Event:
        """Set it (from any thread or a signal handler) to stop the model stream or the running command."""
        return self.ctx.cancel

    @property
    def mode(self) -> PermissionMode:
        """The permission mode in force: the one set for this session, else the configured one."""
        return self.gate.mode or self.ctx.settings.permissions.mode

    @property
    def bound(self) -> BoundModel:
        """The model it runs on now: its client, name, window and reply cap."""
        return BoundModel(self.model, self.model_name, self.context.window, self.context.reserve)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools array every request carries."""
        return self.offered.schemas

    @property
    def tools_tokens(self) -> int:
        return self.offered.tokens

    @property
    def totals(self) -> RunResult:
        """The run under way's turns, calls and tokens (the last run's once it ended)."""
        return self.tally.totals

    @property
    def spending(self) -> Spending:
        """What the session used so far (its subagents' included), and at which prices."""
        return self.tally.spending

    def use_model(self, bound: BoundModel, *, fit: bool = True) -> BoundModel:
        """Run on `bound` from the next request on; returns the model it replaces (closing it is the caller's).
        `fit`: its window and reply cap replace the old ones (a model switch); False keeps them (a command's
        model for one request, on the same server)."""
        before = self.bound
        self.model, self.model_name = bound.model, bound.name
        if fit:
            fitted = self._fitted(bound)
            self.context.window, self.context.reserve = fitted.window, fitted.reserve
            self.fit_output_budget()
        return before

    def use_small(self, bound: BoundModel | None) -> BoundModel | None:
        """The model for chores (summaries, `model: small` subagents) from now on; returns the one it replaces."""
        before, self.small = self.small, bound
        return before

    def take_session_notes(self) -> list[str]:
        """What the next request must tell the model first (a resumed session's note, hooks' context); consumed."""
        notes, self._session_notes = self._session_notes, []
        return notes

    def set_mode(self, mode: PermissionMode | str) -> None:
        """Switch the permission mode for the rest of the session (the next call is decided under it)."""
        self.gate.mode = PermissionMode(mode)

    def offer_tools(self, tools: tuple[Tool, ...]) -> None:
        """Tools that join the model's list from the next request on (those a search tool found)."""
        self.offered.offer(tools)

    def withdraw_tools(self, names: Collection[str], note: str) -> None:
        """Tools that leave the model's list (their server stopped); `note` tells the user why."""
        self.offered.withdraw(names)
        self.sink.emit({"type": "notice", "message": note})

    def set_tools(self, tools: tuple[Tool, ...], reason: str) -> None:
        """Offer exactly `tools` from the next request on (a model switch re-chooses the edit tool), with the
        system prompt's tool guidance to match, and tool output sized to the room left; the conversation goes on."""
        with self.offered.lock:
            self.offered.replace(tools)
            prompt = compose_system_prompt(self.ctx.workspace, tools, [], *self._prompt_parts)
            system = self.history[0]
            tail = str(system["content"])[len(self._prompt):]  # the resumed note, hooks' session context
            system["content"] = prompt + tail
            self._prompt = prompt
        self.fit_output_budget()
        if self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason=reason)

    def clear(self) -> None:
        """Start a fresh conversation in the same session: the system prompt stays, and every file counts as
        unread again, so the model reads before it edits."""
        self.replace_conversation([], "cleared by the user")

    def replace_conversation(self, messages: list[Message], reason: str) -> None:
        """Everything after the system prompt becomes `messages` (a /compact summary, nothing after /clear),
        written to the transcript with `reason`; every file counts as unread again."""
        self.history[1:] = messages
        self.ctx.workspace.ledger.clear()
        if self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason=reason)

    def rewound(self, messages: list[dict[str, Any]], turns: int) -> None:
        """Continue from a conversation a rewind took back (already in the transcript); files count as unread.
        A ConfigError when `messages` are not chat messages (the history is then left as it was)."""
        self.history[1:] = [m for m in history_from(messages, "the conversation to continue") if m["role"] != "system"]
        self.session_turns = turns
        self.ctx.workspace.ledger.clear()

    # ---- for the compaction helpers (agent/compaction_auto.py, compaction_now.py) ------------------------

    @property
    def compacted_this_turn(self) -> bool:
        """Whether this model turn compacted already (automatic compaction runs at most once a turn)."""
        return self._compacted_at == self.session_turns

    def compacted(self, reason: str) -> None:
        """The history was compacted automatically in this turn: recorded with `reason`, and the user told."""
        self._compacted_at = self.session_turns
        if self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason=reason)
        self.sink.emit({"type": "notice", "message": reason})

    def fit_output_budget(self) -> None:
        """Size each tool's output to the room the window leaves besides the system prompt and the tools."""
        self.ctx.output_budget = self.context.output_budget(self.fixed_tokens())

    def start_session(self, source: str) -> None:
        """Run the SessionStart hooks (`source`: startup, resume or clear). At startup and after /clear what they
        add is the system prompt's last section, fixed from then on; on a resume it joins the first new user
        message instead, so the resumed prefix (the saved system prompt and history) is sent unchanged."""
        context = self.hooks.session_start(source)
        if source == "resume":
            if context:
                self._session_notes.append(f"{HOOKS_CONTEXT}\n{context}")
            return
        system = self.history[0]
        if system["role"] == "system":  # always: compaction and rewinds keep the system prompt first
            # Replaced, never appended to: /clear runs the hooks again, and the section must not pile up.
            system["content"] = self._prompt + (f"\n\n{HOOKS_CONTEXT}\n{context}" if context else "")

    def absorb(self, other: RunResult) -> None:
        """Count a subagent's turns, calls and tokens as this run's (max_turns and budgets see them)."""
        self.tally.absorb(other)  # subagents run in parallel: the tally locks

    def run_turn(self, request: str, images: list[ImagePart] | None = None) -> RunResult:
        """Work on one user request (with images attached, for a model that takes them) until the model
        finishes, answers, hits max_turns, fails or is cancelled."""
        self.cancel.clear()
        return self.work(request, images)

    def work(self, request: str, images: list[ImagePart] | None = None) -> RunResult:
        """run_turn without clearing the cancel signal: a subagent shares its parent's, and must not swallow a
        Ctrl-C pressed before it started."""
        self.tally.start()
        refused, request = self.hooks.prompt(request)
        if refused is not None:
            return self._end("error", f"A UserPromptSubmit hook refused the request: {refused}")
        if len(self.history) == 1 and self.transcript is not None:
            self.transcript.message(self.history[0])
        request = compose_request(self, request)  # the session notes; the repository map on a first request
        self._append(user_message(request, images or []))
        self.budgets.arm(self.cancel.set)
        try:
            return self._work()
        except SneakyError:  # on purpose (a provider or configuration failure): the caller says what it is
            raise
        except Exception as exc:  # a bug in the loop: the run ends as an error, and the history stays sendable
            self._internal_error("the agent loop", exc)
            if repair_history(self.history) and self.transcript is not None:
                self.transcript.write("history", messages=self.history, reason=REPAIRED)
            return self._end("error", f"The run stopped on an internal error (a bug): {type(exc).__name__}: {exc}")
        finally:
            self.budgets.disarm()

    def _work(self) -> RunResult:
        nudged = False
        while self.totals.turns < self.max_turns:
            if self.cancel.is_set():
                return self._end("cancelled", "Cancelled before the next model turn.")
            exhausted = self.budgets.exhausted()
            if exhausted is not None:
                self.totals.budget = exhausted
                return self._end("budget", self.budgets.describe(exhausted))
            self.totals.turns += 1
            self.session_turns += 1
            if self.transcript is not None:
                self.transcript.write("turn", turn=self.session_turns)
            self.sink.emit({"type": "turn", "turn": self.totals.turns})
            try:
                compaction_auto.fit_request(self)
                reply = self._complete()
            except SneakyError as exc:
                self.totals.error_kind = exc.kind if isinstance(exc, ModelError) else None
                return self._end("error", f"The model request failed: {exc}")
            if self.cancel.is_set():
                self._account(reply)
                if reply.content:
                    self._append(AssistantMessage(role="assistant", content=reply.content))
                return self._end("cancelled", "Cancelled while the model was answering.")
            self._record_reply(reply)
            self._account(reply)
            if not reply.tool_calls:
                if reply.content.strip():
                    if (more := self.hooks.stop(reply.content, self.cancel)) is not None:
                        self._append(UserMessage(role="user", content=more))
                        continue
                    return self._end("answered", reply.content)
                if nudged:
                    return self._end("error", no_answer_message(reply))
                nudged = True
                self._append(UserMessage(role="user", content=NUDGE))
                continue
            final = self._run_reply(reply)
            if final is None and (stuck := self.repeats.take_stuck()) is not None:
                return self._repeating(stuck)
            if final is not None:
                if (more := self.hooks.stop(final, self.cancel)) is not None:
                    self._append(UserMessage(role="user", content=more))
                    continue
                return self._end("finished", final)
            if self.cancel.is_set():
                return self._end("cancelled", "Cancelled while tools were running.")
        return self._end(
            "turn_limit",
            f"Stopped after {self.max_turns} model turn{'' if self.max_turns == 1 else 's'} (the max_turns limit) "
            "before the task was finished.",
        )

    def _complete(self) -> AssistantTurn:
        """One model request; when the server says the history is too long (our estimate was low: the last
        resort), shrink the assumed window below what was sent, compact, and try once more if it fits."""
        try:
            return self._watched_complete()
        except ModelError as exc:
            if exc.kind != "context_length":
                raise
            compaction_auto.after_context_length(self, exc)
            return self._watched_complete()

    def _end(self, status: RunStatus, message: str) -> RunResult:
        self._notice(self.checkpoints.end_of_run(self.session_turns) if self.checkpoints else None)
        if status == "cancelled" and self.budgets.timed_out:  # the wall clock cancelled it, not a person
            status, message, self.totals.budget = "budget", self.budgets.describe("timeout"), "timeout"
        self.totals.status = status
        self.totals.message = message
        if self.transcript is not None:
            self.transcript.write("outcome", status=status, message=message, turns=self.totals.turns)
        return self.totals


__all__ = ["Agent", "Binding", "BoundModel", "Calls", "Conversation", "RunConfig", "RunResult", "RunStatus"]
