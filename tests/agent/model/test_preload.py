"""An agent run imports the model client's HTTP library on a thread of its own as it starts (issue 42), so it
overlaps the settings and the session being prepared; and it never imports the OpenAI SDK, whose import was
most of what `-p` paid before its first request. `--help` and `sneakycode tool` import neither."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sneakycode.testing.server import ScriptedServer

# Notes which thread first asks for each of `httpx2`, `openai` and `lxml`, runs `sneakycode ARGV`, prints them.
PROBE = (
    "import contextlib, io, json, sys, threading\n"
    "seen = {}\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name in ('httpx2', 'openai'):\n"
    "            seen.setdefault(name, threading.current_thread().name)\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
    "from sneakycode.faces.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \\\n"
    "        contextlib.suppress(SystemExit):\n"
    "    main(json.loads(sys.argv[1]))\n"
    "for thread in threading.enumerate():\n"
    "    if thread is not threading.main_thread():\n"
    "        thread.join(60)\n"
    "print(json.dumps(seen))\n"
)


def first_importers(argv: list[str], cwd: Path) -> dict[str, str]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True,
                          check=True, timeout=60, cwd=cwd)
    found: dict[str, str] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_an_agent_run_imports_the_http_library_on_a_thread_of_its_own(ws: Path) -> None:
    assert first_importers(["-p", "hello", "--provider", "no-such-provider"], ws) == {
        "httpx2": "sneakycode-client-import"
    }


def test_a_headless_run_reaches_the_server_without_importing_the_openai_sdk_or_the_page_converter(ws: Path) -> None:
    """Regression (issue 42): every model run imported the SDK (about 0.5 s of CPU, 800+ modules), and web_fetch's
    page converter (lxml) with the tool, though a run that fetches no page never uses it."""
    with ScriptedServer([{"content": "Done."}]) as server:
        seen = first_importers(["-p", "Say done", "--base-url", server.base_url, "--model", "m", "--api-key", "k"],
                               ws)
        assert len(server.chat_requests) == 1
    assert "openai" not in seen and "lxml" not in seen and "httpx2" in seen
