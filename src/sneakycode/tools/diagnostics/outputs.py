"""Readers of checkers' machine output: ruff and eslint JSON, pyright's --outputjson, tsc's text lines, and
the `file:line:col: message` lines most other linters print (mypy, flake8, shellcheck -f gcc, go vet).

Each returns (file as printed, finding) pairs and raises ValueError when the output is not its format, so
the caller can say the checker printed something it could not read instead of claiming the file is clean.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from sneakycode.tools.diagnostics.findings import Finding

Located = tuple[str, Finding]
OutputReader = Callable[[str, str], list[Located]]  # (stdout, checker name) -> findings

_TSC_LINE = re.compile(
    r"^(?P<file>.+?)\((?P<line>\d+),(?P<col>\d+)\): (?P<kind>error|warning) (?P<code>TS\d+): (?P<msg>.*)$"
)
_GCC_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<msg>.+)$")


def read_ruff(stdout: str, name: str) -> list[Located]:
    found = []
    for item in _json_list(stdout):
        location = item.get("location") or {}
        code = item.get("code")
        message = f"{code} {item['message']}" if code else str(item["message"])
        found.append((str(item["filename"]), Finding(int(location["row"]), message, name, location.get("column"))))
    return found


def read_pyright(stdout: str, name: str) -> list[Located]:
    data = json.loads(stdout)
    if not isinstance(data, dict) or not isinstance(data.get("generalDiagnostics"), list):
        raise ValueError("no generalDiagnostics list")
    found = []
    for item in data["generalDiagnostics"]:
        if item.get("severity") not in ("error", "warning"):
            continue  # "information" is advice, not a problem the edit made
        start = item["range"]["start"]
        rule = f" ({item['rule']})" if item.get("rule") else ""
        message = f"{item['message']}{rule}"
        found.append((str(item["file"]), Finding(int(start["line"]) + 1, message, name, int(start["character"]) + 1)))
    return found


def read_eslint(stdout: str, name: str) -> list[Located]:
    found = []
    for result in _json_list(stdout):
        for item in result["messages"]:
            rule = f" ({item['ruleId']})" if item.get("ruleId") else ""
            finding = Finding(int(item.get("line") or 1), f"{item['message']}{rule}", name, item.get("column"))
            found.append((str(result["filePath"]), finding))
    return found


def read_tsc(stdout: str, name: str) -> list[Located]:
    found = []
    for line in stdout.splitlines():
        hit = _TSC_LINE.match(line)
        if hit:
            finding = Finding(int(hit["line"]), f"{hit['code']} {hit['msg']}", name, int(hit["col"]))
            found.append((hit["file"], finding))
        elif line.strip() and not line.startswith(" "):  # indented lines continue a message
            raise ValueError(f"not a tsc diagnostic line: {line[:80]!r}")
    return found


def read_gcc_style(stdout: str, name: str) -> list[Located]:
    found = []
    for line in stdout.splitlines():
        hit = _GCC_LINE.match(line)
        if hit:
            col = int(hit["col"]) if hit["col"] else None
            found.append((hit["file"], Finding(int(hit["line"]), hit["msg"].strip(), name, col)))
    if not found and stdout.strip():
        raise ValueError("no `file:line: message` lines")
    return found


def _json_list(stdout: str) -> list[dict[str, Any]]:
    data = json.loads(stdout)
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise ValueError("not a JSON list of objects")
    return data


READERS: dict[str, OutputReader] = {
    "ruff": read_ruff,
    "pyright": read_pyright,
    "basedpyright": read_pyright,
    "eslint": read_eslint,
    "tsc": read_tsc,
}


def reader_for(argv: list[str]) -> tuple[str, OutputReader]:
    """The checker's name and reader: the first word naming a known checker (so `npx eslint`, `uv run ruff`
    and `.venv/bin/ruff` are recognised), else the first word and the `file:line: message` reader."""
    for word in argv:
        stem = PurePath(word).stem.lower()
        if stem in READERS:
            return stem, READERS[stem]
    return PurePath(argv[0]).name, read_gcc_style
