"""How much of each request a prompt cache can reuse, before and after the cache-stable prefix (issue 26).

1. A 20-request scripted session through the real CLI (10 requests, then `--continue` and 10 more, with tool
   calls and results): for each request, the share of it (tools array + messages, as sent) that is a
   byte-identical prefix of the next request. Goal: 100% between compactions. The "before" column runs the
   same session with the code in $BENCH_BEFORE_SRC (a checkout's `src`, e.g. main's), when it is set.
2. Against a real llama.cpp `llama-server` (not in CI): the exact request bodies of part 1 replayed in order;
   per request the prompt tokens the server evaluated (`timings.prompt_n`), reused (`cache_n`) and the tokens
   that were new (growth of the prompt over the previous request). Goal after the first request: evaluated
   <= 1.1 x new + a constant. The server is found at $LLAMA_SERVER_URL (http://HOST:PORT) or on the port in
   ~/.cache/sneakycode-dev/llm/run/server.port; without one this part says so and is skipped.

Run: python bench/prefix_cache.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from itertools import pairwise
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from sneakycode.testing.server import ScriptedServer  # noqa: E402

FILES = {f"mod{i}.py": f"def f{i}(x):\n    return x * {i}\n" for i in range(6)}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": f"Calling {name}.", "tool_calls": [{"name": name, "arguments": arguments}]}


FIRST_SESSION = [
    call("list_dir", path="."),
    call("read_file", file_path="mod0.py"),
    call("grep_files", pattern="return", path="."),
    call("read_file", file_path="mod1.py"),
    call("find_files", pattern="*.py"),
    call("read_file", file_path="mod2.py"),
    call("run_command", command="echo checked"),
    call("read_file", file_path="mod3.py"),
    call("update_tasks", tasks=[{"id": "1", "content": "look at the modules", "status": "completed"}]),
    {"content": "Every module multiplies its argument."},
]
SECOND_SESSION = [
    call("read_file", file_path="mod4.py"),
    call("grep_files", pattern="def f", path="."),
    call("read_file", file_path="mod5.py"),
    call("list_dir", path="."),
    call("run_command", command="echo again"),
    call("read_file", file_path="mod0.py"),
    call("find_files", pattern="mod*.py"),
    call("read_file", file_path="mod1.py"),
    call("run_command", command="echo done"),
    {"content": "Still the same: each multiplies."},
]


def wire(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def prompt_bytes(request: dict[str, Any]) -> bytes:
    """What a server's cache keys on, in the order templates render it: the tools, then the messages."""
    return (wire(request.get("tools")) + wire(request["messages"])[:-1]).encode()


def common_prefix(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def with_reasoning(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same replies, each with a thought before it (a reasoning model's reply)."""
    return [{**step, "reasoning": f"Step {number}: what to look at next, and why."} for number, step in
            enumerate(steps, 1)]


def record_session(src: Path, reasoning_history: str | None = None) -> list[dict[str, Any]]:
    """The chat requests the CLI (run from `src`) sends for the 20-request session, in order. With
    `reasoning_history` (drop, chain, keep) every reply carries reasoning and that policy decides what of it
    is sent back (issue 38)."""
    with tempfile.TemporaryDirectory(prefix="prefix-bench-") as tmp:
        root = Path(tmp)
        ws, home = root / "ws", root / "home"
        ws.mkdir()
        home.mkdir()
        for name, text in FILES.items():
            (ws / name).write_text(text)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SNEAKYCODE_") and not k.endswith("_API_KEY")},
            "PYTHONPATH": str(src), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".state"), "XDG_DATA_HOME": str(home / ".share"),
            "XDG_CACHE_HOME": str(home / ".cache"), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
        }
        steps = FIRST_SESSION + SECOND_SESSION
        if reasoning_history is not None:
            env["SNEAKYCODE_REASONING_HISTORY"] = reasoning_history
            steps = with_reasoning(steps)
        script = {"steps": steps, "server_kind": "llamacpp", "context_window": 65536}
        with ScriptedServer(script) as server:
            for task, more in (("Look at the modules", []), ("Look again", ["--continue"])):
                argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", task, "--base-url", server.base_url,
                        "--model", "scripted-model", "--workspace", str(ws), "--yes", "--output-format", "json",
                        *more]
                done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"the scripted session failed ({src}): {done.stderr[-2000:]}")
            return server.chat_requests


def prefix_shares(requests: list[dict[str, Any]]) -> list[float]:
    """For each request but the last: the share of it that the next request repeats byte for byte."""
    shares = []
    for before, after in pairwise(requests):
        old, new = prompt_bytes(before), prompt_bytes(after)
        shares.append(common_prefix(old, new) / len(old))
    return shares


