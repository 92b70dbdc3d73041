"""What a command loads before it does its work: only what it uses (bench/startup.py times it).

Each check runs the command in a fresh interpreter and looks at `sys.modules` afterwards, so a top-level
import added anywhere on the way shows up here, not as a slower start nobody notices.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

UI_AND_MODEL_CLIENT = ("openai", "httpx", "httpx2", "rich", "prompt_toolkit", "mcp")


def loaded_after(argv: list[str], cwd: Path) -> list[str]:
    """The modules in sys.modules once `sneakycode ARGV` has run."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from sneakycode.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(json.loads(sys.argv[1]))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(argv)], cwd=cwd, capture_output=True, text=True,
                          check=True, timeout=60)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return modules


def under(modules: list[str], *packages: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_help_loads_neither_pydantic_nor_the_ui_nor_the_model_client(ws: Path) -> None:
    modules = loaded_after(["--help"], ws)
    assert "sneakycode.cli.main" in modules
    assert under(modules, *UI_AND_MODEL_CLIENT, "pydantic", "sneakycode.config", "sneakycode.tools") == []


def test_tool_read_file_loads_neither_the_ui_nor_the_model_client(ws: Path) -> None:
    (ws / "x.txt").write_text("one\n")
    modules = loaded_after(["tool", "read_file", '{"file_path": "x.txt"}'], ws)
    assert "sneakycode.tools.read" in modules
    assert under(modules, *UI_AND_MODEL_CLIENT, "sneakycode.agent", "tree_sitter") == []


def test_tool_read_file_does_not_load_the_other_tools(ws: Path) -> None:
    """Regression: one call imported every tool module and the search, edit and process machinery behind them,
    and the shell command policy that only run_command decisions use."""
    (ws / "x.txt").write_text("one\n")
    modules = loaded_after(["tool", "read_file", '{"file_path": "x.txt"}'], ws)
    assert under(modules, "sneakycode.tools.search", "sneakycode.tools.edit", "sneakycode.tools.shell",
                 "sneakycode.process", "sneakycode.permissions.shell") == []


def test_tool_models_build_their_validators_only_when_a_call_needs_them() -> None:
    probe = (
        "import json\n"
        "from sneakycode.tools.registry import all_tools\n"
        "print(json.dumps([t.name for t in all_tools() if t.args_model.__pydantic_complete__]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == []
