"""A cold build of many files parses in worker processes: the same map as parsing in-process, no worker
left behind, and never a second run of a script that embeds SneakyCode without a main guard."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sneakycode.tools.codemap import index as index_module
from sneakycode.tools.codemap import parse
from sneakycode.tools.codemap.repomap import build_map
from tests.process.test_pool import children

SRC = Path(__file__).resolve().parents[3] / "src"


def many_files(root: Path, count: int) -> None:
    """`count` modules, each defining a function and calling the next one's (enough to start worker processes)."""
    for number in range(count):
        (root / f"mod_{number:03}.py").write_text(
            f"def function_number_{number}(value):\n    return function_number_{(number + 1) % count}(value)\n"
        )


def build(root: Path) -> tuple[str, int]:
    index_module._indexes.clear()
    repo_map = build_map(root, max_tokens=400, hidden=lambda _: None, max_file_bytes=1 << 20)
    return repo_map.text, repo_map.refresh.parsed


def test_a_large_cold_build_in_worker_processes_matches_the_in_process_one(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = parse.POOL_MIN_FILES + 50
    many_files(ws, count)
    before = children()
    pooled = build(ws)
    assert children() == before  # the workers are gone once the build returns
    monkeypatch.setattr(parse, "POOL_MIN_FILES", 10**9)
    alone = build(ws)
    assert pooled == alone and pooled[1] == count and "def function_number_" in pooled[0]


def test_a_script_without_a_main_guard_runs_once_and_still_gets_its_map(ws: Path, tmp_path: Path) -> None:
    many_files(ws, parse.POOL_MIN_FILES + 10)
    runs = tmp_path / "runs.txt"
    script = tmp_path / "embed.py"
    script.write_text(textwrap.dedent(f"""
        from pathlib import Path
        from sneakycode.tools.codemap.repomap import build_map
        with open({str(runs)!r}, "a") as runs:
            runs.write("ran\\n")
        repo_map = build_map(Path({str(ws)!r}), max_tokens=400, hidden=lambda _: None, max_file_bytes=1 << 20)
        print(repo_map.refresh.parsed)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(parse.POOL_MIN_FILES + 10)
    assert runs.read_text() == "ran\n"  # not once more in each worker


def test_a_minified_bundle_adds_nothing_to_the_map(ws: Path) -> None:
    bundle = "".join(f"function q{n}(a){{return q{n + 1}(a)}}" for n in range(400))
    (ws / "vendor.min.js").write_text(bundle + "\n")
    (ws / "app.js").write_text("function startTheApplication() {\n  return q7(1);\n}\nstartTheApplication();\n")
    text, parsed = build(ws)
    assert parsed == 2
    assert "vendor.min.js" not in text and "q7" not in text
    assert "app.js:\n  1 function startTheApplication() {" in text