def print_prefix_table(after: list[float], before: list[float] | None, label: str = "") -> None:
    print(f"Part 1{label}: share of request N repeated byte for byte at the start of request N+1")
    print("(requests 1-10: the first run; 11-20: after --continue)\n")
    print("| request | before | after |")
    print("| --- | ---: | ---: |")
    for index, share in enumerate(after):
        old = f"{before[index]:.1%}" if before is not None else "-"
        print(f"| {index + 1} -> {index + 2} | {old} | {share:.1%} |")
    low = min(after)
    print(f"\nafter: lowest {low:.1%}, mean {sum(after) / len(after):.1%}"
          + (f"; before: lowest {min(before):.1%}, mean {sum(before) / len(before):.1%}" if before else ""))
    print("goal: 100% between compactions: " + ("met" if low == 1.0 else "NOT met"))


def llama_server_url() -> str | None:
    url = os.environ.get("LLAMA_SERVER_URL")
    port_file = Path.home() / ".cache" / "sneakycode-dev" / "llm" / "run" / "server.port"
    if url is None and port_file.is_file():
        url = f"http://127.0.0.1:{port_file.read_text().strip()}"
    if url is None:
        return None
    url = url.rstrip("/").removesuffix("/v1")
    try:  # /props answers only on llama.cpp's own server (llama-cpp-python's has no such route)
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"{url}/props", timeout=3) as answer:
            props = json.loads(answer.read())
    except (OSError, ValueError):
        return None
    return url if isinstance(props, dict) and "default_generation_settings" in props else None


def replay(url: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send each request body as the agent sent it (not streamed, a 4-token reply: only the prompt matters)."""
    rows = []
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for body in requests:
        sent = {**body, "stream": False, "max_tokens": 4}
        sent.pop("stream_options", None)
        request = urllib.request.Request(f"{url}/v1/chat/completions", data=json.dumps(sent).encode(),
                                         headers={"Content-Type": "application/json"})
        with opener.open(request, timeout=600) as answer:
            reply = json.loads(answer.read())
        timings, usage = reply.get("timings") or {}, reply.get("usage") or {}
        rows.append({"prompt": int(usage.get("prompt_tokens") or 0), "evaluated": int(timings.get("prompt_n") or 0),
                     "reused": int(timings.get("cache_n") or 0), "ms": float(timings.get("prompt_ms") or 0.0)})
    return rows


def print_server_table(label: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{label}\n")
    print("| request | prompt tokens | new | evaluated | reused | evaluated / new | prefill ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    previous = 0
    for number, row in enumerate(rows, 1):
        new = row["prompt"] - previous if number > 1 else row["prompt"]
        ratio = f"{row['evaluated'] / new:.2f}" if new > 0 else "-"
        print(f"| {number} | {row['prompt']} | {new} | {row['evaluated']} | {row['reused']} | {ratio} | "
              f"{row['ms']:.0f} |")
        previous = row["prompt"]
    later = rows[1:]
    evaluated = sum(r["evaluated"] for r in later)
    new_total = sum(b["prompt"] - a["prompt"] for a, b in pairwise(rows))
    excess = max(r["evaluated"] - (b["prompt"] - a["prompt"]) for r, (a, b) in zip(later, pairwise(rows),
                                                                                     strict=True))
    print(f"\nrequests 2-{len(rows)}: evaluated {evaluated} tokens for {new_total} new "
          f"({evaluated / max(1, new_total):.2f}x); largest excess over the new tokens in one request: {excess}; "
          f"prefill {sum(r['ms'] for r in later) / 1000:.1f} s")


def main() -> int:
    after_requests = record_session(SRC)
    before_src = os.environ.get("BENCH_BEFORE_SRC")
    before_requests = record_session(Path(before_src)) if before_src else None
    before = prefix_shares(before_requests) if before_requests else None
    print_prefix_table(prefix_shares(after_requests), before)
    if before is None:
        print("(before: set BENCH_BEFORE_SRC=/path/to/old/checkout/src to measure the old code side by side)")
    # Issue 38: replies with reasoning, sent back under the `chain` policy (kept on the tool-call messages of a
    # chain, none on the final answer), beside `drop`: the prefix must stay as stable.
    by_policy = {policy: record_session(SRC, policy) for policy in ("drop", "chain")}
    for policy, requests in by_policy.items():
        print()
        print_prefix_table(prefix_shares(requests), None, f" (replies with reasoning, reasoning_history={policy})")
        replies = [m for m in requests[-1]["messages"] if m["role"] == "assistant"]
        kept = sum(any(key in m for key in ("reasoning_content", "reasoning", "reasoning_details")) for m in replies)
        print(f"the last request sends reasoning back on {kept} of its {len(replies)} assistant messages")
    url = llama_server_url()
    if url is None:
        print("\nPart 2 skipped: no llama.cpp llama-server found (set LLAMA_SERVER_URL=http://127.0.0.1:PORT, or "
              "start one with LLM_SERVER=llama-server ../shared/scripts/local-llm-start).")
        return 0
    print(f"\nPart 2: the same request bodies replayed to llama-server at {url}")
    if before_requests:
        print_server_table("before (the old code's requests)", replay(url, before_requests))
    print_server_table("after (this code's requests)", replay(url, after_requests))
    for policy, requests in by_policy.items():
        print_server_table(f"replies with reasoning, reasoning_history={policy}", replay(url, requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
