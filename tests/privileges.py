"""Running the CLI as an ordinary user would, also when the tests themselves run as root.

Root reads and searches every folder whatever its mode (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so a
`chmod 000` folder only stops other users. As root the command runs under `setpriv` with those two
capabilities dropped: it is still uid 0 and owns the test's files, but their permission bits now apply.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import CliResult

DROP_OVERRIDES = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]


def as_ordinary_user(argv: list[str]) -> list[str]:
    return [*DROP_OVERRIDES, *argv] if os.geteuid() == 0 else argv


def run_cli_as_user(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                    timeout: float = 60) -> CliResult:
    """`tests.conftest.run_cli`, with permission bits in force."""
    proc = subprocess.run(
        as_ordinary_user([sys.executable, "-m", "sneakycode.faces.cli.main", *argv]),
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)
