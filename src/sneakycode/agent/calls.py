"""The tool side of the agent loop: a reply's calls prepared, asked about, run (adjacent read-only calls
together) and recorded, each with exactly one tool message whatever happens to it. Mixed into `Agent`, whose
attributes it names below."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from sneakycode.agent.events import PermissionEvent
from sneakycode.agent.feedback import REPETITION, RepeatWatch
from sneakycode.agent.hook_points import HookPoints
from sneakycode.agent.images import tool_images_message
from sneakycode.agent.messages import ToolMessage
from sneakycode.agent.protocol import AssistantTurn, ToolCall
from sneakycode.agent.record import RunRecord
from sneakycode.agent.results import Outcome, RunResult, RunStatus
from sneakycode.agent.tally import Tally
from sneakycode.agent.watch import RunWatch
from sneakycode.errors import ErrorCode
from sneakycode.permissions.gate import Gate, PreparedCall
from sneakycode.session.checkpoints import Checkpoints
from sneakycode.tools.base import ImagePart, ToolResult
from sneakycode.tools.context import ToolContext

MAX_PARALLEL_READS = 4


class ToolCalls(RunRecord):
    """Runs the calls of one reply for the Agent it is mixed into."""

    ctx: ToolContext
    gate: Gate
    hooks: HookPoints
    checkpoints: Checkpoints | None
    session_turns: int
    repeats: RepeatWatch
    watch: RunWatch
    tally: Tally
    _images: list[tuple[str, ImagePart]]

    def _run_reply(self, reply: AssistantTurn) -> str | None:
        """Run a reply's calls (see `_run_calls`), its text and reasoning seen by the repetition watch first."""
        self.repeats.see(reply)
        return self._run_calls(reply.tool_calls)

    def _repeating(self, message: str) -> RunResult:
        """End the run: the model kept repeating itself after it was told (feedback.RepeatWatch)."""
        self.tally.totals.error_kind = REPETITION
        return self._end("error", message)

    def _end(self, status: RunStatus, message: str) -> RunResult:
        raise NotImplementedError  # the Agent's: how a run ends

    def _run_calls(self, calls: list[ToolCall]) -> str | None:
        """Run a reply's calls in order (adjacent allowed read-only calls together); the finish message or None.

        Each call is prepared (parsed, validated, decided) just before its batch runs, never earlier than the
        calls before it that may change files, so a decision always sees the files as the call will."""
        final: str | None = None
        index = 0
        ahead: PreparedCall | None = None
        while index < len(calls):
            first = ahead if ahead is not None else self._prepare(calls[index])
            ahead = None
            batch = [first]
            if final is None and self._parallel_safe(first):
                while index + len(batch) < len(calls):
                    following = self._prepare(calls[index + len(batch)])
                    if not self._parallel_safe(following):
                        ahead = following  # prepared while only read-only calls ran: still current
                        break
                    batch.append(following)
            originals = calls[index : index + len(batch)]
            index += len(batch)
            for call, prepared in zip(originals, batch, strict=True):
                headline = prepared.tool.headline_of(prepared.arguments) if prepared.tool else ""
                self.sink.emit(
                    {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments,
                     "headline": headline}
                )
            outcomes = self._run_batch(originals, batch, skip_reason=self._skip_reason(final))
            for call, prepared, outcome in zip(originals, batch, outcomes, strict=True):
                self._record_result(call, prepared, outcome.result, outcome.notes or [])
                if outcome.bug is not None:
                    self._internal_error(f"the {call.name} tool", outcome.bug)
                if outcome.finished and final is None:
                    final = outcome.result.content
        if self._images:  # after the reply's last tool message: servers take images only from the user
            self._append(tool_images_message(self._images))
            self._images = []
        return final

    def _prepare(self, call: ToolCall) -> PreparedCall:
        if call.invalid:  # a call written as text that cannot run: the model is told why and how to write it
            return PreparedCall(call.name, {}, failure=ToolResult.fail(ErrorCode.INVALID_TOOL_CALL, call.invalid))
        try:
            prepared = self.hooks.before_call(self.gate, self.gate.prepare(call.name, call.arguments))
            return replace(prepared, id=call.id)  # the approver is told which call it is about
        except Exception as exc:  # a bug while deciding must not end the run: the call fails instead
            self._internal_error(f"checking the {call.name} call", exc)
            failure = ToolResult.fail(ErrorCode.INTERNAL_ERROR, f"{call.name} could not be checked: {exc}")
            return PreparedCall(call.name, {}, failure=failure)

    def _skip_reason(self, final: str | None) -> str | None:
        if final is not None:
            return "not run: finish was called earlier in the same reply, which ended the run"
        if self.ctx.cancel.is_set():
            return "not run: the turn was cancelled"
        return None

    @staticmethod
    def _parallel_safe(call: PreparedCall) -> bool:
        return call.read_only and call.tool is not None and not call.tool.ends_run and call.allowed

    def _run_batch(self, calls: list[ToolCall], batch: list[PreparedCall], skip_reason: str | None) -> list[Outcome]:
        if skip_reason is not None:
            return [Outcome(ToolResult.fail(ErrorCode.CANCELLED, skip_reason)) for _ in batch]
        if self.checkpoints and any(p.failure is None and not p.read_only for p in batch):
            self._notice(self.checkpoints.before_turn(self.session_turns))
        if len(batch) == 1:
            return [self._run_one(calls[0], batch[0])]
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_READS, len(batch))) as pool:
            return list(pool.map(self._run_one, calls, batch))

    def _run_one(self, call: ToolCall, prepared: PreparedCall) -> Outcome:
        if self.ctx.cancel.is_set():
            return Outcome(ToolResult.fail(ErrorCode.CANCELLED, "not run: the turn was cancelled"))
        verdict = self.gate.check(prepared)
        if verdict is not None:
            decision = verdict.decision
            event: PermissionEvent = {
                "type": "permission", "id": call.id, "name": call.name, "decision": decision.decision.value,
                "reason": decision.reason, "rule": decision.rule, "outcome": verdict.outcome,
            }
            if verdict.how_to_allow is not None:
                event["how_to_allow"] = verdict.how_to_allow
            self.sink.emit(event)
            if verdict.refusal is not None:
                return Outcome(verdict.refusal)
        with self.watch.tool_call(call.id, call.name):
            result, bug = self._run_safely(prepared)
        notes = self.hooks.after_call(self.ctx, prepared, result) if prepared.failure is None else []
        ends_run = prepared.tool is not None and prepared.tool.ends_run
        return Outcome(result, finished=ends_run and result.success, notes=notes, bug=bug)

    def _run_safely(self, prepared: PreparedCall) -> tuple[ToolResult, Exception | None]:
        """The gate's run, with a bug in a tool turned into a result so the run and the history survive. The
        exception comes back too: this may run in a worker thread, and `_internal_error` runs on the main one."""
        try:
            return self.gate.run(prepared), None
        except Exception as exc:
            message = f"{prepared.name} failed unexpectedly: {type(exc).__name__}: {exc}"
            return ToolResult.fail(ErrorCode.INTERNAL_ERROR, message), exc

    def _record_result(self, call: ToolCall, prepared: PreparedCall, result: ToolResult, notes: list[str]) -> None:
        text = "\n\n".join([result.render(), *notes])
        note = self.repeats.note(call, result)
        if note:
            text = f"{text}\n\n{note}"
            self.sink.emit({"type": "notice", "message": note})
        self._append(ToolMessage(role="tool", tool_call_id=call.id, content=text))
        if result.image is not None:
            headline = prepared.tool.headline_of(prepared.arguments) if prepared.tool else ""
            self._images.append((f"{call.name} {headline}".strip(), result.image))
        self.tally.totals.tool_calls += 1
        quiet = prepared.tool is not None and prepared.tool.quiet_on_success
        self.sink.emit(
            {"type": "tool_result", "id": call.id, "name": call.name, "success": result.success,
             "code": result.code.value if result.code else None, "content": text, "quiet": quiet}
        )
        if result.success and "tasks" in result.data:
            if self.transcript is not None:
                self.transcript.write("tasks", tasks=self.ctx.tasks)
            self.sink.emit({"type": "tasks", "tasks": self.ctx.tasks})
