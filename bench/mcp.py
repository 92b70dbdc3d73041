"""MCP client benchmark: the tools array every request carries with 0, 20 and 200 MCP tools, and the
start-up time the servers add before the first request.

Each row is a real `sneakycode -p` run against the scripted model and the SDK-built fixture server
(tests/fixtures/mcp_fixture_server.py, 10 tools plus generated ones); sizes are read from the first request
the model server received. "budget off" sets mcp.max_tool_chars high enough that all 200 are sent, which
is what the budget (default 8,000 characters, `mcp_search` instead) saves. Goals are printed, never enforced.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _cli_env import prepare_cli_env
from sneakycode.testing.server import ScriptedServer

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mcp_fixture_server.py"
GOAL_CHARS_WITH_200 = 12_000  # the built-ins (about 6,000) plus mcp_search, whatever the servers hold


def run(mcp_tools: int, budget: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home, ws = Path(tmp, "home"), Path(tmp, "ws")
        ws.mkdir()
        config = home / ".config" / "sneakycode" / "config.toml"
        config.parent.mkdir(parents=True)
        # A window that holds every tool: the "budget off" run sends 200 tools (~26,000 tokens), which an
        # 8,192-token window refuses before any request (context_overflow) since compaction checks the fit.
        lines = ["context_window = 131072"]
        lines += [] if budget is None else [f"mcp.max_tool_chars = {budget}"]
        if mcp_tools:
            args = json.dumps([str(FIXTURE), "--extra-tools", str(mcp_tools - 10)])
            lines += ["[mcp.servers.fx]", f"command = {json.dumps(sys.executable)}", f"args = {args}"]
        config.write_text("\n".join(lines) + "\n")
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_STATE_HOME": str(home / ".state"), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        steps = [{"tool_calls": [{"name": "finish", "arguments": {"message": "ok"}}]}]
        with ScriptedServer({"models": ["scripted-model"], "steps": steps}) as server:
            started = time.monotonic()
            argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "hi", "--base-url", server.base_url,
                    "--model", "scripted-model", "--workspace", str(ws), "--yes"]
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"run failed: {proc.stderr}")
            first = server.requests[1] if server.requests[0].path.endswith("/models") else server.requests[0]
            request = server.chat_requests[0]
            to_first = first.received_at - started
    tools = request["tools"]
    names = [t["function"]["name"] for t in tools]
    return {
        "sent": len(tools),
        "mcp": sum(n.startswith("mcp") for n in names),
        "chars": len(json.dumps(tools, separators=(",", ":"))),
        "first_request_s": to_first,
    }


def main() -> int:
    prepare_cli_env()
    rows = [("0 MCP tools", run(0, None)), ("20 MCP tools", run(20, None)), ("200 MCP tools", run(200, None)),
            ("200, budget off", run(200, 10_000_000))]
    print("| servers' tools | tools sent | of them MCP | tools array chars | time to first request |")
    print("| --- | --- | --- | --- | --- |")
    for label, row in rows:
        print(f"| {label} | {row['sent']} | {row['mcp']} | {row['chars']:,} | {row['first_request_s']:.2f} s |")
    with_200 = rows[2][1]["chars"]
    verdict = "ok" if with_200 <= GOAL_CHARS_WITH_200 else "MISSED"
    print(f"\n200 MCP tools cost {with_200:,} chars per request (goal <= {GOAL_CHARS_WITH_200:,}: {verdict}); "
          f"without the budget {rows[3][1]['chars']:,}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
