"""The smoke suite runs an installed copy of SneakyCode: the `sneakycode` that SNEAKYCODE_SMOKE_BIN names
(`make smoke` builds the wheel, installs it without extras into .smoke/ and sets it). Without it every test
here is skipped, so `pytest tests/` in the dev venv stays the dev venv's suite."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

# The dev venv's bin folder, after the installed copy's: the language servers the dev extra installs
# (jedi-language-server, basedpyright) are found there, as a user's own would be found on their PATH.
DEV_BIN = str(Path(sys.executable).parent)
# Read at import: the autouse isolated_home fixture takes every SNEAKYCODE_* variable out of each test's environment.
SMOKE_BIN = os.environ.get("SNEAKYCODE_SMOKE_BIN")


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str


@pytest.fixture
def installed() -> Path:
    named = SMOKE_BIN
    if not named:
        pytest.skip("SNEAKYCODE_SMOKE_BIN is not set: `make smoke` installs the built wheel and runs this suite")
    binary = Path(named)
    assert binary.is_file(), f"SNEAKYCODE_SMOKE_BIN={named} is not a file"
    return binary


def run_installed(binary: Path, *argv: str, cwd: Path, stdin: str = "", timeout: float = 120) -> Ran:
    env = {**os.environ, "PATH": f"{binary.parent}{os.pathsep}{DEV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "SNEAKYCODE_RETRY_BACKOFF": "0.01"}
    env.pop("PYTHONPATH", None)  # the installed copy, never this checkout's src/
    done = subprocess.run([str(binary), *argv], cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout)
    return Ran(done.returncode, done.stdout, done.stderr)
