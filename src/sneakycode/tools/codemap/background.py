"""The repository map's build in the background of a session: started as the session opens, so the index is
brought up to date (and its reference graph and ranks warmed) while the rest of the session starts and the
user types; the first request then waits for it at most `repo_map.build_seconds`.

A build not done by then goes on, filling the session's index and the shared store (store.py) for the next
session, batch task or eval task on the same content; the session's end stops it (what was parsed by then is
kept), so no process waits on it to exit. Threads, not a process: the parse itself runs in worker processes
(parse.py) and this thread mostly waits on them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.tools.codemap.index import Refresh

_STOP_SECONDS = 5.0  # how long the session's end waits for a stopped build to put down what it parsed


@dataclass(frozen=True)
class MapRequest:
    """What a build needs: the workspace, the deny rules' `hidden`, the size limit, the session folder (its
    log) and the shared store's folder, and the map's budget in tokens (for warming the ranks)."""

    root: Path
    hidden: Callable[[str], str | None]
    max_file_bytes: int
    cache_dir: Path | None
    index_dir: Path | None
    max_tokens: int


class MapBuild:
    """One build running in a daemon thread. The first request waits for `ready`; when it cannot wait longer
    it `cut`s the build, which stops parsing, hands over what it has (`report`), waits until that request
    has `taken` it, and then parses the rest for the next session. `stop` ends it all (the session's end)."""

    def __init__(self, request: MapRequest) -> None:
        self.request = request
        self.stopping = threading.Event()
        self._halt = threading.Event()  # set by cut() and stop(): the parse in progress stops
        self.ready = threading.Event()  # `report` (or `error`) is there
        self.taken = threading.Event()  # the first request used the report: the index is free again
        self.done = threading.Event()
        self.error: Exception | None = None
        self.report: Refresh | None = None
        self._thread = threading.Thread(target=self._run, name="sneakycode-repo-map", daemon=True)
        self._thread.start()

    def wait(self, seconds: float) -> bool:
        """Whether the build's report is ready, waiting at most `seconds` for it."""
        return self.ready.wait(max(0.0, seconds))

    def cut(self) -> None:
        """Stop parsing now and hand over what was parsed; the rest is parsed after `taken`."""
        self._halt.set()

    def stop(self) -> None:
        """Stop parsing (what was parsed is kept) and wait, briefly, for the thread to end."""
        self.stopping.set()
        self._halt.set()
        self.taken.set()
        self._thread.join(_STOP_SECONDS)

    def _run(self) -> None:
        from sneakycode.tools.codemap.index import index_for
        from sneakycode.tools.codemap.rank import rank_definitions

        request = self.request
        try:
            index = index_for(request.root, request.cache_dir, request.index_dir)
            with index.lock:
                report = index.refresh(request.hidden, request.max_file_bytes, None, self._halt, save=False)
                if not self._halt.is_set():  # warmed here, so the first request only ranks toward its focus
                    tags = {path: entry.tags for path, entry in index.entries.items()}
                    index.graph.update(tags, report.changed_paths)
                    _, index.ranks = rank_definitions(index.graph, tags, (), (), index.ranks, request.max_tokens)
                self.report = report
            self.ready.set()
            self.taken.wait()  # the session's log is written after the first request has its map
            with index.lock:
                if (report.pending or report.walk_cut) and not self.stopping.is_set():
                    index.refresh(request.hidden, request.max_file_bytes, None, self.stopping, save=False)
                index.flush()  # the rest, for the next session (the store has it already)
        except Exception as exc:  # the map only helps: the first request says why it went without one
            self.error = exc
        finally:
            self.ready.set()
            self.done.set()


class SessionMapBuild:
    """The session's background build, if one was started; stopped when the session ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.build: MapBuild | None = None

    def start(self, request: MapRequest) -> MapBuild:
        """The build of this session (the one already started, if any: a session has one workspace)."""
        with self._lock:
            if self.build is None:
                self.build = MapBuild(request)
            return self.build

    def close(self) -> None:
        with self._lock:
            build, self.build = self.build, None
        if build is not None:
            build.stop()
