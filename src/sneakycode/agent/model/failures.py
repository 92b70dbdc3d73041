"""What went wrong with a model request, in the few kinds the client acts on: retry (rate limits, server
errors, dropped connections, timeouts, malformed or stalled streams, honouring Retry-After), or stop and
say what to do (a rejected key, an unknown model, a request over the context window)."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass

import openai

from sneakycode.errors import ModelErrorKind

MAX_RETRY_AFTER = 120.0
CONTEXT_CODES = ("context_length_exceeded", "context_length", "maximum context length", "too many tokens")


@dataclass
class Failure:
    kind: ModelErrorKind  # of those a request can fail with (not the client's own: empty_reply, ...)
    summary: str
    retryable: bool
    retry_after: float | None = None


class EmptyStream(Exception):
    """HTTP 200 with an event stream that held no reply (llama.cpp when streaming with tools)."""


class MalformedReply(Exception):
    """HTTP 200 whose body is not a chat completion."""


class IdleStream(Exception):
    """A stream that started and then sent nothing for `stream_idle_timeout` seconds."""


def server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and error.get("message"):
            return str(error["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    return str(body) if body else exc.message


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


def classify(exc: Exception) -> Failure:
    if isinstance(exc, openai.APITimeoutError):
        return Failure("timeout", "the request timed out", True)
    if isinstance(exc, openai.APIConnectionError):
        return Failure("connection", f"connection failed ({exc.__cause__ or exc})", True)
    if isinstance(exc, openai.APIStatusError):
        status, message = exc.status_code, server_message(exc)
        summary = f"HTTP {status}: {message}"
        if status in (401, 403):
            return Failure("auth", summary, False)
        if status == 404 or exc.code == "model_not_found":
            return Failure("model_not_found", summary, False)
        if status in (408, 409, 429) or status >= 500:
            after = retry_after_seconds(exc.response.headers)
            kind: ModelErrorKind = "rate_limit" if status == 429 else "server"
            return Failure(kind, summary, after is None or after <= MAX_RETRY_AFTER, after)
        if any(code in f"{exc.code} {message}".lower() for code in CONTEXT_CODES):
            return Failure("context_length", summary, False)
        return Failure("bad_request", summary, False)
    if isinstance(exc, IdleStream):
        return Failure("timeout", str(exc), True)
    if isinstance(exc, json.JSONDecodeError | MalformedReply):
        return Failure("server", f"malformed reply ({exc})", True)
    if isinstance(exc, openai.APIError):
        return Failure("server", f"error event in the stream: {exc.message}", True)
    raise exc
