"""What a command loads before it does its work: only what it uses (bench/startup.py times it).

Each check runs the command in a fresh interpreter and looks at `sys.modules` afterwards, so a top-level
import added anywhere on the way shows up here, not as a slower start nobody notices.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

UI_AND_MODEL_CLIENT = ("openai", "httpx", "httpx2", "rich", "prompt_toolkit", "mcp")


def loaded_after(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    """The modules in sys.modules once `sneakycode ARGV` has run."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from sneakycode.faces.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(json.loads(sys.argv[1]))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(argv)], cwd=cwd, capture_output=True, text=True,
                          check=True, timeout=60, env=env)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return modules


def under(modules: list[str], *packages: str) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_help_loads_neither_pydantic_nor_the_ui_nor_the_model_client(ws: Path) -> None:
    modules = loaded_after(["--help"], ws)
    assert "sneakycode.faces.cli.main" in modules
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
    # Every command starts by hardening the process (keys out of reach, subreaper): that much of process/ loads.
    started = {"sneakycode.process", "sneakycode.process.hardening", "sneakycode.process.reaper",
               "sneakycode.process.environment"}
    assert under([m for m in modules if m not in started], "sneakycode.tools.search", "sneakycode.tools.edit",
                 "sneakycode.tools.shell", "sneakycode.process", "sneakycode.permissions.shell") == []


def test_tool_models_build_their_validators_only_when_a_call_needs_them() -> None:
    probe = (
        "import json\n"
        "from sneakycode.tools.registry import all_tools\n"
        "print(json.dumps([t.name for t in all_tools() if t.args_model.__pydantic_complete__]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(done.stdout) == []


LANGUAGE_SERVER_CLIENT = ("mcp", "pygls", "lsprotocol", "sneakycode.tools.lsp")


def test_an_edit_of_a_python_file_loads_neither_the_mcp_sdk_nor_the_language_server_client(ws: Path) -> None:
    """Regression (issue 42): `sneakycode tool str_replace` on a `.py` file, with Python's language servers on
    PATH, imported the language-server client (pygls, lsprotocol) and through it the MCP SDK, and started a
    server the one-shot command never asked: a second or more on every edit of a Python file."""
    (ws / "a.py").write_text("x = 1\n")
    venv_bin = str(Path(sys.executable).parent)  # where jedi-language-server and basedpyright are installed
    env = {**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")}
    edit = json.dumps({"file_path": "a.py", "old_str": "x = 1", "new_str": "x = 2"})
    modules = loaded_after(["tool", "read_file", '{"file_path": "a.py"}', "str_replace", edit], ws, env)
    assert (ws / "a.py").read_text() == "x = 2\n"
    assert "sneakycode.tools.diagnostics.after_edit" in modules  # the edit was checked, by the parser only
    assert under(modules, *LANGUAGE_SERVER_CLIENT) == []


def test_tool_read_file_without_configuration_files_loads_no_toml_parser(ws: Path) -> None:
    """Issue 42: the TOML parser (some 10 ms) loads only where a configuration file or variable is read."""
    (ws / "x.txt").write_text("one\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNEAKYCODE_")}
    modules = loaded_after(["tool", "read_file", '{"file_path": "x.txt"}'], ws, env)
    assert "sneakycode.tools.read" in modules
    assert under(modules, "tomllib") == []
