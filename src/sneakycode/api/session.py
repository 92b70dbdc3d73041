"""`Session`: the composition root. It turns Options into a running SneakyCode session (settings, model,
tools, hooks, MCP servers, skills, subagents, budgets, checkpoints, transcript) and runs requests in it:
`run` and `stream` (blocking), `arun` and `astream` (asyncio), `switch_model`, `cancel` from any thread.

Every face builds its run here: the terminal, `-p`, batch workers (through `-p`), the editor protocol, and
programs that embed SneakyCode. The assembly itself is imported on first use, so `import sneakycode` stays
cheap.
"""

from __future__ import annotations

import asyncio
import queue
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.agent.titles import write_title
from sneakycode.api.options import Options
from sneakycode.api.result import Result
from sneakycode.api.settings import load_options, untrusted_notice
from sneakycode.api.telemetry import observed_run, start_telemetry

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
    from sneakycode.extensions.invocation import Extensions
    from sneakycode.permissions.gate import Approver, Unattended
    from sneakycode.process.jobs import Job
    from sneakycode.tools.base import ImagePart
    from sneakycode.tools.context import ToolContext

# The events a program (and `-p --output-format stream-json`) sees; turn markers and text deltas are the
# terminal's.
STREAMED_EVENTS = frozenset(
    {"assistant", "reasoning", "tool_call", "permission", "tool_result", "usage", "tasks", "notice", "subagent",
     "stall", "progress"}
)
_DONE = object()


class _Fanout:
    """The session's one sink: remembers refused calls for the result, then hands each event on to the
    face's sink, the program's `on_event` and the running stream."""

    def __init__(self, sinks: list[Callable[[Event], None]]) -> None:
        self.sinks = sinks
        self.denied: list[dict[str, Any]] = []
        self._arguments: dict[str, str] = {}
        self.stream: Callable[[Event], None] | None = None
        # Events come from the loop, tool threads and the stall watch's thread: one at a time, so lines never mix.
        self._one_at_a_time = threading.RLock()

    def emit(self, event: Event) -> None:
        with self._one_at_a_time:
            self._emit(event)

    def _emit(self, event: Event) -> None:
        if event["type"] == "tool_call":
            self._arguments[event["id"]] = event["arguments"]
        if event["type"] == "permission" and event["outcome"] in ("denied", "rejected"):
            # Rejected: the one asked (Options.can_use_tool, or the person at the terminal) said no; refused all
            # the same (issue 37: a policy's refusals were missing here).
            reason = event["reason"] if event["outcome"] == "denied" else f"declined when asked ({event['reason']})"
            self.denied.append({
                "tool": event["name"], "arguments": self._arguments.get(event["id"], ""), "reason": reason,
                "rule": event["rule"], "how_to_allow": event.get("how_to_allow"),
            })  # fmt: skip
        if event["type"] == "tool_result" and event["code"] == "network_denied":  # the sandbox's proxy refused a host
            reason = event["content"].partition("\n")[0].removeprefix("Error [network_denied]: ")
            self.denied.append({"tool": event["name"], "arguments": self._arguments.get(event["id"], ""),
                                "reason": reason, "rule": "tools.shell.allowed_hosts", "how_to_allow": None})
        for sink in self.sinks:
            sink(event)
        stream = self.stream
        if stream is not None and event["type"] in STREAMED_EVENTS:
            stream(event)


