"""What every part of the agent loop records a run by: a message joins the history and the transcript, a
notice reaches the user, a bug is reported with its traceback kept. The base of the loop's parts (the model
side, the tool side) and so of `Agent`."""

from __future__ import annotations

import traceback

from sneakycode.agent.messages import Message
from sneakycode.agent.protocol import EventSink
from sneakycode.session.transcript import Transcript


class RunRecord:
    """The history, the transcript and the event sink of one Agent, written only through these methods."""

    sink: EventSink
    history: list[Message]
    transcript: Transcript | None

    def _append(self, message: Message) -> None:
        self.history.append(message)
        if self.transcript is not None:
            self.transcript.message(message)

    def _notice(self, message: str | None) -> None:
        if message:
            self.sink.emit({"type": "notice", "message": message})

    def _internal_error(self, what: str, bug: BaseException) -> None:
        """A bug (`what` raised `bug`): the model gets only the coded result; the whole traceback goes to the
        transcript and, in a notice's `traceback`, to whoever shows it (headless --verbose). Main thread only:
        the transcript is written in order."""
        error = f"{type(bug).__name__}: {bug}"
        trace = "".join(traceback.format_exception(bug))
        where = ""
        if self.transcript is not None:
            self.transcript.write("internal_error", where=what, error=error, traceback=trace)
            where = f"; the traceback is in {self.transcript.path}"
        message = f"internal error (a bug in SneakyCode) in {what}: {error}{where}"
        self.sink.emit({"type": "notice", "message": message, "traceback": trace})
