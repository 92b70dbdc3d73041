"""Start importing the OpenAI SDK on a thread of its own, so it overlaps the work every model run does before
its first request (settings, the session folder, the tools, the start check of the server, MCP servers, the
map).

The SDK's import is most of what `-p` pays before the first request (issue 42): about 0.5 s of CPU building
hundreds of pydantic types. Both threads hold the GIL while they run Python, so the overlap gains what the
main thread spends waiting (files, subprocesses, the network), not a second core; docs/performance.md has the
measurement. Python's import lock makes the main thread wait for a module the thread is importing rather than
import it twice, so a run is never slower than importing it where it is used.
"""

from __future__ import annotations

import contextlib
import threading

_lock = threading.Lock()
_started = False


def start_sdk_import() -> None:
    """Begin the SDK's import once per process.

    pydantic is imported here first, on the calling thread: the settings import it anyway, and two threads
    importing a package with circular imports inside (pydantic has them) at the same moment can hand one of
    them a half-initialized module. The SDK's own modules are imported by nothing else of ours meanwhile."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    from pydantic import BaseModel  # noqa: F401  (see above)

    threading.Thread(target=_import, name="sneakycode-sdk-import", daemon=True).start()


def _import() -> None:
    # A failure is left to the same import where the client is built, which reports it.
    with contextlib.suppress(Exception):
        import openai  # noqa: F401
