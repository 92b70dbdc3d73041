"""What went wrong with a model request, in the few kinds the client acts on: retry (rate limits, server
errors, dropped connections, timeouts, malformed or stalled streams, honouring Retry-After), or stop and
say what to do (a rejected key, an unknown model, a request over the context window).

The failures are this module's own exceptions, raised by either transport (`http_transport` on httpx2, or
`sdk_transport` on the openai SDK, which translates the SDK's), so classifying them never imports the SDK."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from sneakycode.errors import ModelErrorKind

MAX_RETRY_AFTER = 120.0
CONTEXT_CODES = ("context_length_exceeded", "context_length", "maximum context length", "too many tokens")


@dataclass
class Failure:
    kind: ModelErrorKind  # of those a request can fail with (not the client's own: empty_reply, ...)
    summary: str
    retryable: bool
    retry_after: float | None = None
    # A server that went silent (no response within request_timeout, or none for stall_timeout mid-reply) is
    # asked once more, whatever max_retries says: a hung server would otherwise hold a headless run for
    # max_retries times the timeout.
    silence: Literal["", "no_response", "mid_reply"] = ""


class EmptyStream(Exception):
    """HTTP 200 with an event stream that held no reply (llama.cpp when streaming with tools)."""


class MalformedReply(Exception):
    """HTTP 200 whose body is not a chat completion."""


class IdleStream(Exception):
    """A stream that started and then sent nothing for `stream_idle_timeout` seconds."""


class RequestTimeout(Exception):
    """No response (or no next chunk) within request_timeout."""


class ConnectionFailed(Exception):
    """The server could not be reached, or the connection broke; `__cause__` is the transport's own error."""


class StreamErrorEvent(Exception):
    """An event in the stream that carried an error instead of a chunk."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class StatusError(Exception):
    """An HTTP 4xx or 5xx answer. `body` is the `error` object of a JSON answer (or the whole answer)."""

    def __init__(self, status_code: int, body: object, headers: Mapping[str, str]) -> None:
        super().__init__(f"Error code: {status_code} - {body}")
        self.status_code, self.body, self.headers = status_code, body, headers

    @property
    def code(self) -> str | None:
        code = self.body.get("code") if isinstance(self.body, Mapping) else None
        return None if code is None else str(code)


def status_error(status: int, text: str, headers: Mapping[str, str]) -> StatusError:
    """The error for an HTTP failure's body, taken apart as the SDK does (the `error` object if there is one)."""
    try:
        body: object = json.loads(text)
    except ValueError:
        body = text
    if isinstance(body, Mapping):
        body = body.get("error", body)
    return StatusError(status, body, headers)


def server_message(exc: StatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return str(body) if body else str(exc)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    try:
        return float(headers["retry-after-ms"]) / 1000
    except (KeyError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def silence_message(base_url: str, failure: Failure, request_timeout: float, tries: str) -> str:
    """What a request given up for silence says: which setting gave up on it, and that it may be raised."""
    if failure.silence == "mid_reply":
        return (f"{base_url} stalled{tries}: {failure.summary}. The server may be overloaded or hung; raise "
                "stall_timeout in the config if the model pauses that long mid-reply.")
    return (f"{base_url} sent no response within {request_timeout:g} s{tries}; raise request_timeout in the config "
            "if the model is slow.")


def classify(exc: Exception) -> Failure:
    if type(exc).__module__.partition(".")[0] == "openai":  # the SDK is loaded already when one of its errors is
        from sneakycode.agent.model.sdk_transport import translate

        exc = translate(exc)
    if isinstance(exc, RequestTimeout):
        return Failure("timeout", "the request timed out", True, silence="no_response")
    if isinstance(exc, ConnectionFailed):
        return Failure("connection", f"connection failed ({exc.__cause__ or exc})", True)
    if isinstance(exc, StatusError):
        status, message = exc.status_code, server_message(exc)
        summary = f"HTTP {status}: {message}"
        if status in (401, 403):
            return Failure("auth", summary, False)
        if status == 404 or exc.code == "model_not_found":
            return Failure("model_not_found", summary, False)
        if status in (408, 409, 429) or status >= 500:
            after = retry_after_seconds(exc.headers)
            kind: ModelErrorKind = "rate_limit" if status == 429 else "server"
            return Failure(kind, summary, after is None or after <= MAX_RETRY_AFTER, after)
        if any(code in f"{exc.code} {message}".lower() for code in CONTEXT_CODES):
            return Failure("context_length", summary, False)
        return Failure("bad_request", summary, False)
    if isinstance(exc, IdleStream):
        return Failure("timeout", str(exc), True, silence="mid_reply")
    if isinstance(exc, json.JSONDecodeError | MalformedReply):
        return Failure("server", f"malformed reply ({exc})", True)
    if isinstance(exc, StreamErrorEvent):
        return Failure("server", f"error event in the stream: {exc.message}", True)
    raise exc
