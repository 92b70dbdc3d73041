"""Peers side by side (issue 42): how many tools each agent offers, how large its first request is, how soon it
reaches the server and its peak memory, for the same trivial task against the same local endpoint.

The peers (codex, opencode, qwen-code) are installed from the npm registry into a temporary folder; a peer that
npm cannot install (or no npm at all) is skipped with a note. Every agent is pointed at a logging
OpenAI-compatible endpoint on 127.0.0.1 that answers chat completions with "Done." and anything else (codex's
Responses API) with an error, since only the first request is measured. Start to first request is timed from
process start until the endpoint has read the first model request's whole body (not a probe of the server);
"CPU by then" is the agent's process tree's CPU seconds at that moment (within one 20 ms sample: steadier than
wall time on a loaded machine); peak RSS is the largest sum over the tree, sampled every 20 ms until the agent
exits or is stopped, once the request was seen. Each agent runs `--rounds` times in turn; the table shows
medians. Not part of `make test`; `make bench` runs it.

    python bench/peers.py [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from time import monotonic, sleep
from typing import Any

from _cli_env import prepare_cli_env

TASK = "Say done"
MODEL = "scripted-model"
PEERS = {"codex": "@openai/codex", "opencode": "opencode-ai", "qwen-code": "@qwen-code/qwen-code"}
MODEL_PATHS = ("/chat/completions", "/responses")
"""The model requests (chat completions; codex speaks the Responses API)."""
GRACE = 15.0
"""Seconds an agent may run on after its first request before it is stopped (the figures are taken by then)."""
LIMIT = 90.0
"""Seconds an agent may take to send a first request at all."""


@dataclass
class Seen:
    at: float
    path: str
    chars: int
    tools: int


def usage(raw: str) -> dict[str, int]:
    """A plausible token count (four characters a token), so no agent takes its prompt for cut."""
    return {"prompt_tokens": len(raw) // 4, "completion_tokens": 2, "total_tokens": len(raw) // 4 + 2}


@dataclass
class Endpoint:
    """The logging endpoint: every POST is noted when its body has been read."""

    requests: list[Seen] = field(default_factory=list)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    def serve(self) -> ThreadingHTTPServer:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # /models and the like: one model
                self._json(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8", "replace")
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {}
                tools = body.get("tools") if isinstance(body, dict) else None
                if self.path.endswith(MODEL_PATHS):  # not a probe of the server (SneakyCode asks for the window)
                    with endpoint.arrived:
                        endpoint.requests.append(Seen(monotonic(), self.path, len(raw), len(tools or [])))
                        endpoint.arrived.notify_all()
                if not self.path.endswith("/chat/completions"):
                    self._json(400, {"error": {"message": "only chat completions here", "type": "invalid_request"}})
                elif body.get("stream"):
                    self._stream(usage(raw))
                else:
                    message = {"role": "assistant", "content": "Done."}
                    self._json(200, {"id": "c", "object": "chat.completion", "model": MODEL, "choices": [
                        {"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage(raw)})

            def _json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, counts: dict[str, int]) -> None:
                chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Done."}}]},
                          {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                          {"choices": [], "usage": counts}]
                head = {"id": "c", "object": "chat.completion.chunk", "model": MODEL}
                data = "".join(f"data: {json.dumps({**head, **c})}\n\n" for c in chunks) + "data: [DONE]\n\n"
                encoded = data.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(encoded)))
                self.end_headers()
                self.wfile.write(encoded)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server


@dataclass
class Agent:
    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    firsts: list[Seen] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    """CPU seconds of the process tree when the first request was seen (within one 20 ms sample)."""
    note: str = ""


TICK = os.sysconf("SC_CLK_TCK")


def tree_usage(session: int) -> tuple[int, float]:
    """The summed resident memory (KiB) and CPU seconds of every live process in this session (the agent and
    what it started); CPU of processes that already ended is not counted."""
    rss = 0
    cpu = 0.0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) != session:  # the session id, after state, ppid, pgrp
                continue
            cpu += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
            for line in Path(entry.path, "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return rss, cpu


def agent_turn(requests: list[Seen]) -> Seen | None:
    """The first request that offers tools: the agent's first turn (opencode first asks for a title, without
    tools); the first request at all when none offers any."""
    return next((r for r in requests if r.tools), requests[0] if requests else None)


def run_once(agent: Agent, endpoint: Endpoint) -> None:
    seen = len(endpoint.requests)
    start = monotonic()
    proc = subprocess.Popen(agent.argv, env=agent.env, cwd=agent.cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    peak = 0
    first: Seen | None = None
    cpu_at_first: float | None = None
    while proc.poll() is None:
        rss, cpu = tree_usage(proc.pid)
        peak = max(peak, rss)
        first = agent_turn(endpoint.requests[seen:])
        if first is not None and cpu_at_first is None:
            cpu_at_first = cpu
        elapsed = monotonic() - start
        if (first is not None and monotonic() - first.at > GRACE) or (first is None and elapsed > LIMIT):
            break
        sleep(0.02)
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = agent_turn(endpoint.requests[seen:])
    if first is None:
        agent.note = agent.note or f"no request within {LIMIT:g} s (exit code {proc.returncode})"
        return
    agent.firsts.append(first)
    agent.waits.append(first.at - start)
    agent.rss_mb.append(peak / 1024)
    if cpu_at_first is not None:
        agent.cpu.append(cpu_at_first)


def install_peers(folder: Path) -> tuple[dict[str, Path], list[str]]:
    """Each peer's command, installed from the npm registry; notes for those that could not be."""
    npm = shutil.which("npm")
    if npm is None:
        return {}, ["npm is not on PATH: peers skipped"]
    found: dict[str, Path] = {}
    notes = []
    for name, package in PEERS.items():
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder), package],
                              capture_output=True, text=True, check=False, timeout=900)
        bins = {"codex": "codex", "opencode": "opencode", "qwen-code": "qwen"}
        command = folder / "node_modules" / ".bin" / bins[name]
        if done.returncode or not command.exists():
            notes.append(f"{name}: npm could not install {package}: {done.stderr.strip().splitlines()[-1:]}")
        else:
            found[name] = command
    return found, notes