class Session:
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
        from sneakycode.api.assembly import assemble
        from sneakycode.api.policy import PolicyApprover
        from sneakycode.api.structured import load_output_schema
        from sneakycode.permissions.gate import Unattended
        from sneakycode.session.changes import ChangeTracker

        self.options = options = options or Options()
        # First: a bad schema is a usage error before anything is read, started or sent.
        schema = options.output_schema
        self.output_schema: OutputSchema | None = None if schema is None else load_output_schema(schema)
        self._temporary = (tempfile.TemporaryDirectory(prefix="sneakycode-state-")
                           if options.isolated and options.state_dir is None else None)
        try:
            self.loaded: LoadedSettings = load_options(
                options, state_dir=None if self._temporary is None else Path(self._temporary.name))
            sinks = [s for s in (sink.emit if sink is not None else None, options.on_event) if s is not None]
            self._sink = _Fanout(sinks)
            if self.loaded.ignored:
                self._sink.emit({"type": "notice", "message": untrusted_notice(self.loaded)})
            if approver_for is None:
                policy = options.can_use_tool
                approver_for = lambda _ctx: PolicyApprover(policy) if policy is not None else None  # noqa: E731
            told = options if self.output_schema is None else replace(options, system_prompt="\n\n".join(
                filter(None, (options.system_prompt, self.output_schema.instructions()))))
            self.parts: Parts = assemble(told, self.loaded, self._sink, approver_for, unattended or Unattended())
        except BaseException:
            self._cleanup_temporary()
            raise
        # After the assembly: spans carry the session's id, and costs come from its spending.
        self._telemetry: Recorder | None = start_telemetry(self, self._notice)
        if self._telemetry is not None:
            self._sink.sinks.append(self._telemetry.emit)
        self.changes = ChangeTracker(self.ctx.session_dir, self.ctx.workspace.root)
        self._started = False
        self._titled = False
        self._closed = False
        self._running = threading.Lock()

    # ---- what a face may look at -------------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        return self.parts.agent

    @property
    def ctx(self) -> ToolContext:
        return self.parts.ctx

    @property
    def session_id(self) -> str:
        return self.parts.ctx.session_id

    @property
    def model(self) -> str:
        return self.parts.config.model

    @property
    def config(self) -> ModelConfig:
        """The endpoint, model and window in use (after `switch_model`, the new one's)."""
        return self.parts.config

    @property
    def extensions(self) -> Extensions:
        return self.parts.extensions

    @property
    def resumed(self) -> bool:
        return self.parts.saved is not None

    # ---- running requests ----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the SessionStart hooks (once; `run` does it when nobody did)."""
        if not self._started:
            self._started = True
            self.agent.start_session("resume" if self.resumed else "startup")

    def run(self, prompt: str, images: list[ImagePart] | None = None) -> Result:
        """Work on one request to its end, in this conversation. `/NAME ARGS` runs a custom command or skill;
        `@SERVER:URI` attaches an MCP resource. A ConfigError says why the request cannot be sent."""
        from sneakycode.api.invocations import expand, in_effect, with_resources

        if self._closed:
            raise RuntimeError("this session is closed")
        with self._running, observed_run(self._telemetry, prompt) as observed:
            self.start()
            invocation = expand(self, prompt)
            request = invocation.prompt if invocation is not None else prompt
            request, more = with_resources(self, request)
            self.agent.hooks.answer_check = self._answer_check()
            try:
                with in_effect(self, invocation) if invocation is not None else nullcontext():
                    outcome = self.agent.run_turn(request, [*(images or []), *more])
            finally:
                self.agent.hooks.answer_check = None
            if not self._titled:
                self._titled = True
                if not self.resumed:
                    write_title(self.agent, request)
            return observed(self.result(outcome))

    def stream(self, prompt: str, images: list[ImagePart] | None = None) -> Iterator[dict[str, Any]]:
        """`run`, as the events it makes (the stream-json schema), ending with a `final` event that holds the
        Result's fields. Leaving the loop early cancels the request."""
        events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        worker = self._in_thread(prompt, images, events.put)
        try:
            while (item := events.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if worker.is_alive():
                self.cancel()
            worker.join()

    async def arun(self, prompt: str, images: list[ImagePart] | None = None) -> Result:
        """`run` without blocking the event loop; cancelling the awaiting task cancels the request."""
        try:
            return await asyncio.to_thread(self.run, prompt, images)
        except asyncio.CancelledError:
            self.cancel()
            raise

    async def astream(self, prompt: str, images: list[ImagePart] | None = None) -> AsyncIterator[dict[str, Any]]:
        """`stream` for asyncio; cancelling the consuming task (or leaving early) cancels the request."""
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[Any] = asyncio.Queue()
        worker = self._in_thread(prompt, images, lambda item: loop.call_soon_threadsafe(events.put_nowait, item))
        try:
            while (item := await events.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if worker.is_alive():
                self.cancel()
            await asyncio.to_thread(worker.join)

    def _in_thread(self, prompt: str, images: list[ImagePart] | None, put: Callable[[Any], object]) -> threading.Thread:
        def forward(event: Event) -> None:
            put(dict(event))

        def work() -> None:
            self._sink.stream = forward
            try:
                result = self.run(prompt, images)
                self._sink.stream = None
                put({"type": "final", **result.to_dict()})
            except BaseException as exc:  # handed to the consumer, who raises it in its own thread
                put(exc)
            finally:
                self._sink.stream = None
                put(_DONE)

        worker = threading.Thread(target=work, name="sneakycode-session", daemon=True)
        worker.start()
        return worker

    def cancel(self) -> None:
        """Stop the running request as Esc does (from any thread): the turn closes, the transcript stays valid."""
        self.agent.cancel.set()

    def _answer_check(self) -> Callable[[str], str | None] | None:
        from sneakycode.api.structured import AnswerCheck

        return None if self.output_schema is None else AnswerCheck(self.output_schema, self._sink.emit)

    def result(self, outcome: RunResult) -> Result:
        """The Result of one request of this session (with an output schema: its verdict on the answer)."""
        from sneakycode.api.structured import apply_verdict

        ctx = self.ctx
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
            cost=self.agent.spending.report(),
            session_id=ctx.session_id,
            files_changed=self.changes.changed(ctx.workspace.display),
            denied=list(self._sink.denied),
            jobs=self.job_summaries(),
            budget=outcome.budget or ("max_turns" if outcome.status == "turn_limit" else None),
            error_kind=outcome.error_kind,
        )
        if self.output_schema is not None:
            apply_verdict(result, self.output_schema)
            if result.error_code is not None and self.agent.transcript is not None:
                # The loop saved "finished"; the answer's verdict is how the request ended (issue 37: `sneakycode
                # sessions` showed "finished" for a run that ended with output_schema_mismatch).
                self.agent.transcript.write("outcome", status=result.status, message=result.message,
                                            turns=outcome.turns)
        return result

    def job_summaries(self) -> list[dict[str, Any]]:
        """Every background command of the session (subagents' included), as the JSON result lists them."""
        jobs = self.ctx.session.jobs
        return [job.summary() for job in jobs.table().jobs.values()] if jobs.started else []

    # ---- changing the session ------------------------------------------------------------------------

    @property
    def small_config(self) -> ModelConfig | None:
        """The small model's endpoint, model and window (None: the main model runs the chores too)."""
        return self.parts.small_config

    def switch_model(self, name: str, role: str = "main") -> None:
        """Go on with model `name` on the same server and conversation: a new client (the old one closed),
        and everything that depends on the model derived again: its window and reply cap, its price, whether
        it takes images, the edit tool its family is trained on (with the system prompt that names it).
        `role="small"` switches the small model instead (on its own server when `[models.small]` names one),
        which runs compaction summaries and the explore subagent from then on."""
        if role == "small":
            self._switch_small(name)
            return
        if role != "main":
            raise ValueError(f"role must be 'main' or 'small', not {role!r}")
        from sneakycode.agent.model.client import build_chat_model
        from sneakycode.agent.model.families import supports_images_for
        from sneakycode.agent.model.pricing import price_for
        from sneakycode.agent.model.providers import output_cap
        from sneakycode.api.assembly import builtin_tools, close_model, session_tools, with_server_window

        parts, settings = self.parts, self.loaded.settings
        config = with_server_window(replace(
            parts.config, model=name, model_source="a model switch",
            supports_images=supports_images_for(name, settings.supports_images),
        ))
        agent = self.agent
        old = agent.model
        agent.model = build_chat_model(config, debug_log=self.options.debug_log, tool_calls=settings.tool_calls)
        close_model(old)
        agent.context.window = config.context_window
        agent.context.reserve = output_cap(config)
        self.ctx.output_budget = agent.context.output_budget(agent.fixed_tokens())
        self.ctx.supports_images = config.supports_images
        agent.spending.price = price_for(settings, config.provider, config.model)
        builtin = builtin_tools(self.loaded, config.model)
        parts.subagents.available = builtin
        tools = session_tools(builtin, self.loaded, parts.subagents, parts.skills, tuple(self.options.tools))
        agent.set_tools((*tools, *parts.mcp.tools()), reason=f"model switched to {name}")
        parts.config = config

    def _switch_small(self, name: str) -> None:
        from sneakycode.api.assembly import close_model
        from sneakycode.api.roles import build_small, small_model_config

        config = small_model_config(self.loaded, self.parts.config, name)
        if config is None:  # (never: a name is given)
            return
        agent = self.agent
        old = agent.small
        agent.small = build_small(config, self.loaded, agent.spending, self.options.debug_log)
        if old is not None:
            close_model(old.model)
        self.parts.small_config = config

    # ---- the end -------------------------------------------------------------------------------------

    def close(self, reason: str = "other") -> list[Job]:
        """End the session: its running jobs killed (returned), SessionEnd hooks run, MCP servers stopped,
        connections and the transcript closed. Safe to call more than once."""
        if self._closed:
            return []
        self._closed = True
        self.cancel()
        try:
            killed = self.ctx.close()
        finally:
            try:
                self.parts.close(reason)
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

