"""What the syntax check after an edit costs: str_replace on 2,000-line Python, JavaScript and JSON files
through the real tools, with `diagnostics.enabled` off and on, interleaved, median of RUNS each.

Two edits per file: one that keeps it valid (the usual case: one parse of the new text) and one that breaks
it (the new text and the old one are parsed, and their errors compared). The first call in a process also
loads the tree-sitter grammar; that cost is measured apart, in a fresh interpreter per language. The goal
(issue 13): the check adds at most 30 ms to an edit of a 2,000-line Python file.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.diagnostics.syntax import syntax_errors

RUNS = 21
LINES = 2000


def python_file() -> str:
    blocks = [
        f"class Item{i}:\n    def __init__(self, value: int) -> None:\n        self.value = value * {i}\n\n"
        f"    def total(self, extra: int = 0) -> int:\n        return sum([self.value, extra, {i}])\n\n"
        for i in range(LINES // 7)
    ]
    return "".join(blocks)


def javascript_file() -> str:
    blocks = [
        f"export function item{i}(value, extra = 0) {{\n  const scaled = value * {i};\n"
        f"  return [scaled, extra].reduce((a, b) => a + b, 0);\n}}\n\n"
        for i in range(LINES // 5)
    ]
    return "".join(blocks)


def json_file() -> str:
    return json.dumps({f"key{i}": {"value": i, "name": f"item {i}"} for i in range(LINES // 4)}, indent=2) + "\n"


# name, content, a line to change, the same line still valid, the same line broken
FILES = [
    ("big.py", python_file(), "value * 7\n", "value * 7000\n", "(value * 7000\n"),
    ("big.js", javascript_file(), "value * 7;", "value * 7000;", "(value * 7000;"),
    ("big.json", json_file(), '"value": 7,', '"value": 7000,', '"value": 7000,,'),
]


def edit_times(ws: Path, name: str, anchor: str, replacement: str) -> tuple[float, float]:
    """Median ms of str_replace changing `anchor` to `replacement`, diagnostics off and on: the two run
    interleaved (off, on, off, ...) so a burst of load on a shared machine hits both alike."""
    gates = {}
    for enabled in (False, True):
        environ = {"SNEAKYCODE_DIAGNOSTICS__ENABLED": "true" if enabled else "false"}
        gates[enabled] = Gate(open_tool_context(load_settings(ws, environ=environ)))
        gates[enabled].run_direct("read_file", {"file_path": name, "end_line": 1})
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(RUNS):
        for enabled, gate in gates.items():
            start = time.perf_counter()
            result = gate.run_direct("str_replace", {"file_path": name, "old_str": anchor, "new_str": replacement})
            times[enabled].append((time.perf_counter() - start) * 1000)
            assert result.success, result.render()
            back = gate.run_direct("str_replace", {"file_path": name, "old_str": replacement, "new_str": anchor})
            assert back.success, back.render()
    return statistics.median(times[False]), statistics.median(times[True])


def check_ms(language: str, text: str) -> tuple[float, float]:
    """Median ms of the syntax check alone (what diagnostics add to an edit that keeps the file valid): wall
    time, and this thread's CPU time, which a machine shared with other work inflates far less."""
    wall, cpu = [], []
    for _ in range(RUNS):
        start, start_cpu = time.perf_counter(), time.thread_time()
        syntax_errors(language, text)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


FIRST_CALL = """
import sys, time
from sneakycode.tools.diagnostics.syntax import syntax_errors  # loaded with the tools, by every command
start = time.perf_counter()
syntax_errors(sys.argv[1], sys.argv[2])
first = time.perf_counter()
syntax_errors(sys.argv[1], sys.argv[2])
second = time.perf_counter()
print((first - start) * 1000, (second - first) * 1000)
"""
# Broken one-liners, so the loader fails and tree-sitter runs too.
PROBES = {"python": "a = (1\n", "javascript": "let a = (1;\n", "json": '{"a": }\n', "yaml": "a: [\n"}


def first_call_ms(language: str) -> list[float]:
    """In a new process: the first check (tree-sitter-language-pack, the grammar, PyYAML loaded), a second."""
    argv = [sys.executable, "-c", FIRST_CALL, language, PROBES[language]]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return [float(v) for v in out.stdout.split()]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        ws = Path(folder)
        os.environ.setdefault("XDG_STATE_HOME", str(ws / ".state"))
        print(f"str_replace on {LINES:,}-line files, median of {RUNS} runs (ms)\n")
        print("| file | edit | diagnostics off | diagnostics on | added | the check alone (wall / CPU) |")
        print("|---|---|---|---|---|---|")
        for name, content, anchor, valid, broken in FILES:
            (ws / name).write_text(content)
            language = {".py": "python", ".js": "javascript", ".json": "json"}[Path(name).suffix]
            for label, replacement in (("keeps it valid", valid), ("breaks it", broken)):
                off, on = edit_times(ws, name, anchor, replacement)
                alone = "{:.1f} / {:.1f}".format(*check_ms(language, content)) if replacement == valid else ""
                lines = content.count("\n")
                print(f"| {name} ({lines:,} lines) | {label} | {off:.1f} | {on:.1f} | {on - off:+.1f} | {alone} |")
    print("\nOnce per process (ms), on a broken one-line file: the first check loads tree-sitter-language-pack, "
          "the grammar (and PyYAML); the second is what a check costs after that\n")
    print("| language | first check | second check |")
    print("|---|---|---|")
    for language in PROBES:
        first, second = first_call_ms(language)
        print(f"| {language} | {first:.1f} | {second:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
