"""`Session`: the composition root. It turns Options into a running SneakyCode session (settings, model,
tools, hooks, MCP servers, skills, subagents, budgets, checkpoints, transcript) and runs requests in it:
`run` and `stream` (blocking), `arun` and `astream` (asyncio), `cancel` from any thread, one request at a time;
between requests the verbs of api/verbs.py (set_mode, clear, compact, rewind, set_model).

Every face builds its run here: the terminal, `-p`, batch workers (through `-p`), the editor protocol, and
programs that embed SneakyCode. The assembly itself is imported on first use, so `import sneakycode` stays
cheap.
"""

from __future__ import annotations

import queue
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.agent.titles import write_title
from sneakycode.api.fanout import DONE, Abandoned, Fanout, StreamedRequest
from sneakycode.api.options import Options
from sneakycode.api.result import Result
from sneakycode.api.settings import load_options, untrusted_notice
from sneakycode.api.telemetry import observed_run, start_telemetry
from sneakycode.api.verbs import SessionVerbs

if TYPE_CHECKING:
    from types import TracebackType

    from sneakycode.agent.events import Event
    from sneakycode.agent.loop import Agent
    from sneakycode.agent.model.providers import ModelConfig
    from sneakycode.agent.protocol import EventSink
    from sneakycode.agent.results import RunResult
    from sneakycode.api.assembly import Parts
    from sneakycode.api.structured import OutputSchema
    from sneakycode.api.telemetry.recorder import Recorder
    from sneakycode.config import LoadedSettings
    from sneakycode.permissions.gate import Approver, Unattended
    from sneakycode.process.jobs import Job
    from sneakycode.tools.base import ImagePart
    from sneakycode.tools.context import ToolContext

