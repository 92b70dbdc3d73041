"""The agent loop: model turn -> tool calls -> permission -> tool -> result -> next turn.

The loop runs tools only through `permissions.gate` (each call parsed, validated and decided once), asks
only through an `Approver` and reports only through an `EventSink` (the typed events of `agent.events`).
Every tool call in a reply gets exactly one tool message, whatever happens to it (denied, rejected,
cancelled, never reached), so the history is always a valid request. What a tool is (read-only, ends the
run) it learns from the tool's own facets, never from its name.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection
from typing import Any

from sneakycode.agent import compaction_auto
from sneakycode.agent.budgets import BudgetKeeper, Budgets, Spending
from sneakycode.agent.calls import ToolCalls
from sneakycode.agent.context import ContextManager, estimate_history_tokens, estimate_message_tokens, repair_history
from sneakycode.agent.events import CallSummary, ReasoningEvent, UsageEvent
from sneakycode.agent.feedback import NUDGE, RepeatWatch, no_answer_message
from sneakycode.agent.first_request import compose_request
from sneakycode.agent.hook_points import HookPoints
from sneakycode.agent.images import user_message
from sneakycode.agent.messages import AssistantMessage, Message, SystemMessage, UserMessage, history_from
from sneakycode.agent.prompts import compose_system_prompt, resumed_system_prompt
from sneakycode.agent.protocol import AssistantTurn, ChatModel, EventSink, Usage
from sneakycode.agent.reasoning_history import assistant_message, policy_of
from sneakycode.agent.results import RunResult, RunStatus
from sneakycode.agent.roles import BoundModel
from sneakycode.agent.watch import RunWatch
from sneakycode.config import PermissionMode
from sneakycode.errors import ModelError, SneakyError
from sneakycode.extensions.hooks import HookRunner
from sneakycode.permissions.gate import NOBODY, Approver, Gate, Unattended
from sneakycode.session.checkpoints import Checkpoints
from sneakycode.session.transcript import Transcript
from sneakycode.tools.base import ImagePart, Tool
from sneakycode.tools.context import ToolContext
from sneakycode.tools.registry import all_tools, openai_schemas

DEFAULT_CONTEXT_WINDOW = 32_768
REPAIRED = "answered calls left without a result"
RESUMED_NOTE = "This session was resumed: files read earlier count as unread, so read a file again before you edit it."
HOOKS_CONTEXT = "# Session context from hooks"


class Agent(ToolCalls):
    """Runs requests against one ChatModel in one tool session; `history` is the message list so far."""

    def __init__(
        self,
        model: ChatModel,
        ctx: ToolContext,
        sink: EventSink,
        *,
        approver: Approver | None,
        mode: PermissionMode | str | None = None,
        max_turns: int | None = None,
        context_window: int | None = None,
        transcript: Transcript | None = None,
        history: list[dict[str, Any]] | None = None,
        tools: tuple[Tool, ...] | None = None,
        skills_prompt: str = "",
        checkpoints: Checkpoints | None = None,
        session_turns: int = 0,
        hooks: HookRunner | None = None,
        main: bool = True,
        role: str = "",
        budgets: Budgets | None = None,
        spending: Spending | None = None,
        unattended: Unattended = NOBODY,
        system_prompt: str = "",
        reserve: int | None = None,
        small: BoundModel | None = None,
        model_name: str = "",
    ) -> None:
        """`tools`: the tools the model is offered (None: all); a call to any other is an unknown tool.
        `skills_prompt`: the system prompt's list of skills (see extensions.skills). `hooks`: the user's hooks
        (`main`: False for a subagent, whose stop is SubagentStop and whose first request gets no map); `role`:
        instructions that follow the system prompt (a subagent's definition). `budgets` limit the whole session;
        `spending` carries the price and counts what it used. `unattended`: how a refusal for want of an
        approver is worded (the face's words). `system_prompt`: the embedding program's own instructions, after
        the project's. `reserve`: the reply cap each request asks for, which the window must hold besides the
        prompt. `small`: the model for chores (summaries), None for this one; `model_name`: this model's name
        when its price is not the session's main one (a subagent on another model)."""
        self.model = model
        self.ctx = ctx
        self.sink = sink
        self.approver = approver
        self.hook_runner = hooks
        self.main = main
        self.hooks = HookPoints(hooks, sink, "Stop" if main else "SubagentStop")
        offered = all_tools() if tools is None else tools
        self.gate = Gate(ctx, self.hooks.approver(approver), PermissionMode(mode) if mode else None, offered=offered,
                         unattended=unattended)
        self.max_turns = max_turns or ctx.settings.max_turns
        window = context_window or ctx.settings.context_window or DEFAULT_CONTEXT_WINDOW
        self.context = ContextManager(window, ctx.workspace, reserve=reserve or 0)
        self.small = small
        self.model_name = model_name
        self.compacted_at = -1  # the session turn of the last automatic compaction: at most one per turn
        self.transcript = transcript
        self._tools_lock = threading.Lock()  # tools found or withdrawn from tool threads, in parallel
        self.tools: list[dict[str, Any]] = []
        self.tools_tokens = 0
        self._set_tools(openai_schemas(offered))
        notices: list[str] = []
        self._prompt_parts = (skills_prompt, system_prompt, role)
        prompt = self._prompt = compose_system_prompt(ctx.workspace, offered, notices, *self._prompt_parts)
        self.checkpoints = checkpoints
        self.session_turns = session_turns  # model turns across the session: what checkpoints are numbered by
        for notice in [*notices, checkpoints.notice if checkpoints else None]:
            self._notice(notice)
        resumed = history_from(history or [], "the resumed session")  # outside messages: checked here and in rewound
        system: SystemMessage = {"role": "system", "content": resumed_system_prompt(prompt, resumed)}
        self.history: list[Message] = [system, *(m for m in resumed if m["role"] != "system")]
        # What a resumed session must be told goes into its first new user message, after the history: the
        # system prompt and every earlier message stay byte for byte what the server has cached.
        self._session_notes: list[str] = [f"[{RESUMED_NOTE}]"] if history else []
        if repair_history(self.history) and transcript is not None:
            transcript.write("history", messages=self.history, reason=REPAIRED)
        self.repeats = RepeatWatch()
        self.totals = RunResult("answered", "")
        self._totals_lock = threading.Lock()
        self._reasoned = ""  # the reasoning of the request under way streamed so far (reasoning_delta events)
        self.spending = spending or Spending()
        self.budgets = BudgetKeeper(budgets or Budgets(), self.spending)
        ctx.output_budget = self.context.output_budget(self.fixed_tokens())
        self._images: list[tuple[str, ImagePart]] = []  # tool results' images, sent after the reply's results
        settings = ctx.settings
        self.watch = RunWatch(sink.emit, settings.stall_seconds, first_byte_limit=settings.request_timeout,
                              stall_limit=settings.stall_timeout or settings.stream_idle_timeout)

    @property
    def cancel(self) -> threading.Event:
        """Set it (from any thread or a signal handler) to stop the model stream or the running command."""
        return self.ctx.cancel

    @property
    def mode(self) -> PermissionMode:
        """The permission mode in force: the one set for this session, else the configured one."""
        return self.gate.mode or self.ctx.settings.permissions.mode

    def use_model(self, bound: BoundModel, *, fit: bool = True) -> BoundModel:
        """Run on `bound` from the next request on; returns the model it replaces (closing it is the caller's).
        `fit`: its window and reply cap replace the old ones (a model switch); False keeps them (a command's
        model for one request, on the same server)."""
        before = BoundModel(self.model, self.model_name, self.context.window, self.context.reserve)
        self.model, self.model_name = bound.model, bound.name
        if fit:
            self.context.window, self.context.reserve = bound.window, bound.reserve
            self.ctx.output_budget = self.context.output_budget(self.fixed_tokens())
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
        with self._tools_lock:
            known = set(self.gate.offered or {})
            new = tuple(t for t in tools if t.name not in known)
            if not new:
                return
            self.gate.offer(new)
            self._set_tools([*self.tools, *openai_schemas(new)])

    def withdraw_tools(self, names: Collection[str], note: str) -> None:
        """Tools that leave the model's list (their server stopped); `note` tells the user why."""
        with self._tools_lock:
            self.gate.withdraw(names)
            self._set_tools([schema for schema in self.tools if schema["function"]["name"] not in names])
        self.sink.emit({"type": "notice", "message": note})

    def set_tools(self, tools: tuple[Tool, ...], reason: str) -> None:
        """Offer exactly `tools` from the next request on (a model switch re-chooses the edit tool), with the
        system prompt's tool guidance to match; the conversation goes on."""
        with self._tools_lock:
            self.gate.offered = {t.name: t for t in tools}
            self._set_tools(openai_schemas(tools))
            prompt = compose_system_prompt(self.ctx.workspace, tools, [], *self._prompt_parts)
            system = self.history[0]
            tail = str(system["content"])[len(self._prompt):]  # the resumed note, hooks' session context
            system["content"] = prompt + tail
            self._prompt = prompt
        if self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason=reason)

    def _set_tools(self, schemas: list[dict[str, Any]]) -> None:
        self.tools = schemas
        self.tools_tokens = len(json.dumps(self.tools, separators=(",", ":"))) // 3

    def clear(self) -> None:
        """Start a fresh conversation in the same session: the system prompt stays, and every file counts as
        unread again, so the model reads before it edits."""
        del self.history[1:]
        self.ctx.workspace.ledger.clear()
        if self.transcript is not None:
            self.transcript.write("history", messages=self.history, reason="cleared by the user")

    def rewound(self, messages: list[dict[str, Any]], turns: int) -> None:
        """Continue from a conversation a rewind took back (already in the transcript); files count as unread.
        A ConfigError when `messages` are not chat messages (the history is then left as it was)."""
        self.history[1:] = [m for m in history_from(messages, "the conversation to continue") if m["role"] != "system"]
        self.session_turns = turns
        self.ctx.workspace.ledger.clear()

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
        with self._totals_lock:  # subagents run in parallel
            self.totals.turns += other.turns
            self.totals.tool_calls += other.tool_calls
            self.totals.add_usage(other.prompt_tokens, other.completion_tokens, other.usage_estimated,
                                  other.cached_tokens, other.cache_reported, other.prefill_seconds)

    def run_turn(self, request: str, images: list[ImagePart] | None = None) -> RunResult:
        """Work on one user request (with images attached, for a model that takes them) until the model
        finishes, answers, hits max_turns, fails or is cancelled."""
        self.cancel.clear()
        return self.work(request, images)

    def work(self, request: str, images: list[ImagePart] | None = None) -> RunResult:
        """run_turn without clearing the cancel signal: a subagent shares its parent's, and must not swallow a
        Ctrl-C pressed before it started."""
        self.totals = RunResult("answered", "")
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

    # ---- model side ------------------------------------------------------------------------------

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

    def _watched_complete(self) -> AssistantTurn:
        """The request, with the stall watch told of everything that arrives (see agent/watch.py)."""
        self._reasoned = ""
        # `on_reasoning` is beyond the ChatModel protocol: only a model that says it takes it is given it.
        extra: dict[str, Any] = (
            {"on_reasoning": self._on_reasoning} if getattr(self.model, "streams_reasoning", False) else {})
        with self.watch.model_request() as activity:
            return self.model.complete(self.history, self.tools, on_text=self._on_text, cancel=self.cancel,
                                       on_activity=activity, **extra)

    def fixed_tokens(self) -> int:
        """What every request carries besides the conversation: the system prompt and the tools array."""
        return estimate_message_tokens(self.history[0]) + self.tools_tokens

    def _on_text(self, text: str) -> None:
        self.sink.emit({"type": "text_delta", "text": text})

    def _on_reasoning(self, text: str) -> None:
        self._reasoned += text
        self.sink.emit({"type": "reasoning_delta", "text": text})

    def account_chore(self, usage: Usage, model_name: str) -> None:
        """Count a chore's request (a summary) in this run's usage and the session's spending, at the price of
        the model that ran it."""
        with self._totals_lock:
            self._count(usage)
        self.spending.add(usage, model_name)

    def _count(self, usage: Usage) -> None:
        self.totals.add_usage(usage.prompt_tokens, usage.completion_tokens, usage.estimated, usage.cached_tokens,
                              usage.cache_reported, usage.prefill_seconds)

    def _account(self, reply: AssistantTurn) -> None:
        usage = reply.usage
        self._count(usage)
        self.spending.add(usage, self.model_name)
        event: UsageEvent = {
            "type": "usage",
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "estimated": usage.estimated,
            "history_tokens_estimate": estimate_history_tokens(self.history),
            "cached_tokens": usage.cached_tokens,
            "prefilled_tokens": usage.prefilled_tokens,
            "cache_reported": usage.cache_reported,
            "prefill_seconds": usage.prefill_seconds,
            "session_cached_tokens": self.spending.cached_tokens,
            "session_prefilled_tokens": self.spending.prefilled_tokens,
            "session_prefill_seconds": self.spending.prefill_seconds,
        }
        self.sink.emit(event)
        if self.transcript is not None:
            self.transcript.write("usage", **{k: v for k, v in event.items() if k != "type"})

    def _record_reply(self, reply: AssistantTurn) -> None:
        if reply.reasoning:
            event: ReasoningEvent = {"type": "reasoning", "text": reply.reasoning}
            if self._reasoned and self._reasoned.strip() == reply.reasoning.strip():
                event["streamed"] = True  # its pieces were shown as they came: a face shows it once
            self.sink.emit(event)
            if self.transcript is not None:
                self.transcript.write("reasoning", text=reply.reasoning)
        # Reasoning joins the history where the model family was trained to see it again (drop, chain, keep:
        # agent/reasoning_history.py), recorded once and never rewritten, so the prompt cache keeps it.
        self._append(assistant_message(reply, policy_of(self.model)))
        calls: list[CallSummary] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
        self.sink.emit({"type": "assistant", "text": reply.content, "tool_calls": calls,
                        "finish_reason": reply.finish_reason})

    def _end(self, status: RunStatus, message: str) -> RunResult:
        self._notice(self.checkpoints.end_of_run(self.session_turns) if self.checkpoints else None)
        if status == "cancelled" and self.budgets.timed_out:  # the wall clock cancelled it, not a person
            status, message, self.totals.budget = "budget", self.budgets.describe("timeout"), "timeout"
        self.totals.status = status
        self.totals.message = message
        if self.transcript is not None:
            self.transcript.write("outcome", status=status, message=message, turns=self.totals.turns)
        return self.totals


__all__ = ["Agent", "RunResult", "RunStatus"]
