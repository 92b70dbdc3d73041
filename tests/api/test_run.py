"""The Python API as a program uses it: `sneakycode.run`, `Session.run`/`stream`, `arun`/`astream`, a
permission policy, the program's own tools, `cancel` from another thread."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import Field

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC, call, finish, fixing_steps, offered, tool_messages


def options(server: ScriptedServer, repo: Path, **more: Any) -> sneakycode.Options:
    settings = {"retry_backoff": 0.01, **more.pop("settings", {})}
    return sneakycode.Options(workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b", api_key="k",
                              isolated=True, settings=settings, **more)


def test_run_fixes_the_file_and_reports_what_changed(server: ScriptedServer, repo: Path) -> None:
    server.add_steps(fixing_steps())
    result = sneakycode.run("fix add", workspace=repo, base_url=server.base_url, model="qwen2.5-coder-7b",
                            api_key="k", mode="auto-edit", max_turns=5, isolated=True)
    assert (result.status, result.message, result.success) == ("finished", "Fixed add.", True)
    assert (repo / "calc.py").read_text() == CALC.replace("a - b", "a + b")
    assert result.files_changed == ["calc.py"] and result.turns == 3 and result.tool_calls == 3
    assert result.usage["total_tokens"] == result.usage["prompt_tokens"] + result.usage["completion_tokens"] > 0
    assert result.to_dict()["result"] == "Fixed add." and result.session_id


def test_a_session_keeps_one_conversation_and_streams_the_stream_json_events(server: ScriptedServer,
                                                                             repo: Path) -> None:
    server.add_steps([*fixing_steps(), {"content": "It adds now."}])
    with sneakycode.Session(options(server, repo, mode="auto-edit")) as session:
        events = list(session.stream("fix add"))
        answer = session.run("what does add do now?")
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "final" and events[-1]["status"] == "finished" and events[-1]["files_changed"] == ["calc.py"]
    assert {"assistant", "tool_call", "tool_result", "usage"} <= set(kinds)
    assert "turn" not in kinds and "text_delta" not in kinds  # the terminal's, not the stream's
    assert answer.status == "answered" and answer.message == "It adds now."
    last = server.chat_requests[-1]["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == ["fix add", "what does add do now?"]


def test_the_policy_decides_where_a_person_would_be_asked(server: ScriptedServer, repo: Path) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    def policy(name: str, arguments: dict[str, Any]) -> bool | str:
        asked.append((name, arguments))
        return "not today: only read the code"

    server.add_steps([call("read_file", file_path="calc.py"),
                      call("write_file", file_path="calc.py", content="x = 1\n"), finish("stopped")])
    result = sneakycode.run("rewrite", options(server, repo, can_use_tool=policy))
    assert [name for name, _ in asked] == ["write_file"]  # read_file is auto-approved: never asked
    assert asked[0][1]["file_path"] == "calc.py"
    refusal = tool_messages(server.chat_requests[2])[-1]
    assert "not today: only read the code" in refusal and "Error [rejected_by_user]" in refusal
    assert (repo / "calc.py").read_text() == CALC and result.status == "finished"
    # Regression (issue 37): a call the policy refused was missing from Result.denied.
    assert [(d["tool"], d["reason"].startswith("declined when asked")) for d in result.denied] == [("write_file", True)]
    assert '"calc.py"' in result.denied[0]["arguments"]


def test_without_a_policy_an_ask_is_refused_in_words_that_name_no_command_line_flag(server: ScriptedServer,
                                                                                    repo: Path) -> None:
    server.add_steps([call("read_file", file_path="calc.py"),
                      call("write_file", file_path="calc.py", content="x = 1\n"), finish("stopped")])
    result = sneakycode.run("rewrite", options(server, repo))
    refusal = tool_messages(server.chat_requests[2])[-1]
    assert "Error [permission_denied]" in refusal and "nobody can approve it" in refusal
    assert "--yes" not in refusal and "rerun" not in refusal
    assert [d["tool"] for d in result.denied] == ["write_file"] and (repo / "calc.py").read_text() == CALC


def test_a_policy_that_raises_refuses(server: ScriptedServer, repo: Path) -> None:
    def broken(name: str, arguments: dict[str, Any]) -> bool:
        raise KeyError("oops")

    server.add_steps([call("write_file", file_path="new.txt", content="x\n"), finish("done")])
    sneakycode.run("write", options(server, repo, can_use_tool=broken))
    assert not (repo / "new.txt").exists()
    assert "permission policy failed (KeyError" in tool_messages(server.chat_requests[1])[-1]


class Weather(sneakycode.ToolArgs):
    city: str = Field(description="city name")


@sneakycode.tool
def weather(args: Weather, ctx: sneakycode.ToolContext) -> sneakycode.ToolResult:
    """The weather in a city."""
    return sneakycode.ToolResult.ok(f"sunny in {args.city} " + "!" * 100_000)


def test_a_programs_tool_is_offered_validated_decided_and_capped(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([call("weather", city=3), call("weather", city="Oslo"), finish("sunny")])
    result = sneakycode.run("weather?", options(server, repo, tools=[weather],
                                                 settings={"max_output_bytes": 2048}))
    first = server.chat_requests[0]
    schema = next(t for t in first["tools"] if t["function"]["name"] == "weather")["function"]
    assert schema["description"] == "The weather in a city." and schema["parameters"]["required"] == ["city"]
    bad, good = tool_messages(server.chat_requests[2])
    assert bad.startswith("Error [invalid_arguments]")  # strict types, as for the built-ins
    assert good.startswith("sunny in Oslo") and len(good.encode()) <= 2048
    assert result.status == "finished"


def test_a_tool_that_may_change_things_asks(server: ScriptedServer, repo: Path) -> None:
    @sneakycode.tool(name="deploy", read_only=False)
    def deploy_it(args: Weather, ctx: sneakycode.ToolContext) -> sneakycode.ToolResult:
        """Deploy to a city."""
        return sneakycode.ToolResult.ok("deployed")

    seen: list[str] = []
    server.add_steps([call("deploy", city="Oslo"), finish("ok")])
    sneakycode.run("deploy", options(server, repo, tools=[deploy_it], can_use_tool=lambda n, a: seen.append(n) or True))
    assert seen == ["deploy"] and tool_messages(server.chat_requests[1]) == ["deployed"]


def test_cancel_from_another_thread_stops_the_turn(repo: Path) -> None:
    with ScriptedServer({"steps": [{"fault": "hang", "seconds": 30}]}) as slow, \
            sneakycode.Session(options(slow, repo)) as session:
        threading.Timer(0.5, session.cancel).start()
        started = time.monotonic()
        result = session.run("take your time")
    assert result.status == "cancelled" and time.monotonic() - started < 10


def test_arun_and_astream(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([{"content": "one"}, {"content": "two"}])

    async def main() -> tuple[sneakycode.Result, list[dict[str, Any]]]:
        with sneakycode.Session(options(server, repo)) as session:
            first = await session.arun("first")
            events = [event async for event in session.astream("second")]
        return first, events

    first, events = asyncio.run(main())
    assert first.message == "one" and events[-1]["type"] == "final" and events[-1]["result"] == "two"


def test_cancelling_the_astream_task_cancels_the_request(repo: Path) -> None:
    with ScriptedServer({"steps": [{"fault": "hang", "seconds": 30}]}) as slow:

        async def main() -> float:
            with sneakycode.Session(options(slow, repo)) as session:

                async def consume() -> None:
                    async for _ in session.astream("wait"):
                        pass

                task = asyncio.create_task(consume())
                await asyncio.sleep(0.5)
                started = time.monotonic()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                return time.monotonic() - started

        assert asyncio.run(main()) < 10


def test_a_bad_option_is_a_config_error_before_any_request(server: ScriptedServer, repo: Path) -> None:
    import pytest

    with pytest.raises(sneakycode.ConfigError, match=r"tools\.enabled names no tool 'read_fil'"):
        sneakycode.Session(options(server, repo, enabled_tools=["read_fil"]))
    with pytest.raises(sneakycode.ConfigError, match="is not a directory"):
        sneakycode.Session(options(server, repo / "missing"))
    assert server.chat_requests == []


def test_offered_tools_follow_enabled_tools(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([finish("ok")])
    sneakycode.run("hi", options(server, repo, enabled_tools=["read_file"]))
    assert offered(server.chat_requests[0]) == ["read_file", "finish"]


def test_two_concurrent_streams_take_turns_and_never_mix_their_events(server: ScriptedServer, repo: Path) -> None:
    """Regression (issue 36): a second `stream()` on one session took over the first one's events. Now the
    second waits until the first has ended, and each stream holds only its own request's events."""
    release = threading.Event()

    @sneakycode.tool(name="hold")
    def hold(args: Weather, ctx: sneakycode.ToolContext) -> sneakycode.ToolResult:
        """Holds the first request while the second one starts."""
        release.wait(10)
        return sneakycode.ToolResult.ok("held in " + args.city)

    server.add_steps([call("hold", city="Oslo"), finish("first done"), {"content": "second answer"}])
    with sneakycode.Session(options(server, repo, tools=[hold], can_use_tool=lambda n, a: True)) as session:
        first = session.stream("first")
        first_events = []
        for event in first:
            first_events.append(event)
            if event["type"] == "tool_call":
                break
        second_events: list[dict[str, Any]] = []
        second = threading.Thread(target=lambda: second_events.extend(session.stream("second")))
        second.start()
        deadline = time.monotonic() + 5  # until the second request's worker exists (it then waits its turn)
        while sum(t.name == "sneakycode-session" for t in threading.enumerate()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        release.set()
        first_events.extend(first)
        second.join(10)
    assert first_events[-1]["type"] == "final" and first_events[-1]["result"] == "first done"
    assert second_events[-1]["type"] == "final" and second_events[-1]["result"] == "second answer"
    assert [e["type"] for e in second_events if e["type"] in ("tool_call", "tool_result")] == []
    assert "second answer" not in str(first_events) and "held in Oslo" not in str(second_events)