class Session(SessionVerbs):
    """One SneakyCode session over a workspace; use it as a context manager (or call `close`), so its jobs,
    MCP servers and connections end with it.

    `sink`, `approver_for` and `unattended` are for the package's own faces (the terminal renders events
    and asks a person; `-p` words refusals after its flags); a program uses `Options.on_event` and
    `Options.can_use_tool`."""

    def __init__(
        self,
        options: Options | None = None,
        *,
        sink: EventSink | None = None,
        approver_for: Callable[[ToolContext], Approver | None] | None = None,
        unattended: Unattended | None = None,
    ) -> None:
        from sneakycode.api.approvals import Approvals, remembering
        from sneakycode.api.assembly import assemble
        from sneakycode.api.goal import check_goal_options
        from sneakycode.api.policy import PolicyApprover
        from sneakycode.permissions.gate import Unattended
        from sneakycode.session.changes import ChangeTracker

        self.options = options = options or Options()
        check_goal_options(options)  # before anything is read or started, like the schema below
        if options.attempts != 1:  # said, never silently one attempt: a session is one conversation in one tree
            from sneakycode.errors import ConfigError

            raise ConfigError(f"Options.attempts={options.attempts}: a Session is one attempt; run several with "
                              "sneakycode.batch.attempts.run_attempts(options, task) or `sneakycode -p TASK "
                              "--attempts N`")
        # First: a bad schema is a usage error before anything is read, started or sent.
        schema = options.output_schema
        self.output_schema: OutputSchema | None = None
        if schema is not None:  # its checks (and re2, which they use) load only for a run that has one (issue 42)
            from sneakycode.api.structured import load_output_schema

            self.output_schema = load_output_schema(schema)
        self._temporary = (tempfile.TemporaryDirectory(prefix="sneakycode-state-")
                           if options.isolated and options.state_dir is None else None)
        # All or nothing: a failure anywhere below ends what was started (the assembly undoes its own part).
        with ExitStack() as undo:
            undo.callback(self._cleanup_temporary)
            self.loaded: LoadedSettings = load_options(
                options, state_dir=None if self._temporary is None else Path(self._temporary.name))
            sinks = [s for s in (sink.emit if sink is not None else None, options.on_event) if s is not None]
            self._sink = Fanout(sinks)
            if self.loaded.ignored:
                self._sink.emit({"type": "notice", "message": untrusted_notice(self.loaded)})
            if approver_for is None:
                policy = options.can_use_tool
                approver_for = lambda _ctx: PolicyApprover(policy) if policy is not None else None  # noqa: E731
            # "always" and "never" are the session's, whichever face asked (api/approvals.py).
            self.approvals: Approvals = Approvals()
            approver_for = remembering(approver_for, self.approvals)
            told = options if self.output_schema is None else replace(options, system_prompt="\n\n".join(
                filter(None, (options.system_prompt, self.output_schema.instructions()))))
            self._parts: Parts = assemble(told, self.loaded, self._sink, approver_for, unattended or Unattended())
            undo.callback(self._close_parts)
            # After the assembly: spans carry the session's id, and costs come from its spending.
            self._telemetry: Recorder | None = start_telemetry(self, self._notice)
            if self._telemetry is not None:
                undo.callback(self._telemetry.close)
                self._sink.sinks.append(self._telemetry.emit)
            self.changes = ChangeTracker(self._ctx.session_dir, self._ctx.workspace.root)
            undo.pop_all()
        self._started = False
        self._titled = False
        self._closed = False
        self._running = threading.Lock()

    def _close_parts(self) -> None:
        try:
            self._ctx.close()
        finally:
            self._parts.close("other")

    # ---- what a face may look at -------------------------------------------------------------------

    @property
    def _agent(self) -> Agent:
        return self._parts.agent

    @property
    def _ctx(self) -> ToolContext:
        return self._parts.ctx

    @property
    def session_id(self) -> str:
        return self._parts.ctx.session_id

    @property
    def model(self) -> str:
        return self._parts.config.model

    @property
    def config(self) -> ModelConfig:
        """The endpoint, model and window in use (after `switch_model`, the new one's)."""
        return self._parts.config

    @property
    def resumed(self) -> bool:
        return self._parts.saved is not None

    # ---- running requests ----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the SessionStart hooks (once; `run` does it when nobody did)."""
        if not self._started:
            self._started = True
            self._agent.start_session("resume" if self.resumed else "startup")

    def run(self, prompt: str, images: list[ImagePart] | None = None) -> Result:
        """Work on one request to its end, in this conversation. `/NAME ARGS` runs a custom command or skill;
        `@SERVER:URI` attaches an MCP resource. A ConfigError says why the request cannot be sent. One request
        at a time: a second one (from another thread, a second stream) waits until the first has ended."""
        return self._run(prompt, images, None)

    def _run(self, prompt: str, images: list[ImagePart] | None, turn: StreamedRequest | None) -> Result:
        if self._closed:
            raise RuntimeError("this session is closed")
        with self._running:
            if turn is not None:
                if not turn.begin():  # its consumer left while it waited: it never runs
                    raise Abandoned
                self._sink.stream = turn.forward  # set only now: a waiting stream never sees another's events
            try:
                with observed_run(self._telemetry, prompt) as observed:
                    self.start()
                    if self.options.until is not None:  # a goal: requests until its check passes (api/goal.py)
                        from sneakycode.api.goal import run_goal

                        return observed(run_goal(self, prompt, lambda text, first: self._request(
                            text, images if first else None)))
                    return observed(self._request(prompt, images))
            finally:
                self._sink.stream = None

    def _request(self, prompt: str, images: list[ImagePart] | None) -> Result:
        """One request, the request lock held: a command or skill expanded, resources attached, the loop run."""
        from sneakycode.api.invocations import expand, in_effect, with_resources

        invocation = expand(self, prompt)
        request = invocation.prompt if invocation is not None else prompt
        request, more = with_resources(self, request)
        self._agent.hooks.answer_check = self._answer_check()
        try:
            with in_effect(self, invocation) if invocation is not None else nullcontext():
                outcome = self._agent.run_turn(request, [*(images or []), *more])
        finally:
            self._agent.hooks.answer_check = None
        if not self._titled:
            self._titled = True
            if not self.resumed:
                write_title(self._agent, request)
        return self.result(outcome)

    def stream(self, prompt: str, images: list[ImagePart] | None = None) -> Iterator[dict[str, Any]]:
        """`run`, as the events it makes (the stream-json schema), ending with a `final` event that holds the
        Result's fields. Leaving the loop early cancels the request (or, while it waits for another request of
        the session to end, withdraws it)."""
        events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        turn = self._in_thread(prompt, images, events.put)
        try:
            while (item := events.get()) is not DONE:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self._leave(turn)
            turn.worker.join()

    async def arun(self, prompt: str, images: list[ImagePart] | None = None) -> Result:
        """`run` without blocking the event loop; cancelling the awaiting task cancels the request."""
        import asyncio  # here, not at the top: a program awaiting this has it loaded; `-p` never does (issue 42)

        try:
            return await asyncio.to_thread(self.run, prompt, images)
        except asyncio.CancelledError:
            self.cancel()
            raise

    async def astream(self, prompt: str, images: list[ImagePart] | None = None) -> AsyncIterator[dict[str, Any]]:
        """`stream` for asyncio; cancelling the consuming task (or leaving early) cancels the request."""
        import asyncio  # see arun

        loop = asyncio.get_running_loop()
        events: asyncio.Queue[Any] = asyncio.Queue()
        turn = self._in_thread(prompt, images, lambda item: loop.call_soon_threadsafe(events.put_nowait, item))
        try:
            while (item := await events.get()) is not DONE:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self._leave(turn)
            await asyncio.to_thread(turn.worker.join)

    def _leave(self, turn: StreamedRequest) -> None:
        """The consumer is gone: a request still waiting is withdrawn; a running one (this one) is cancelled."""
        if turn.worker.is_alive() and turn.leave():
            self.cancel()

    def _in_thread(self, prompt: str, images: list[ImagePart] | None,
                   put: Callable[[Any], object]) -> StreamedRequest:
        def forward(event: Event) -> None:
            put(dict(event))

        turn = StreamedRequest(forward)

        def work() -> None:
            try:
                result = self._run(prompt, images, turn)
                put({"type": "final", **result.to_dict()})
            except Abandoned:
                pass
            except BaseException as exc:  # handed to the consumer, who raises it in its own thread
                put(exc)
            finally:
                put(DONE)

        turn.worker = threading.Thread(target=work, name="sneakycode-session", daemon=True)
        turn.worker.start()
        return turn

    def cancel(self) -> None:
        """Stop the running request as Esc does (from any thread): the turn closes, the transcript stays valid."""
        self._agent.cancel.set()

    def _answer_check(self) -> Callable[[str], str | None] | None:
        if self.output_schema is None:
            return None
        from sneakycode.api.structured import AnswerCheck  # see __init__

        return AnswerCheck(self.output_schema, self._sink.emit)

    def result(self, outcome: RunResult) -> Result:
        """The Result of one request of this session (with an output schema: its verdict on the answer)."""
        from sneakycode.api.goal import per_model
        from sneakycode.api.structured import apply_verdict

        ctx = self._ctx
        result = Result(
            status=outcome.status,
            message=outcome.message,
            turns=outcome.turns,
            tool_calls=outcome.tool_calls,
            usage={
                "prompt_tokens": outcome.prompt_tokens,
                "completion_tokens": outcome.completion_tokens,
                "total_tokens": outcome.prompt_tokens + outcome.completion_tokens,
                "estimated": outcome.usage_estimated,
                "cached_tokens": outcome.cached_tokens,
                "prefilled_tokens": max(0, outcome.prompt_tokens - outcome.cached_tokens),
                "cache_reported": outcome.cache_reported,
                "prefill_seconds": outcome.prefill_seconds,
            },
            cost=self._agent.spending.report(),
            session_id=ctx.session_id,
            files_changed=self.changes.changed(ctx.workspace.display),
            denied=list(self._sink.denied),
            jobs=self.job_summaries(),
            budget=outcome.budget or ("max_turns" if outcome.status == "turn_limit" else None),
            error_kind=outcome.error_kind,
            solved_by=self.model if outcome.status in ("finished", "answered") else None,
            models=per_model(self),
        )
        if self.output_schema is not None:
            apply_verdict(result, self.output_schema)
            if result.error_code is not None and self._agent.transcript is not None:
                # The loop saved "finished"; the answer's verdict is how the request ended (issue 37: `sneakycode
                # sessions` showed "finished" for a run that ended with output_schema_mismatch).
                self._agent.transcript.write("outcome", status=result.status, message=result.message,
                                            turns=outcome.turns)
        return result

    def job_summaries(self) -> list[dict[str, Any]]:
        """Every background command of the session (subagents' included): `jobs()` by its older name."""
        return self.jobs()

    # ---- the end -------------------------------------------------------------------------------------

    def close(self, reason: str = "other") -> list[Job]:
        """End the session: its running jobs killed (returned), SessionEnd hooks run, MCP servers stopped,
        connections and the transcript closed. Safe to call more than once."""
        if self._closed:
            return []
        self._closed = True
        self.cancel()
        try:
            killed = self._ctx.close()
        finally:
            try:
                self._parts.close(reason)
            finally:
                self._cleanup_temporary()
                if self._telemetry is not None:
                    self._telemetry.close()  # last: the session's end is in its spans
        return killed

    def _notice(self, message: str) -> None:
        self._sink.emit({"type": "notice", "message": message})

    def _cleanup_temporary(self) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()
            self._temporary = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

