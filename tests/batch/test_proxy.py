"""Hardening round three, advisory class (local listeners): the batch's model proxy listens on 127.0.0.1 only
and answers only requests that carry the batch's key; its agents get the key in their environment, never on a
command line that every local user can read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from sneakycode.batch.proxy import ModelProxy
from sneakycode.batch.ratelimit import RateLimiter
from sneakycode.batch.runner import RunOptions, agent_command
from sneakycode.batch.spec import TaskSpec
from sneakycode.batch.workspaces import prepare_copy
from sneakycode.testing.server import ScriptedServer
from tests.batch.scenario import done, make_repo


@pytest.fixture
def proxied() -> Iterator[tuple[ScriptedServer, str]]:
    with ScriptedServer([done()]) as server, ModelProxy(RateLimiter()) as proxy:
        yield server, proxy.route(server.base_url)


def test_a_request_without_the_batchs_key_is_refused_and_reaches_no_endpoint(
        proxied: tuple[ScriptedServer, str]) -> None:
    server, route = proxied
    parts = urlsplit(route)
    assert parts.hostname == "127.0.0.1"
    key = parts.path.strip("/").split("/")[0]
    assert len(key) >= 32  # 192 bits: not something to guess
    origin = f"http://127.0.0.1:{parts.port}"
    with httpx2.Client(trust_env=False) as client:
        for path in ("/v1/models", "/deadbeef/v1/models", f"/{key[:-1]}/v1/models", f"/{key}x/v1/models"):
            answer = client.get(origin + path)
            assert answer.status_code == 403, path
            assert "needs the batch's key" in answer.text and path not in answer.text
        assert server.requests == []
        assert client.get(f"{route}/models", headers={"Authorization": "Bearer unused"}).status_code == 200
    assert [request.path for request in server.requests] == ["/v1/models"]


def test_the_agent_gets_the_proxy_in_its_environment_not_on_its_command_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    task = TaskSpec.model_validate({"id": "t", "repo": str(repo), "prompt": "p", "base_url": "http://127.0.0.1:9/v1",
                                    "model": "m"})
    options = RunOptions(out_dir=tmp_path / "out", sandbox=False, task_timeout=60,
                         route=lambda base_url: "http://127.0.0.1:1/SECRETKEY/v1")

    argv, env = agent_command(task, prepare_copy(task, tmp_path / "tasks"), options, 30.0)
    assert not any("SECRETKEY" in arg for arg in argv) and "--base-url" not in argv
    assert env["SNEAKYCODE_BASE_URL"] == "http://127.0.0.1:1/SECRETKEY/v1"
    # Speed, issue 42: every task's agent shares the batch's store of parsed tags, not its own state folder's.
    assert env["SNEAKYCODE_REPO_MAP__INDEX_DIR"].endswith("codemap")
    assert not env["SNEAKYCODE_REPO_MAP__INDEX_DIR"].startswith(str(options.out_dir))
