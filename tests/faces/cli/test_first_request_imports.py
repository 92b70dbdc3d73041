"""What `sneakycode -p` has imported when it sends its first request (issue 42): the tools' schemas, not their
machinery. bench/startup.py times the path; this keeps the module list, which a time would hide.

The probe runs `main(["-p", ...])` in a fresh interpreter against the scripted server and notes `sys.modules`
when the model client sends the first chat request (at the transport, the seam every request goes through).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sneakycode.testing.server import ScriptedServer

PROBE = """
import contextlib, io, json, sys
from sneakycode.agent.model import http_transport

seen = []
sent = http_transport.HttpTransport.stream


def noting(self, body):
    if not seen:
        seen.append(sorted(sys.modules))
    return sent(self, body)


http_transport.HttpTransport.stream = noting
from sneakycode.faces.cli.main import main

with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(json.loads(sys.argv[1]))
print(json.dumps(seen[0] if seen else None))
"""

# Loaded by the first call of a tool that needs them, never before the first request.
TOOL_MACHINERY = (
    "sneakycode.tools.edit.matching",
    "sneakycode.tools.edit.patch",
    "sneakycode.tools.edit.merge",
    "sneakycode.tools.edit.strategies",
    "sneakycode.tools.diagnostics.after_edit",
    "sneakycode.tools.diagnostics.checkers",
    "sneakycode.tools.search.engine",
    "sneakycode.tools.search.ripgrep",
    "sneakycode.tools.search.verify",
    "sneakycode.tools.search.render",
    "sneakycode.process.sandbox",
    "sneakycode.tools.web.backends",
    "sneakycode.tools.web.results",
    "sneakycode.tools.lsp.client",
    "sneakycode.tools.web.convert",
    "sneakycode.tools.web.search_client",
)
# Read once a reply arrives (the text-call parsers, an output schema's checks and the RE2 binding they use), or
# used by programs on asyncio only.
AFTER_THE_REQUEST = ("sneakycode.agent.model.dialects", "sneakycode.agent.model.text_tool_calls",
                     "sneakycode.api.structured", "re2", "asyncio")
HEAVY_LIBRARIES = ("openai", "mcp", "pygls", "lsprotocol", "lxml", "jsonschema", "rich", "prompt_toolkit")


def modules_at_first_request(server: ScriptedServer, ws: Path) -> list[str]:
    argv = ["-p", "Say done", "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws)]
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], cwd=ws, capture_output=True, text=True,
                          check=True, timeout=60, env=env)
    modules: list[str] | None = json.loads(done.stdout.splitlines()[-1])
    assert modules is not None, done.stderr
    return modules


def under(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_the_first_request_offers_every_tool_without_importing_their_machinery(ws: Path) -> None:
    """Regression (issue 42): every tool module imported its whole machinery (the edit strategies and merge,
    the after-edit diagnostics, the search backends, the sandbox) and the model client the text-call parsers
    of 17 dialects, before the first request, which needs only the tools' names, descriptions and schemas."""
    (ws / "app.py").write_text("def main() -> None:\n    print('hi')\n")
    with ScriptedServer({"steps": [{"content": "Done."}], "models": ["scripted-model"]}) as server:
        modules = modules_at_first_request(server, ws)
        offered = {t["function"]["name"] for t in server.chat_requests[0]["tools"]}
    assert {"read_file", "grep_files", "str_replace", "patch_apply", "write_file", "run_command"} <= offered
    assert "sneakycode.tools.edit.tools" in modules and "sneakycode.tools.search.tools" in modules
    assert under(modules, TOOL_MACHINERY) == []
    assert under(modules, AFTER_THE_REQUEST) == []
    assert under(modules, HEAVY_LIBRARIES) == []
