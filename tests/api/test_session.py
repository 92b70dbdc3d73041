"""What a Session guarantees beyond one request: `isolated` leaves the user's home alone, `switch_model`
derives everything model-dependent again, one job table for the whole session (subagents included), and
`import sneakycode` stays light."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish, offered, tool_messages


def tree_digest(root: Path) -> dict[str, str]:
    """Every path under `root` with a digest of its bytes (folders and links too), to compare before/after."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "link:" + os.readlink(path)
        elif path.is_dir():
            found[key] = "dir"
        else:
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def test_isolated_reads_nothing_of_the_user_and_leaves_home_byte_identical(
    server: ScriptedServer, repo: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (issue 24): constructing a run read the user's config and created a session folder under
    the state directory as side effects."""
    config = isolated_home / ".config" / "sneakycode"
    (config / "skills" / "mine").mkdir(parents=True)
    (config / "config.toml").write_text('[permissions]\ndeny = ["read_file"]\n')
    (config / "skills" / "mine" / "SKILL.md").write_text("---\nname: mine\ndescription: the user's skill\n---\nHi\n")
    monkeypatch.setenv("SNEAKYCODE_MAX_TURNS", "1")
    before = tree_digest(isolated_home)
    server.add_steps([call("read_file", file_path="calc.py"), finish("read it")])
    result = sneakycode.run("read calc.py", workspace=repo, base_url=server.base_url, model="m", api_key="k",
                            isolated=True)
    assert result.status == "finished" and result.turns == 2  # SNEAKYCODE_MAX_TURNS=1 was not read
    assert tool_messages(server.chat_requests[1])[0].startswith("     1\tdef add")  # the user's deny rule neither
    assert "skill" not in offered(server.chat_requests[0])  # nor the user's skill
    assert tree_digest(isolated_home) == before


def test_isolated_with_a_state_dir_keeps_the_session_there(server: ScriptedServer, repo: Path,
                                                           tmp_path: Path) -> None:
    state = tmp_path / "state"
    server.add_steps([{"content": "hello"}])
    result = sneakycode.run("hi", workspace=repo, base_url=server.base_url, model="m", api_key="k",
                            isolated=True, state_dir=state)
    assert (state / "sessions" / result.session_id / "transcript.jsonl").is_file()


def test_switch_model_rechooses_the_edit_tool_and_closes_the_old_client(server: ScriptedServer, repo: Path) -> None:
    """Regression (issue 24): after /model to another family the edit tool was not re-chosen, and the old
    HTTP client was never closed."""
    server.add_steps([{"content": "one"}, {"content": "two"}])
    with sneakycode.Session(sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b",
                                               api_key="k", isolated=True)) as session:
        session.run("first")
        old = session._agent.model
        session.switch_model("gpt-4.1-mini")
        session.run("second")
        assert old.closed  # type: ignore[attr-defined]
        assert session.model == "gpt-4.1-mini"
    first, second = server.chat_requests
    assert "str_replace" in offered(first) and "patch_apply" not in offered(first)
    assert "patch_apply" in offered(second) and "str_replace" not in offered(second)
    assert second["model"] == "gpt-4.1-mini"
    system = second["messages"][0]["content"]
    assert "patch_apply" in system and "str_replace" not in system  # the prompt names only offered tools
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["first", "second"]


def test_switch_model_small_moves_the_chores_and_leaves_the_main_model(server: ScriptedServer, repo: Path) -> None:
    """Issue 26, model roles: `switch_model(NAME, role="small")` sends the summaries to NAME from then on
    (the old small client closed); `switch_model(NAME)` still means the main model."""
    from sneakycode.agent.compaction_now import compact_now

    server.add_steps([{"content": "one"}, {"content": "a summary"}, {"content": "another summary"},
                      {"content": "two"}])
    with sneakycode.Session(sneakycode.Options(workspace=repo, base_url=server.base_url, model="main-model",
                                               api_key="k", isolated=True)) as session:
        assert session.small_config is None
        session.run("first")
        session.switch_model("tiny", role="small")
        assert session.small_config is not None and session.small_config.model == "tiny"
        assert compact_now(session._agent) is not None
        old = session._agent.small
        session.switch_model("tinier", role="small")
        assert old is not None and old.model.closed  # type: ignore[attr-defined]
        assert compact_now(session._agent) is not None
        session.run("second")
        assert session.model == "main-model"
        with pytest.raises(ValueError, match="role"):
            session.switch_model("x", role="tiny")
    assert [r["model"] for r in server.chat_requests] == ["main-model", "tiny", "tinier", "main-model"]


def test_a_subagents_background_job_belongs_to_the_session(server: ScriptedServer, repo: Path) -> None:
    """Regression (issue 24): a subagent copied the tool context, so its background job was invisible to the
    session's job list and survived the session's close."""
    agents = repo / ".sneakycode" / "agents"
    agents.mkdir(parents=True)
    (agents / "worker.md").write_text("---\nname: worker\ndescription: starts things\ntools: run_command\n---\nWork.\n")
    server.add_steps([
        call("task", agent="worker", prompt="start the server"),
        call("run_command", command="sleep 60", background=True),
        finish("started"),
        finish("done"),
    ])
    session = sneakycode.Session(sneakycode.Options(
        workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True, mode="yolo",
        settings={"tools.shell.sandbox": "off"}))
    try:
        result = session.run("start it in a subagent")
        assert result.status == "finished"
        assert [(j["command"], j["status"]) for j in result.jobs] == [("sleep 60", "running")]
        pid = result.jobs[0]["pid"]
        assert session._ctx.jobs.get(result.jobs[0]["id"]) is not None  # the job tool of the main agent sees it
    finally:
        killed = session.close()
    assert [job.command for job in killed] == ["sleep 60"]
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return state not in ("Z", "X")


def test_import_sneakycode_loads_no_sdk_and_no_model_of_the_tools() -> None:
    code = ("import sys, sneakycode; sneakycode.Options; "
            "print([m for m in ('openai', 'mcp', 'pydantic', 'trafilatura', 'tree_sitter', 'httpx', 'rich') "
            "if m in sys.modules])")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(shown.replace("'", '"')) == []


SNAPSHOT = Path(__file__).with_name("public_api.json")


def public_api() -> dict[str, Any]:
    import dataclasses
    import inspect

    shown: dict[str, Any] = {}
    for name in sorted(sneakycode.__all__):
        value = getattr(sneakycode, name)
        if dataclasses.is_dataclass(value):
            shown[name] = {f.name: str(f.type) for f in dataclasses.fields(value)}
            methods = {m: str(inspect.signature(getattr(value, m))) for m in sorted(vars(value))
                       if not m.startswith("_") and callable(getattr(value, m))}
            shown[name] = {"fields": shown[name], "methods": methods}
        elif inspect.isclass(value):  # its methods, those it inherits from the package's classes too (the verbs)
            mine = [klass for klass in inspect.getmro(value) if klass.__module__.startswith("sneakycode")]
            own = {m for klass in mine for m in vars(klass)}
            shown[name] = {m: str(inspect.signature(getattr(value, m))) for m in sorted(own)
                           if (not m.startswith("_") or m == "__init__") and inspect.isfunction(getattr(value, m))}
            # Its properties too (the door has no public `agent`, `ctx` or `parts`: issue 36).
            shown[name].update({m: "property" for m in sorted(own) if not m.startswith("_")
                                and isinstance(inspect.getattr_static(value, m), property)})
        elif callable(value):
            try:
                shown[name] = str(inspect.signature(value))
            except (TypeError, ValueError):
                shown[name] = "callable"
        else:
            shown[name] = repr(value)
    return shown


def test_the_public_api_changes_only_deliberately() -> None:
    """`sneakycode.__all__` is the contract: a change to a name or a signature fails here until the snapshot
    is written again (UPDATE_API_SNAPSHOT=1) and the change is described in docs/sdk.md."""
    current = public_api()
    if os.environ.get("UPDATE_API_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    assert current == json.loads(SNAPSHOT.read_text())
    for name in sneakycode.__all__:
        assert getattr(sneakycode, name) is not None
