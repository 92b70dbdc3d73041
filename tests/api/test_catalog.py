"""Issue 36: the listings a face shows through the session (api/catalog.py): subagents, MCP servers, the
server's models, the effective settings, and ending a background job."""

from __future__ import annotations

from pathlib import Path

import pytest

import sneakycode
from sneakycode.api.session import Session
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish


def options(server: ScriptedServer, repo: Path, **more: object) -> sneakycode.Options:
    return sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                              settings={"retry_backoff": 0.01}, **more)  # type: ignore[arg-type]


def test_listings_name_the_commands_subagents_servers_models_and_settings(repo: Path) -> None:
    skill = repo / ".sneakycode" / "skills" / "tidy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: tidy\ndescription: tidy the code\n---\nTidy it.\n")
    with ScriptedServer({"steps": [], "models": ["m", "other"]}) as server, \
            Session(options(server, repo, max_turns=7)) as session:
        assert [(s.name, s.description) for s in session.skills()] == [("tidy", "tidy the code")]
        assert ("tidy", "(skill) tidy the code") in session.commands()
        assert session.has_command("tidy") and not session.has_command("nothing")
        assert "explore" in [agent.name for agent in session.subagents()]
        assert session.mcp_servers() == []
        assert session.offered_models() == ["m", "other"]
        shown = {setting.key: setting for setting in session.settings_report()}
        assert shown["max_turns"].value == 7 and shown["max_turns"].origin != "default"
        assert "retry_backoff" in shown and len(session.settings_report(defaults=True)) > len(shown)
        session.set_model("other")
        assert {s.key: s for s in session.settings_report()}["model"].origin == "switched with /model in this session"


def test_offered_models_of_a_server_that_does_not_answer_is_an_os_error(repo: Path) -> None:
    with ScriptedServer({"steps": []}) as server:
        session = Session(options(server, repo))
    with session, pytest.raises(OSError):
        session.offered_models(timeout=2)


def test_kill_job_ends_a_background_command_and_an_unknown_id_is_none(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([call("run_command", command="sleep 60", background=True), finish("Started.")])
    with Session(options(server, repo, mode="yolo")) as session:
        assert session.kill_job(1) is None  # no job table yet
        session.run("start it")
        [job] = session.jobs()
        assert session.usage().running_jobs == ((job["id"], "sleep 60"),)
        ended = session.kill_job(int(str(job["id"])))
        assert ended is not None and ended["status"] == "killed"
        assert session.kill_job(99) is None
        assert session.usage().running_jobs == () and session.usage().jobs_started == 1
