"""A language server that misbehaves on purpose, for the crash and hang tests: it answers `initialize`, then
`crash` exits with status 3 on the next request (after a line on stderr), `hang` never answers anything
again (and ignores SIGTERM, so only the group's SIGKILL ends it), `die-on-open` exits when it is shown a
file, and `mute` never answers, not even `initialize`. A real subprocess, speaking real JSON-RPC."""

from __future__ import annotations

import json
import signal
import sys
import time


def read() -> dict[str, object] | None:
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))  # type: ignore[no-any-return]


def send(message: dict[str, object]) -> None:
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def main(mode: str) -> None:
    while (message := read()) is not None:
        if mode == "mute":
            continue
        if mode == "die-on-open" and message.get("method") == "textDocument/didOpen":
            sys.exit(4)
        if message.get("method") == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {"definitionProvider": True}}})
        elif "id" in message:
            if mode == "crash":
                sys.stderr.write("fake server: something broke inside\n")
                sys.exit(3)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            while True:
                time.sleep(1)


if __name__ == "__main__":
    main(sys.argv[1])
