"""The repository map is built in the background from the session's start (speed, issue 42): the first request
waits for it at most `repo_map.build_seconds`, and a second session on the same content reuses its tags."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import sneakycode
from sneakycode.testing.server import ScriptedServer
from sneakycode.tools.codemap.background import MapRequest
from sneakycode.tools.codemap.repomap import HEADING
from sneakycode.tools.codemap.store import STORE_NAME
from tests.tools.codemap.sample_repo import make_repo


def options(server: ScriptedServer, root: Path, state: Path, events: list[Any] | None = None,
            **settings: Any) -> sneakycode.Options:
    return sneakycode.Options(workspace=root, base_url=server.base_url, model="m", api_key="k", isolated=True,
                              state_dir=state, settings={"context_window": 32_768, "repo_map": settings},
                              on_event=None if events is None else events.append)


def first_user(server: ScriptedServer, number: int = 0) -> str:
    return str(next(m for m in server.chat_requests[number]["messages"] if m["role"] == "user")["content"])


def test_the_first_request_waits_for_the_map_no_longer_than_build_seconds(server: ScriptedServer, ws: Path,
                                                                         tmp_path: Path) -> None:
    """Before: the first request waited for the map's walk and parse (up to 3 s of parsing, the walk without
    bound: a folder with site-packages inside took 87 s)."""
    root = make_repo(ws)
    release = threading.Event()

    def slow_rules(path: str) -> str | None:  # a walk that does not end before the test says so
        release.wait(30)
        return None

    events: list[Any] = []
    server.add_steps([{"content": "Done."}])
    try:
        with sneakycode.Session(options(server, root, tmp_path / "state", events, build_seconds=0.3)) as session:
            ctx = session._ctx
            ctx.session.map_build.close()  # the build the session started, replaced by one that cannot finish
            ctx.session.map_build.start(MapRequest(root, slow_rules, 1 << 20, ctx.session_dir, tmp_path / "tags",
                                                   1024))
            start = time.monotonic()
            result = session.run("Where is record_payment defined?")
            waited = time.monotonic() - start
            release.set()
    finally:
        release.set()
    assert result.status == "answered", result.message
    assert waited < 2.0  # 0.3 s for the map, the rest the request itself
    assert first_user(server) == "Where is record_payment defined?"
    assert any("repository map was left out" in str(e.get("message")) for e in events)


def test_a_second_session_on_a_copy_reuses_the_tags_and_sends_the_same_map(server: ScriptedServer, ws: Path,
                                                                          tmp_path: Path) -> None:
    root = make_repo(ws)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    shared = tmp_path / "tags"
    server.add_steps([{"content": "Done."}, {"content": "Done."}])
    for number, (where, state) in enumerate(((root, tmp_path / "one"), (copy, tmp_path / "two"))):
        with sneakycode.Session(options(server, where, state, index_dir=str(shared), build_seconds=30)) as session:
            session.run("Where is record_payment defined?")
            build = session._ctx.session.map_build.build
            assert build is not None and build.report is not None
            assert build.report.reused == (0 if number == 0 else 9)
    assert (shared / STORE_NAME).is_file()
    assert HEADING in first_user(server, 0) and first_user(server, 0) == first_user(server, 1)
