"""Agent benchmarks: what every request costs in characters (cold start is bench/startup.py's).

Measures the compact tools array (also with the subagents' task tool, and with web_search as a configured search
backend adds it) and the system prompt sent on every
request, the full request log of a scripted read -> str_replace -> run_command -> finish session, and the
largest tool result of a session that reads a 900 KB file and runs a command printing 15 MB. Goals are
printed, never enforced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _cli_env import prepare_cli_env

TOOLS_GOAL_CHARS = 7000  # the budget: all built-in tools together (it was 6,000 with 12 tools)
WITH_TASK_GOAL_CHARS = 7000
WEB_SEARCH_GOAL_CHARS = 320  # web_search's own share (issue 31); it is offered only with a search backend


def sneakycode_argv() -> list[str]:
    script = Path(sys.executable).with_name("sneakycode")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sneakycode.faces.cli.main"]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def headless(base_url: str, ws: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    argv = [*sneakycode_argv(), "-p", "Fix add", "--base-url", base_url, "--model", "scripted-model",
            "--workspace", str(ws), "--yes", *flags]
    return subprocess.run(argv, env=env, capture_output=True, text=True, check=False)


def _verdict(met: bool) -> str:
    return "ok" if met else "MISSED"


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def request_chars(bodies: list[dict[str, Any]]) -> int:
    return sum(len(compact(body)) for body in bodies)


def skill_rows(ws: Path, schemas: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """What skills add to every request: the skill tool's schema and the skill list in the system prompt
    (40 skills against the default skills.max_prompt_chars budget)."""
    from sneakycode.config import Settings
    from sneakycode.extensions.skills import discover_skills, skill_tool, skills_prompt
    from sneakycode.workspace.files import Workspace

    for index in range(40):
        folder = ws / ".sneakycode" / "skills" / f"skill-{index:02}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{index:02}\ndescription: Does task number {index} the way this team likes it.\n---\nx\n"
        )
    catalog = discover_skills(Workspace(ws))
    tool_chars = len(compact(skill_tool(catalog).openai_schema()))
    with_skill = len(compact(schemas)) + 1 + tool_chars
    budget = Settings().skills.max_prompt_chars
    section = skills_prompt(catalog, budget)
    listed = section.count("\n- skill-")
    for folder in (ws / ".sneakycode").rglob("*"):
        if folder.is_file():
            folder.unlink()
    return [
        ("tools array + skill tool", f"{with_skill:,} chars",
         f"< {TOOLS_GOAL_CHARS:,} {_verdict(with_skill < TOOLS_GOAL_CHARS)} (skill tool {tool_chars:,})"),
        ("skill list in system prompt (40 skills)", f"{len(section):,} chars",
         f"<= {budget:,} {_verdict(len(section) <= budget)} ({listed} listed, the rest counted)"),
    ]


def main() -> int:
    prepare_cli_env()
    from sneakycode.agent.prompts import build_system_prompt
    from sneakycode.agent.subagent_definitions import load_definitions
    from sneakycode.agent.subagents import Subagents
    from sneakycode.config import Settings
    from sneakycode.testing.server import ScriptedServer
    from sneakycode.tools.registry import all_tools, offered_tools, openai_schemas
    from sneakycode.workspace.files import Workspace

    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = root / "ws"
        ws.mkdir()
        (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (ws / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
        env = {**os.environ, "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state"),
               "XDG_CONFIG_HOME": str(root / "config"), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}

        # What a default configuration offers; web_search joins it once a search backend is configured.
        schemas = openai_schemas(offered_tools(None, "both", Settings()))
        tools_chars = len(compact(schemas))
        sizes = sorted(((len(compact(s)), s["function"]["name"]) for s in schemas), reverse=True)
        largest_tools = ", ".join(f"{name} {size:,}" for size, name in sizes[:3])
        prompt_chars = len(build_system_prompt(Workspace(ws)))
        rows += [
            ("tools array, compact JSON", f"{tools_chars:,} chars", f"< {TOOLS_GOAL_CHARS:,} "
             f"{_verdict(tools_chars < TOOLS_GOAL_CHARS)} ({len(schemas)} tools; largest: {largest_tools})"),
            ("system prompt", f"{prompt_chars:,} chars", ""),
        ]
        for fmt, family in (("replace", "Qwen, Llama, Mistral, ..."), ("patch", "GPT-4.1, GPT-5, Codex")):
            chosen = offered_tools(None, fmt)
            rows.append((f"tools array, edit_format={fmt}", f"{len(compact(openai_schemas(chosen))):,} chars",
                         f"{len(chosen)} tools, auto for {family}"))
        rows += skill_rows(ws, schemas)

        subagents = Subagents(load_definitions(Workspace(ws))[0], all_tools())
        with_task = [*schemas, subagents.tool.openai_schema()]
        task_chars = len(compact(with_task))
        rows.append(("tools array + task tool (explore)", f"{task_chars:,} chars",
                     f"< {WITH_TASK_GOAL_CHARS:,} {_verdict(task_chars < WITH_TASK_GOAL_CHARS)} "
                     f"(task alone {len(compact(subagents.tool.openai_schema())):,})"))
        from sneakycode.tools.registry import conditional_tools

        with_code = [*with_task, *(t.openai_schema() for t in conditional_tools())]
        code_chars = len(compact(with_code))
        rows.append(("tools array + task + code (a language server runs)", f"{code_chars:,} chars",
                     f"< {WITH_TASK_GOAL_CHARS:,} {_verdict(code_chars < WITH_TASK_GOAL_CHARS)} "
                     f"(code alone {code_chars - task_chars - 1:,}; offered only where a server serves the workspace)"))

        searching = Settings.model_validate(
            {"tools": {"web": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}}}}
        )
        configured = openai_schemas(offered_tools(None, "both", searching))
        search_chars = len(compact(next(s for s in configured if s["function"]["name"] == "web_search")))
        configured_chars = len(compact(configured))
        configured_task = len(compact([*configured, subagents.tool.openai_schema()]))
        rows += [
            ("web_search alone (configured variant)", f"{search_chars:,} chars",
             f"<= {WEB_SEARCH_GOAL_CHARS:,} {_verdict(search_chars <= WEB_SEARCH_GOAL_CHARS)}"),
            ("tools array + web_search (search configured)", f"{configured_chars:,} chars",
             f"< {TOOLS_GOAL_CHARS:,} {_verdict(configured_chars < TOOLS_GOAL_CHARS)} ({len(configured)} tools)"),
            ("tools array + web_search + task tool", f"{configured_task:,} chars",
             f"< {WITH_TASK_GOAL_CHARS:,} {_verdict(configured_task < WITH_TASK_GOAL_CHARS)}"),
        ]
        # Every built-in at once: search configured, a language server running, subagents on.
        everything = [*configured, *(t.openai_schema() for t in conditional_tools()), subagents.tool.openai_schema()]
        every_chars = len(compact(everything))
        rows.append(("every built-in: + web_search + code + task", f"{every_chars:,} chars",
                     f"<= {WITH_TASK_GOAL_CHARS:,} {_verdict(every_chars <= WITH_TASK_GOAL_CHARS)} "
                     f"({len(everything)} tools; the budget)"))

        session = [
            call("read_file", file_path="calc.py"),
            call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"),
            call("run_command", command=f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"),
            call("finish", message="Fixed add()."),
        ]
        with ScriptedServer({"steps": session}) as server:
            done = headless(server.base_url, ws, env)
            bodies = server.chat_requests
        rows.append(
            ("scripted session: all requests", f"{request_chars(bodies):,} chars",
             f"{len(bodies)} requests, exit {done.returncode}")
        )

        (ws / "big.txt").write_text(("x" * 99 + "\n") * 9000)
        flood = [
            call("read_file", file_path="big.txt"),
            call("run_command", command="yes 0123456789abcdef | head -c 15000000"),
            call("finish", message="Flooded."),
        ]
        with ScriptedServer({"steps": flood}) as server:
            headless(server.base_url, ws, env)
            results = [m["content"] for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
        limit = Settings().max_output_bytes
        largest = max(len(r.encode("utf-8")) for r in results)
        rows.append(
            ("largest tool result (900 KB read, 15 MB output)", f"{largest:,} bytes",
             f"<= {limit:,} {_verdict(largest <= limit)}")
        )

    width = max(len(r[0]) for r in rows)
    print(f"| {'measure':<{width}} | {'value':>14} | goal / note |")
    print(f"| {'-' * width} | {'-' * 14} | ----------- |")
    for name, value, note in rows:
        print(f"| {name:<{width}} | {value:>14} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
