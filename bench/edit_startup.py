"""An edit of a `.py` file against the same edit of a `.txt` file, through `sneakycode tool` (issue 42).

Each run is `sneakycode tool read_file ... str_replace ...` on a fresh one-line file, with Python's language
servers (jedi-language-server, basedpyright) on PATH as a user has them, interleaved round by round so machine
noise hits both alike. Prints the median wall and CPU time of each beside `python -c pass`, the ratio of the
`.py` edit to the `.txt` edit (target: at most 1.2x), and whether the `.py` edit imported the MCP SDK or the
language-server client (target: neither).

    python bench/edit_startup.py [--rounds 15] [--against REV]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _cli_env import prepare_cli_env
from startup import Case, export_revision, print_table, run_child, sneakycode_argv

TARGET_RATIO = 1.2
HEAVY = ("mcp", "pygls", "lsprotocol")
PROBE = (
    "import contextlib, io, json, sys\n"
    "from sneakycode.faces.cli.main import main\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    main(json.loads(sys.argv[1]))\n"
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
)


def edit_argv(cli: list[str], name: str) -> list[str]:
    edit = json.dumps({"file_path": name, "old_str": "x = 1", "new_str": "x = 2"})
    return [*cli, "tool", "read_file", json.dumps({"file_path": name}), "str_replace", edit]


def heavy_imports(env: dict[str, str], ws: Path, name: str) -> list[str]:
    (ws / name).write_text("x = 1\n")
    argv = edit_argv([], name)
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], env=env, cwd=ws, capture_output=True,
                          text=True, check=False)
    tops: list[str] = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else ["(probe failed)"]
    return [m for m in tops if m in HEAVY]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved runs of every command")
    parser.add_argument("--against", metavar="REV", help="also time this git revision's src, in the same rounds")
    args = parser.parse_args()
    prepare_cli_env()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = root / "ws"
        ws.mkdir()
        venv_bin = str(Path(sys.executable).parent)  # where the language servers are installed
        env = {**os.environ, "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state"),
               "XDG_CONFIG_HOME": str(root / "config"), "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")}
        env = {k: v for k, v in env.items() if not k.startswith("SNEAKYCODE_") and k != "PYTHONPATH"}
        cli = sneakycode_argv()
        trees = [("", env)]
        if args.against:
            trees.append((f" @{args.against}", {**env, "PYTHONPATH": str(export_revision(args.against, root / "rev"))}))
        floor = Case("python -c pass (floor)", [sys.executable, "-c", "pass"])
        cases: list[tuple[Case, str, dict[str, str]]] = []
        for label, tree_env in trees:
            for name in ("a.txt", "a.py"):
                cases.append((Case(f"edit of a {Path(name).suffix} file{label}", edit_argv(cli, name)), name, tree_env))
        for round_index in range(args.rounds + 1):  # round 0 warms the disk cache and is not counted
            _, sample = run_child(floor.argv, env, ws)
            if round_index:
                floor.samples.append(sample)
            for case, name, tree_env in cases:
                (ws / name).write_text("x = 1\n")
                _, sample = run_child(case.argv, tree_env, ws)
                if round_index:
                    case.samples.append(sample)
        floor_wall = statistics.median(s.wall for s in floor.samples)
        print_table([floor, *(case for case, _, _ in cases)], floor_wall)
        print(f"\nwall: median of {args.rounds} interleaved rounds; read_file + str_replace on a one-line file, "
              "language servers on PATH\n")
        print("| tree | .py / .txt edit (wall) | target | | (CPU) | heavy modules the .py edit imported |")
        print("| --- | ---: | --- | --- | ---: | --- |")
        for index, (label, tree_env) in enumerate(trees):
            txt, py = cases[2 * index][0], cases[2 * index + 1][0]
            ratio = statistics.median(s.wall for s in py.samples) / statistics.median(s.wall for s in txt.samples)
            cpu = statistics.median(s.cpu for s in py.samples) / statistics.median(s.cpu for s in txt.samples)
            verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
            heavy = ", ".join(heavy_imports(tree_env, ws, "a.py")) or "none"
            print(f"| {label.strip() or 'this tree'} | {ratio:.2f}x | <= {TARGET_RATIO}x | {verdict} | {cpu:.2f}x "
                  f"| {heavy} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