def peer_version(command: Path) -> str:
    try:
        done = subprocess.run([str(command), "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    words = done.stdout.split()
    return words[-1] if words else "?"


def make_agents(commands: dict[str, Path], base_url: str, root: Path) -> list[Agent]:
    home = root / "home"
    home.mkdir()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("SNEAKYCODE_", "OPENAI_", "CODEX_"))}
    base_env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
                 "XDG_DATA_HOME": str(home / ".data"), "XDG_CACHE_HOME": str(home / ".cache"),
                 "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", "NO_COLOR": "1"}
    agents = []
    for name in ["sneakycode", *commands]:
        ws = root / f"ws-{name}"
        ws.mkdir()
        (ws / "README.md").write_text("A tiny project.\n")
        env = dict(base_env, PWD=str(ws))  # opencode takes its folder from PWD, not from the working directory
        if name == "sneakycode":
            script = Path(sys.executable).with_name("sneakycode")
            cli = [str(script)] if script.exists() else [sys.executable, "-m", "sneakycode.faces.cli.main"]
            argv = [*cli, "-p", TASK, "--base-url", base_url, "--model", MODEL, "--api-key", "k"]
            label = "SneakyCode"
        elif name == "codex":
            codex_home = root / "codex-home"
            codex_home.mkdir()
            env |= {"CODEX_HOME": str(codex_home), "LOCAL_KEY": "k"}
            provider = f'{{name="local", base_url="{base_url}", env_key="LOCAL_KEY"}}'
            argv = [str(commands[name]), "exec", "--skip-git-repo-check", "-c", 'model_provider="local"',
                    "-c", f"model_providers.local={provider}", "-m", MODEL, TASK]
            label = f"codex {peer_version(commands[name])}"
        elif name == "opencode":
            config = {"provider": {"local": {
                "npm": "@ai-sdk/openai-compatible", "name": "local",
                "options": {"baseURL": base_url, "apiKey": "k"}, "models": {MODEL: {"name": MODEL}}}}}
            (ws / "opencode.json").write_text(json.dumps(config))
            argv = [str(commands[name]), "run", "-m", f"local/{MODEL}", TASK]
            label = f"opencode {peer_version(commands[name])}"
        else:
            env |= {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": base_url, "OPENAI_MODEL": MODEL}
            settings = home / ".qwen"
            settings.mkdir()
            (settings / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}}}))
            argv = [str(commands[name]), "-p", TASK, "--auth-type", "openai", "-m", MODEL]
            label = f"qwen-code {peer_version(commands[name])}"
        agents.append(Agent(label, argv, env, ws))
    return agents


def print_table(agents: list[Agent]) -> None:
    print("| agent | tools | first request (chars) | start to first request | CPU by then | peak RSS | endpoint |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for agent in agents:
        if not agent.firsts:
            print(f"| {agent.name} | | | | | | {agent.note} |")
            continue
        first = agent.firsts[-1]
        cpu = f"{statistics.median(agent.cpu):.2f} s" if agent.cpu else "?"
        print(f"| {agent.name} | {first.tools} | {first.chars:,} | {statistics.median(agent.waits):.2f} s | {cpu} | "
              f"{statistics.median(agent.rss_mb):.0f} MB | {first.path} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each agent, in turn")
    parser.add_argument("--keep", type=Path, help="install the peers here (kept, reused) instead of a temporary folder")
    args = parser.parse_args()
    prepare_cli_env()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = args.keep or root / "peers"
        folder.mkdir(parents=True, exist_ok=True)
        commands, notes = install_peers(folder)
        endpoint = Endpoint()
        server = endpoint.serve()
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        try:
            agents = make_agents(commands, base_url, root)
            for round_index in range(args.rounds + 1):  # round 0 warms the disk cache and is not counted
                for agent in agents:
                    before = (len(agent.firsts), len(agent.waits), len(agent.cpu))
                    run_once(agent, endpoint)
                    if round_index == 0 and len(agent.firsts) > before[0]:
                        agent.firsts.pop(), agent.waits.pop(), agent.rss_mb.pop()
                        if len(agent.cpu) > before[2]:
                            agent.cpu.pop()
        finally:
            server.shutdown()
        print_table(agents)
        for note in notes:
            print(f"\nskipped: {note}")
        print(f"\nmedians of {args.rounds} runs each, in turn, after one warm-up run; the task: {TASK!r}; "
              "tools and size are of the first model request that offers tools; peak RSS sums the agent's process "
              "tree (MB = MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
