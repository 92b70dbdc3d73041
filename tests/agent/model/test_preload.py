"""The OpenAI SDK's import starts on a thread of its own as an agent run starts (issue 42), so it overlaps
the settings and the session being prepared; `--help` and `sneakycode tool` still never import it."""

from __future__ import annotations

import subprocess
import sys

# Notes which thread first asks for `openai`, then runs `sneakycode -p` until its settings refuse a flag.
PROBE = (
    "import contextlib, io, sys, threading\n"
    "seen = []\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'openai' and not seen:\n"
    "            seen.append(threading.current_thread().name)\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
    "from sneakycode.faces.cli.main import main\n"
    "with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    main(['-p', 'hello', '--provider', 'no-such-provider'])\n"
    "for thread in threading.enumerate():\n"
    "    if thread is not threading.main_thread():\n"
    "        thread.join(60)\n"
    "print(seen)\n"
)


def test_an_agent_run_imports_the_sdk_on_a_thread_of_its_own() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "['sneakycode-sdk-import']"
