"""One editor session: the `api.Session` it drives, the pump that carries its events to the client in order,
and the permission questions it puts to the client.

The Session runs in a worker thread (its requests block); the connection lives on the asyncio loop. Events
arrive on the worker (and tool) threads and are queued onto the loop, where one pump sends them in the order
they happened; a permission question goes through the same queue, so the editor has seen the tool call
before it is asked about it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from acp import schema

from sneakycode.api.editor import offered_tool
from sneakycode.api.timeline import note
from sneakycode.api.vocabulary import Event
from sneakycode.faces.acp import updates
from sneakycode.faces.acp.replay import diff_note

if TYPE_CHECKING:
    from acp.interfaces import Client

    from sneakycode.api.session import Session
    from sneakycode.api.vocabulary import Tool
    from sneakycode.faces.acp.client_fs import EditorFiles

T = TypeVar("T")
ASK_POLL_SECONDS = 0.1
_FLUSH = "flush"


async def in_thread(work: Callable[[], T], name: str) -> T:
    """`work` in a daemon thread (a stuck request never keeps the process alive at exit, as the default
    executor's threads would), awaited without blocking the loop."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, failure: BaseException | None) -> None:
        if done.done():  # the awaiting task was cancelled (the client went): nobody wants the answer
            return
        if failure is not None:
            done.set_exception(failure)
        else:
            done.set_result(value)

    def run() -> None:
        try:
            value = work()
        except BaseException as exc:  # handed to the awaiting task, which raises it on the loop
            loop.call_soon_threadsafe(settle, None, exc)
        else:
            loop.call_soon_threadsafe(settle, value, None)

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done


class LiveSession:
    """The bridge between one `api.Session` and the client: `emit` is the Session's sink."""

    def __init__(self, client: Client, loop: asyncio.AbstractEventLoop) -> None:
        self.client = client
        self.loop = loop
        self.session: Session | None = None
        self.session_id = ""
        self._queue: asyncio.Queue[tuple[str, Any, Any]] = asyncio.Queue()
        self._pump_task: asyncio.Task[None] | None = None
        self._asks: set[asyncio.Task[None]] = set()
        self._pending: dict[str, tuple[str, dict[str, Any], schema.FileEditToolCallContent | None]] = {}
        self._finishing: set[str] = set()
        self._quiet: set[str] = set()
        self._lock = threading.Lock()
        self._working = threading.Lock()  # held by the worker thread while a turn (or /compact) runs
        self.prompting = False
        self.finish_reason: str | None = None  # of the main agent's latest reply: a refusal, a cut reply
        self.titled = False  # the editor has been told the session's title
        self.models: list[str] | None = None  # the models the server lists (the model picker's choices)
        self.files: EditorFiles | None = None  # the editor's files, when the client offers them

    @property
    def pumping(self) -> bool:
        return self._pump_task is not None

    def start_pump(self) -> None:
        self._pump_task = self.loop.create_task(self._pump(), name=f"acp-pump-{self.session_id}")

    # ---- events, on any thread --------------------------------------------------------------------

    def post(self, update: Any) -> None:
        """Queue one session update for the client (from any thread)."""
        self.loop.call_soon_threadsafe(self._queue.put_nowait, ("update", update, None))

    def tool_for(self, name: str) -> Tool | None:
        return offered_tool(self.session, name)

    def emit(self, event: Event) -> None:
        session = self.session
        if session is None:  # notices while the session is assembled: shown once it exists
            if event["type"] == "notice":
                self.post(updates.message_text(f"\n_{event['message']}_\n"))
            return
        # A subagent's text, reasoning and task list are its own business; its calls are shown, their ids
        # prefixed with its name (its calls are numbered like the main agent's).
        agent = event.get("agent")
        prefix = f"{agent}/" if agent else ""
        if event["type"] == "assistant":
            if not agent:
                self.finish_reason = event.get("finish_reason")
        elif event["type"] == "usage":
            if not agent:
                self.post(self._usage(event["prompt_tokens"] + event["completion_tokens"]))
        elif event["type"] == "text_delta":
            if not agent:
                self.post(updates.message_text(event["text"]))
        elif event["type"] == "reasoning_delta":  # shown as it arrives, before the answer it precedes
            if not agent:
                self.post(updates.thought_text(event["text"]))
        elif event["type"] == "reasoning":
            if not agent and not event.get("streamed"):  # a model that does not stream it: shown whole, once
                self.post(updates.thought_text(event["text"]))
        elif event["type"] == "tool_call":
            self._tool_call(prefix + event["id"], event["name"], event["arguments"], sub=bool(agent))
        elif event["type"] == "permission":
            if event["outcome"] == "approved":
                self.post(updates.status_update(prefix + event["id"], "in_progress"))
        elif event["type"] == "tool_result":
            self._tool_result(prefix + event["id"], event["success"], event["content"])
        elif event["type"] == "progress":  # a long call: how long, and its latest line of output
            line = f"{event['elapsed']}s" + (f": {event['last_line']}" if event["last_line"] else "")
            self.post(updates.progress_update(prefix + event["id"], line))
        elif event["type"] == "tasks":
            if not agent:
                self.post(updates.plan_of(event["tasks"]))
        elif event["type"] == "notice":  # said to the user; an internal error's traceback never leaves the process
            self.post(updates.message_text(f"\n_{event['message']}_\n"))

    def _tool_call(self, call_id: str, name: str, raw: str, sub: bool = False) -> None:
        found = self.tool_for(name)
        if found is not None and found.ends_run:  # finish: the main agent's message is the reply, shown as text
            self._finishing.add(call_id)
            if sub:  # a subagent's reaches the model as the task's result, not the user as the reply
                self._quiet.add(call_id)
            return
        assert self.session is not None
        start, diff = updates.tool_call_start(call_id, found, name, raw, self.session)
        if diff is not None and not sub:  # kept, so a loaded session shows the same diff (replay.py)
            note(self.session, "diff", **diff_note(call_id, diff))
        with self._lock:
            self._pending[call_id] = (name, updates.parse_arguments(raw), diff)
        self.post(start)

    def _usage(self, used: int) -> schema.UsageUpdate:
        """The context meter: the tokens the latest request filled of the window, and the cost so far."""
        assert self.session is not None
        usage = self.session.usage()
        cost = schema.Cost(amount=usage.cost, currency="USD") if usage.cost is not None else None
        return schema.UsageUpdate(session_update="usage_update", used=used, size=usage.context_window, cost=cost)

    def _tool_result(self, call_id: str, success: bool, content: str) -> None:
        if call_id in self._finishing:
            self._finishing.discard(call_id)
            if success and call_id not in self._quiet:
                self.post(updates.message_text(content))
            self._quiet.discard(call_id)
            return
        with self._lock:
            name, arguments, diff = self._pending.pop(call_id, ("", {}, None))
        found = self.tool_for(name) if name else None
        if success and self.files is not None and self.session is not None and updates.tool_kind(found) == "edit":
            assert found is not None
            for path, folder in found.path_arguments(arguments):
                if not folder:  # before the result goes out, so the editor shows the edit it reports
                    self.files.show_written(self.session, path)
        self.post(updates.tool_call_done(call_id, success, content, diff))

    def pending_diff(self, call_id: str) -> schema.FileEditToolCallContent | None:
        """The diff shown with the announced call `call_id` (the approver is told the call's id), if any."""
        with self._lock:
            pending = self._pending.get(call_id)
        return pending[2] if pending is not None else None

    # ---- questions, from the worker thread ----------------------------------------------------------

    def ask(self, tool_call: schema.ToolCallUpdate, options: list[schema.PermissionOption],
            cancelled: threading.Event) -> str | None:
        """The option the user picked, or None when the turn was cancelled or the client is gone."""
        answer: concurrent.futures.Future[str | None] = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self._queue.put_nowait, ("ask", (tool_call, options), answer))
        while True:
            try:
                return answer.result(timeout=ASK_POLL_SECONDS)
            except concurrent.futures.TimeoutError:
                if cancelled.is_set():
                    self.loop.call_soon_threadsafe(self._cancel_asks)
                    return None

    def _cancel_asks(self) -> None:
        for task in list(self._asks):
            task.cancel()

    # ---- on the loop ------------------------------------------------------------------------------

    async def flush(self) -> None:
        """Wait until everything queued so far has been handed to the client."""
        done: asyncio.Future[None] = self.loop.create_future()
        # Queued the way `post` queues (a callback), so it lands behind every update posted before it.
        self.loop.call_soon_threadsafe(self._queue.put_nowait, (_FLUSH, None, done))
        await done

    async def _pump(self) -> None:
        while True:
            kind, payload, answer = await self._queue.get()
            if kind == _FLUSH:
                answer.set_result(None)
            elif kind == "ask":
                task = self.loop.create_task(self._ask(payload, answer))
                self._asks.add(task)
                task.add_done_callback(self._asks.discard)
            else:
                try:
                    await self.client.session_update(session_id=self.session_id, update=payload)
                except Exception:  # a client that has gone: the session ends when its input does
                    continue

    async def _ask(self, payload: tuple[schema.ToolCallUpdate, list[schema.PermissionOption]],
                   answer: concurrent.futures.Future[str | None]) -> None:
        tool_call, options = payload
        chosen: str | None = None
        try:
            response = await self.client.request_permission(session_id=self.session_id, tool_call=tool_call,
                                                            options=options)
            outcome = response.outcome
            if isinstance(outcome, schema.AllowedOutcome):
                chosen = outcome.option_id
        except asyncio.CancelledError:
            chosen = None
        except Exception:  # an error answer or a vanished client: the call is refused
            chosen = None
        finally:
            if not answer.done():
                answer.set_result(chosen)

    def cancel(self) -> None:
        """Stop the running turn as Esc does; a question being asked is withdrawn (the call is refused)."""
        if self.session is not None:
            self.session.cancel()
        self._cancel_asks()

    def working(self, work: Callable[[], T]) -> T:
        """Run `work` (on the worker thread) as the session's running turn."""
        with self._working:
            return work()

    def close_after_turn(self, session: Session, wait: float) -> None:
        """Close the session once its cancelled turn has ended (or after `wait` seconds regardless): its jobs
        are killed and its MCP servers stopped."""
        ended = self._working.acquire(timeout=wait)
        try:
            session.close("other")
        finally:
            if ended:
                self._working.release()

    async def stop(self) -> None:
        if self._pump_task is not None:
            self._pump_task.cancel()
        self._cancel_asks()
