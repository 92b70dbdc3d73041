"""The Python API's cost to an embedding program, side by side with its floors in one run.

1. `import sneakycode` beside the bare interpreter (`python -c pass`) and beside `import openai` (the SDK a
   run needs anyway): median wall time of fresh processes, interleaved round by round.
2. From `sneakycode.run(...)` to the first chat request on the wire (the scripted server on 127.0.0.1 notes
   when it has read it), for the first call in a process (which pays the one-time SDK imports) and for the
   second call in the same process (only our own work: settings, session folder, tools, the request).

    python bench/api.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 15
FLOORS = {
    "python -c pass": "pass",
    "import sneakycode": "import sneakycode",
    "import sneakycode; sneakycode.Options()": "import sneakycode; sneakycode.Options()",
    "import openai (the SDK floor)": "import openai",
}
FIRST_REQUEST = r"""
import sys, time, tempfile, pathlib
started = time.perf_counter()
import sneakycode
from sneakycode.testing.server import ScriptedServer
seen = []
def note(request):
    if request.path.endswith("/chat/completions"):
        seen.append(time.perf_counter())
with ScriptedServer({"steps": [{"content": "one"}, {"content": "two"}]}, on_request=note) as server:
    ws = pathlib.Path(tempfile.mkdtemp())
    (ws / "a.py").write_text("x = 1\n")
    def call():
        begun = time.perf_counter()
        sneakycode.run("hi", workspace=ws, base_url=server.base_url, model="m", api_key="k", isolated=True)
        return begun
    first = call()
    second = call()
print(seen[0] - first, seen[1] - second)
"""


def wall(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    rounds = parser.parse_args().rounds
    times: dict[str, list[float]] = {name: [] for name in FLOORS}
    for _ in range(rounds):
        for name, code in FLOORS.items():
            times[name].append(wall(code))
    bare = statistics.median(times["python -c pass"])
    print("| what | median ms | x bare interpreter |")
    print("| --- | ---: | ---: |")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"| {name} | {median * 1000:.1f} | {median / bare:.2f} |")
    firsts: list[float] = []
    seconds: list[float] = []
    with tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "PATH": "/usr/bin:/bin", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        for _ in range(max(3, rounds // 3)):
            out = subprocess.run([sys.executable, "-c", FIRST_REQUEST], check=True, capture_output=True, text=True,
                                 env=env, cwd=Path(__file__).resolve().parent.parent).stdout.split()
            firsts.append(float(out[0]))
            seconds.append(float(out[1]))
    print()
    print("| sneakycode.run(...) to the first request on the wire | median ms |")
    print("| --- | ---: |")
    print(f"| first call in a process (SDK imports included) | {statistics.median(firsts) * 1000:.1f} |")
    print(f"| second call in the same process | {statistics.median(seconds) * 1000:.1f} |")


if __name__ == "__main__":
    main()
