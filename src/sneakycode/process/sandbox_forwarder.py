"""Runs INSIDE the sandbox, before the command, in `allowlist` mode (started as `python -I -S -c SOURCE`, so
it needs only the standard library and nothing from the workspace): offers the proxy's Unix socket as a TCP
proxy on 127.0.0.1 (curl, pip, git and npm want a host:port proxy, not a socket), sets the proxy variables
every common tool reads, and runs the command as its child, exiting as the command exits.

It adds no way out: the sandbox has its own network namespace, and the socket leads only to the checked proxy.

usage: SOCKET -- COMMAND...
"""

import os
import signal
import socket
import sys
import threading

CHUNK = 65536
PROXY_VARIABLES = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
    "npm_config_proxy", "npm_config_https_proxy", "CARGO_HTTP_PROXY", "PIP_PROXY",
)  # fmt: skip
# Servers a command starts inside the sandbox stay reachable directly.
LOCAL = "localhost,127.0.0.1,::1"


def pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def serve(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def accept(server: socket.socket, path: str) -> None:
    while True:
        client, _ = server.accept()
        threading.Thread(target=serve, args=(client, path), daemon=True).start()


def main() -> None:
    path, separator, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    if separator != "--" or not command:
        sys.exit("usage: SOCKET -- COMMAND...")
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    url = f"http://127.0.0.1:{server.getsockname()[1]}"
    env = dict(os.environ)
    for name in PROXY_VARIABLES:
        env[name] = url
    env["NO_PROXY"] = env["no_proxy"] = LOCAL
    pid = os.fork()
    if pid == 0:
        server.close()
        try:
            os.execvpe(command[0], command, env)
        except OSError as exc:
            sys.stderr.write(f"{command[0]}: {exc.strerror}\n")
        os._exit(127)
    threading.Thread(target=accept, args=(server, path), daemon=True).start()
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: end the same way, so the caller sees the signal
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


if __name__ == "__main__":
    main()
