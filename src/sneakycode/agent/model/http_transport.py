"""The default transport: chat completions over httpx2, the HTTP library already in the dependencies.

Hand-written instead of the official SDK because importing the SDK is most of what a run paid before its first
request (about 0.5 s of CPU building hundreds of pydantic types, docs/performance.md); this client needs only
a POST, a GET and the server-sent events of a stream, and does its own retries, assembly and classification
anyway. It behaves as the SDK did where a server is concerned: the same body, the bearer key, redirects followed,
`request_timeout` on connecting and on every read, an `error` object in the stream is a failure, `[DONE]` ends it.
"""

from __future__ import annotations

import json
import os
import ssl
from collections.abc import Generator, Iterator
from typing import Any
from urllib.parse import urlparse

import httpx2

from sneakycode.agent.model.failures import (
    ConnectionFailed,
    MalformedReply,
    RequestTimeout,
    StreamErrorEvent,
    status_error,
)
from sneakycode.agent.model.providers import LOOPBACK_HOSTS, ModelConfig
from sneakycode.version import __version__


def loopback_verify(scheme: str) -> ssl.SSLContext | bool:
    """The TLS check for a server on this machine. Over plain http it is a context that trusts no one instead of
    the system's CA bundle: loading the bundle costs some 30 ms of every start and a local server never uses it;
    a redirect to https then fails instead of going unverified."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if scheme == "http" else True


class HttpTransport:
    def __init__(self, config: ModelConfig) -> None:
        endpoint = urlparse(config.base_url)
        loopback = endpoint.hostname in LOOPBACK_HOSTS
        self._base = config.base_url.rstrip("/")
        self._client = httpx2.Client(
            timeout=config.request_timeout,
            follow_redirects=True,
            # A proxy from the environment must not swallow the requests to a server on this machine.
            trust_env=not loopback,
            verify=loopback_verify(endpoint.scheme) if loopback else True,
            headers=_headers(config.api_key),
        )

    def close(self) -> None:
        self._client.close()

    @property
    def closed(self) -> bool:
        return self._client.is_closed

    def stream(self, body: dict[str, Any]) -> Generator[dict[str, Any], None, None]:
        try:
            with self._client.stream("POST", f"{self._base}/chat/completions", json=body) as response:
                if response.status_code >= 400:
                    response.read()
                    raise status_error(response.status_code, response.text, response.headers)
                for data in _event_data(response.iter_lines()):
                    if data.startswith("[DONE]"):
                        break
                    yield _chunk(json.loads(data))
        except httpx2.TimeoutException as exc:
            raise RequestTimeout(str(exc)) from exc
        except httpx2.TransportError as exc:
            raise ConnectionFailed(str(exc)) from exc

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        response = self._send("POST", "/chat/completions", body)
        completion = response.json()
        if not isinstance(completion, dict):
            raise MalformedReply(f"not a chat completion: {str(completion)[:200]!r}")
        return completion

    def model_ids(self) -> list[str]:
        listing = self._send("GET", "/models", None).json()
        return [str(entry["id"]) for entry in listing["data"]]

    def _send(self, method: str, path: str, body: dict[str, Any] | None) -> httpx2.Response:
        try:
            response = self._client.request(method, f"{self._base}{path}", json=body)
        except httpx2.TimeoutException as exc:
            raise RequestTimeout(str(exc)) from exc
        except httpx2.TransportError as exc:
            raise ConnectionFailed(str(exc)) from exc
        if response.status_code >= 400:
            raise status_error(response.status_code, response.text, response.headers)
        return response


def _headers(api_key: str) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {api_key}", "User-Agent": f"sneakycode/{__version__}",
               "Accept": "application/json"}
    # What the SDK sends when these are set, so an OpenAI key scoped to an organization or project still works.
    for variable, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
        if os.environ.get(variable):
            headers[header] = os.environ[variable]
    return headers


def _chunk(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise MalformedReply(f"not a chat completion chunk: {str(data)[:200]!r}")
    if data.get("error"):
        error = data["error"]
        message = error.get("message") if isinstance(error, dict) else None
        # The SDK's words for an error object without a message, so both transports say the same.
        has_message = isinstance(message, str) and bool(message)
        raise StreamErrorEvent(str(message) if has_message else "An error occurred during streaming")
    return data


def _event_data(lines: Iterator[str]) -> Iterator[str]:
    """The data of each server-sent event. Hand-written (a dozen lines) rather than httpx2's EventSource, which
    refuses a stream whose content type is not text/event-stream: some local servers send another, and the SDK
    read those streams."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
            data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)
