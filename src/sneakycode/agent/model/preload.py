"""Start importing the HTTP library the model client uses on a thread of its own, so it overlaps the work every
model run does before its first request (settings, the session folder, the tools, the start check of the
server, MCP servers, the map).

The client is a thin one on httpx2 (agent/model/http_transport.py) since issue 42: importing httpx2 is about
0.1 s of CPU, where the official SDK (now the `model_client = "openai-sdk"` option) was 0.5 s. Both threads
hold the GIL while they run Python, so the overlap gains what the main thread spends waiting (files,
subprocesses, the network), not a second core; docs/performance.md has the measurement. Python's import lock
makes the main thread wait for a module the thread is importing rather than import it twice, so a run is never
slower than importing it where it is used. Only the third-party package is imported here, never a module of
ours: two threads importing modules with circular imports between them can hand one a half-built module.
"""

from __future__ import annotations

import contextlib
import threading

_lock = threading.Lock()
_started = False


def start_sdk_import() -> None:
    """Begin the HTTP library's import once per process (the name is older than the thin client)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    threading.Thread(target=_import, name="sneakycode-client-import", daemon=True).start()


def _import() -> None:
    # A failure is left to the same import where the client is built, which reports it.
    with contextlib.suppress(Exception):
        import httpx2

        # httpx2 imports its connection layer (httpcore2) only when the first transport is built, some 20 ms
        # more: a throwaway one is built here (verify=False, so no CA bundle is loaded for it).
        httpx2.HTTPTransport(verify=False, trust_env=False).close()
