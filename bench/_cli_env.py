"""Makes CLI timings mean what a user sees: an installed package runs from compiled bytecode.

Some environments set PYTHONDONTWRITEBYTECODE, so every `sneakycode` process would recompile its modules
from source and the benchmarks would time the compiler. Each benchmark calls this first.
"""

from __future__ import annotations

import compileall
import os
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def prepare_cli_env() -> None:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(SRC, quiet=1)
