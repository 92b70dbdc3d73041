"""The OpenAI SDK's import starts on a thread of its own as an agent run starts (issue 42), so it overlaps
the settings and the session being prepared; `--help` and `sneakycode tool` still never import it."""

from __future__ import annotations

import json
import subprocess
import sys


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    shown: list[str] = json.loads(done.stdout.splitlines()[-1])
    return shown


def test_an_agent_run_starts_importing_the_sdk_before_its_settings_are_read() -> None:
    """The run stops at the settings (an unknown provider): the SDK's import had begun by then."""
    code = (
        "import contextlib, io, json, sys, threading\n"
        "from sneakycode.cli.main import main\n"
        "with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['-p', 'hello', '--provider', 'no-such-provider'])\n"
        "for t in threading.enumerate():\n"
        "    if t.name == 'sneakycode-sdk-import': t.join(60)\n"
        "print(json.dumps(sorted(m for m in ('openai', 'pydantic') if m in sys.modules)))\n"
    )
    assert _run(code) == ["openai", "pydantic"]

