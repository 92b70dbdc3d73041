"""Tokens spent finding where a function is defined and changing its signature, with and without `code`.

The real `sneakycode -p` runs against the scripted model server, in a generated project of 16 modules where
`load_settings` is defined once (line 148 of a 302-line module) and named 60 times elsewhere (calls,
comments, strings). The model's moves are scripted, so the numbers measure what each way of finding costs in
the requests, not how a model chooses; the same edit is made every time and checked on disk:

- grep + whole file: `grep_files load_settings`, then read the whole defining file (what issue 29 says small
  models do);
- grep name + range: `grep_files load_settings`, then read 15 lines from the definition's line;
- grep def + range: `grep_files "def load_settings"`, then read 15 lines (a careful model, knowing the syntax);
- code: `code symbols query=load_settings` (the server gives the definition), then read 15 lines.

Request characters are the compact JSON of every chat request the server received; tokens are the chars / 4
rule of thumb (no tokenizer is a dependency). The tools array is counted in every request, so `code`'s own
schema (offered only where a server runs) is part of its cost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _cli_env import prepare_cli_env

JEDI = Path(sys.executable).with_name("jedi-language-server")
NAME = "load_settings"
OLD = f"def {NAME}(path, environ):"
NEW = f"def {NAME}(path, environ, *, strict=False):"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def build_project(ws: Path) -> int:
    """The project; returns the line `load_settings` is defined on."""
    pkg = ws / "inventory"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    filler = "".join(
        f"def helper_{n}(value, scale=1):\n    \"\"\"Scale {n}: not {NAME}, which reads files.\"\"\"\n"
        f"    result = value * scale + {n}\n    return result\n\n\n" for n in range(24)
    )
    head = "import os\n\n\n" + filler
    defined_at = head.count("\n") + 1
    body = (f'{OLD}\n    """Read the settings file at `path`, overridden by `environ`."""\n'
            "    values = {}\n    with open(path) as handle:\n        for line in handle:\n"
            "            key, _, value = line.partition('=')\n            values[key.strip()] = value.strip()\n"
            "    values.update({k: v for k, v in environ.items() if k in values})\n    return values\n\n\n")
    (pkg / "settings.py").write_text(head + body + filler.replace("helper_", "more_"))
    for index in range(15):
        uses = "".join(
            f"def task_{index}_{n}(path):\n    # {NAME} is cached by the caller\n"
            f"    settings = {NAME}(path, os.environ)\n    return settings.get('k{n}', '{NAME}')\n\n\n"
            for n in range(4)
        )
        (pkg / f"module_{index:02}.py").write_text(f"import os\n\nfrom inventory.settings import {NAME}\n\n\n{uses}")
    return defined_at


def run(ws: Path, base_env: dict[str, str], steps: list[dict[str, Any]]) -> dict[str, Any]:
    from sneakycode.testing.server import ScriptedServer

    with ScriptedServer({"steps": steps}) as server:
        argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", f"Add a keyword-only strict=False to {NAME}",
                "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws), "--yes"]
        # Run from the workspace: from bench/, bench/mcp.py would shadow the mcp package.
        done = subprocess.run(argv, env=base_env, cwd=ws, capture_output=True, text=True, check=False, timeout=300)
        bodies = server.chat_requests
    if done.returncode != 0:
        print(f"exit {done.returncode}: {done.stderr.strip()[-500:]}", file=sys.stderr)
    chars = sum(len(json.dumps(body, separators=(",", ":"))) for body in bodies)
    results = [m for m in bodies[-1]["messages"] if m["role"] == "tool"] if bodies else []
    edited = NEW in (ws / "inventory" / "settings.py").read_text()
    return {"requests": len(bodies), "chars": chars, "tokens": chars // 4, "exit": done.returncode,
            "result_chars": sum(len(m["content"]) for m in results), "edited": edited,
            "tools_chars": len(json.dumps(bodies[0]["tools"], separators=(",", ":"))) if bodies else 0}


def main() -> int:
    prepare_cli_env()
    if not JEDI.exists():
        print(f"jedi-language-server is not installed next to {sys.executable} (pip install -e '.[dev]')")
        return 1
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state"),
               "XDG_CONFIG_HOME": str(root / "config"), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        config = root / "config" / "sneakycode"
        config.mkdir(parents=True)
        edit = call("str_replace", file_path="inventory/settings.py", old_str=OLD, new_str=NEW)
        finish = call("finish", message=f"{NAME} takes strict now.")
        ways: list[tuple[str, bool, Any]] = [
            ("grep + whole file", False, lambda line: [
                call("grep_files", pattern=NAME), call("read_file", file_path="inventory/settings.py")]),
            ("grep name + range", False, lambda line: [
                call("grep_files", pattern=NAME),
                call("read_file", file_path="inventory/settings.py", start_line=line, end_line=line + 14)]),
            ("grep def + range", False, lambda line: [
                call("grep_files", pattern=f"def {NAME}"),
                call("read_file", file_path="inventory/settings.py", start_line=line, end_line=line + 14)]),
            ("code (symbols query) + range", True, lambda line: [
                call("code", op="symbols", query=NAME),
                call("read_file", file_path="inventory/settings.py", start_line=line, end_line=line + 14)]),
        ]
        for index, (label, with_server, moves) in enumerate(ways):
            ws = root / f"ws{index}"  # one length for every row: the path is in the system prompt
            line = build_project(ws)
            (config / "config.toml").write_text(
                f'[lsp.servers.jedi]\ncommand = "{JEDI}"\nlanguages = ["python"]\n' if with_server
                else "[lsp]\nenabled = false\n")
            rows.append((label, run(ws, env, [*moves(line), edit, finish])))
    print("| way of finding | requests | request chars | ~tokens | tool results (chars) | tools array | edit made |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for label, row in rows:
        print(f"| {label} | {row['requests']} | {row['chars']:,} | {row['tokens']:,} | {row['result_chars']:,} | "
              f"{row['tools_chars']:,} | {'yes' if row['edited'] and row['exit'] == 0 else 'NO'} |")
    return 0 if all(row["edited"] and row["exit"] == 0 for _, row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
