"""The transport over the official `openai` SDK: the `model_client = "openai-sdk"` setting, for a server that
only the SDK gets along with. The only module besides the doctor's probe that imports the SDK; its errors are
translated into `failures`' own, so the client classifies both transports' failures alike."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, cast
from urllib.parse import urlparse

import httpx2
import openai

from sneakycode.agent.model.failures import (
    ConnectionFailed,
    MalformedReply,
    RequestTimeout,
    StatusError,
    StreamErrorEvent,
)
from sneakycode.agent.model.http_transport import loopback_verify
from sneakycode.agent.model.providers import LOOPBACK_HOSTS, ModelConfig

NAMED = ("messages", "tools", "stream", "stream_options", "max_tokens", "max_completion_tokens")
"""The body's fields the SDK takes as arguments; the rest (cache and effort fields) go as its `extra_body`."""


def translate(exc: Exception) -> Exception:
    """The `failures` exception for one of the SDK's (or httpx2's, raised mid-stream); others as they are."""
    failure: Exception
    if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
        failure = RequestTimeout(str(exc))
    elif isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
        failure = ConnectionFailed(str(exc))
        failure.__cause__ = exc.__cause__ or exc  # the summary names the transport's own error, as it did
        return failure
    elif isinstance(exc, openai.APIStatusError):
        failure = StatusError(exc.status_code, exc.body if exc.body is not None else exc.message, exc.response.headers)
    elif isinstance(exc, openai.APIError):
        failure = StreamErrorEvent(exc.message)
    else:
        return exc
    failure.__cause__ = exc
    return failure


class SdkTransport:
    def __init__(self, config: ModelConfig) -> None:
        endpoint = urlparse(config.base_url)
        http_client = None
        if endpoint.hostname in LOOPBACK_HOSTS:  # a proxy from the environment must not swallow these requests
            http_client = openai.DefaultHttpx2Client(trust_env=False, verify=loopback_verify(endpoint.scheme))
        self._client = openai.OpenAI(api_key=config.api_key, base_url=config.base_url,
                                     timeout=config.request_timeout, max_retries=0, http_client=http_client)

    def close(self) -> None:
        self._client.close()

    @property
    def closed(self) -> bool:
        return self._client.is_closed()

    def _create(self, body: dict[str, Any]) -> Any:
        named = {key: body[key] for key in NAMED if key in body}
        extra = {key: value for key, value in body.items() if key not in NAMED and key != "model"}
        return self._client.chat.completions.create(model=body["model"], **named, extra_body=extra or None)

    def stream(self, body: dict[str, Any]) -> Generator[dict[str, Any], None, None]:
        try:
            with self._create(body) as stream:
                for chunk in stream:
                    yield chunk.to_dict()
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise translate(exc) from exc

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            completion = self._create(body)
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise translate(exc) from exc
        if not isinstance(completion, openai.BaseModel):
            raise MalformedReply(f"not a chat completion: {str(completion)[:200]!r}")
        return cast(dict[str, Any], completion.to_dict())

    def model_ids(self) -> list[str]:
        try:
            return [m.id for m in self._client.models.list()]
        except (openai.OpenAIError, httpx2.HTTPError) as exc:
            raise translate(exc) from exc
