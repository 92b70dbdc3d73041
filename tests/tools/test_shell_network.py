"""Hardening round three, class 41: with `tools.shell.network = "allowlist"`, a sandboxed run_command reaches
the allowed host through SneakyCode's proxy and nothing else. Real tools (curl, Python's urllib, pip, git)
run in real bubblewrap; two real HTTP servers on 127.0.0.1 stand in for an allowed and a denied host, their
names mapped through the proxy's resolver seam. Skipped, with the probe's reason, where bwrap cannot run."""

from __future__ import annotations

import base64
import hashlib
import http.server
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.process.sandbox import probe
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call


@dataclass
class Site:
    root: Path
    port: int
    server: http.server.ThreadingHTTPServer


def _wheel(folder: Path) -> Path:
    """A one-module wheel pip accepts (metadata and RECORD with its hashes)."""
    files = {
        "tinypkg/__init__.py": b"GREETING = 'hello from tinypkg'\n",
        "tinypkg-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n",
        "tinypkg-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("tinypkg-0.1.dist-info/RECORD,,")
    path = folder / "tinypkg-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr("tinypkg-0.1.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def _site(root: Path) -> Site:
    """hello.txt, a PEP 503 index with tinypkg, and a git repository served by git's dumb HTTP protocol."""
    root.mkdir()
    (root / "hello.txt").write_text("hello from the allowed host\n")
    index = root / "simple" / "tinypkg"
    index.mkdir(parents=True)
    wheel = _wheel(root)
    (index / "index.html").write_text(f'<a href="../../{wheel.name}">{wheel.name}</a>\n')
    (root / "simple" / "index.html").write_text('<a href="tinypkg/">tinypkg</a>\n')
    source = root.parent / f"{root.name}-src"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(source)], check=True)
    (source / "README").write_text("cloned through the proxy\n")
    subprocess.run([*git, "-C", str(source), "add", "README"], check=True)
    subprocess.run([*git, "-C", str(source), "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "clone", "-q", "--bare", str(source), str(root / "repo.git")], check=True)
    subprocess.run(["git", "-C", str(root / "repo.git"), "update-server-info"], check=True)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return Site(root, server.server_address[1], server)


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[Site, Site]]:
    allowed, denied = _site(tmp_path / "allowed"), _site(tmp_path / "denied")
    yield allowed, denied
    for site in (allowed, denied):
        site.server.shutdown()
        site.server.server_close()


def allowlist_ctx(ws: Path, ports: list[int]) -> ToolContext:
    found = probe(ws, network=False)
    if not found.available:
        pytest.skip(f"bwrap sandbox cannot run here: {found.reason}")
    flags = {"tools.shell.sandbox": "bwrap", "tools.shell.allowed_hosts": ["allowed.test"],
             "tools.shell.allowed_ports": ports}  # fmt: skip
    ctx = open_tool_context(load_settings(ws, flags=flags))
    # The seam: both names lead to servers on 127.0.0.1, which stands in for a public address here.
    ctx.session.network.resolver = lambda host, port: ["127.0.0.1"]
    ctx.session.network.policy = lambda address: None
    return ctx


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_reaches_the_allowed_host_and_gets_network_denied_for_another(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    try:
        plain = call(ctx, "run_command", command=f"curl -sSf http://allowed.test:{allowed.port}/hello.txt")
        tunnel = call(ctx, "run_command", command=f"curl -sSf -p http://allowed.test:{allowed.port}/hello.txt")
        refused = call(ctx, "run_command", command=f"curl -sSf -p http://denied.test:{denied.port}/hello.txt")
        refused_plain = call(ctx, "run_command", command=f"curl -sSf http://denied.test:{denied.port}/hello.txt")
    finally:
        ctx.close()
    assert plain.success and plain.content == "hello from the allowed host\n"
    assert tunnel.success and tunnel.content == "hello from the allowed host\n"
    for result in (refused, refused_plain):
        assert result.code == "network_denied", result.render()
        assert "denied.test" in result.error and 'tools.shell.allowed_hosts = [..., "denied.test"]' in result.error
        assert result.data["network_denied"][0]["host"] == "denied.test"
    assert "403" in refused.content


def test_python_urllib_reaches_only_the_allowed_host(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    code = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())"
    fetch = f'{sys.executable} -c "{code}"'
    try:
        reached = call(ctx, "run_command", command=f"{fetch} http://allowed.test:{allowed.port}/hello.txt")
        refused = call(ctx, "run_command", command=f"{fetch} http://denied.test:{denied.port}/hello.txt")
    finally:
        ctx.close()
    assert reached.success and "hello from the allowed host" in reached.content
    assert refused.code == "network_denied" and "HTTP Error 403" in refused.content


def test_pip_installs_from_the_allowed_index_and_not_from_another(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    pip = f"{sys.executable} -m pip install --no-cache-dir --disable-pip-version-check --no-deps --target target"
    try:
        installed = call(ctx, "run_command", timeout=120, command=f"{pip} --trusted-host allowed.test "
                         f"--index-url http://allowed.test:{allowed.port}/simple tinypkg")  # fmt: skip
        refused = call(ctx, "run_command", timeout=120, command=f"{pip} --trusted-host denied.test --retries 0 "
                       f"--index-url http://denied.test:{denied.port}/simple tinypkg")  # fmt: skip
    finally:
        ctx.close()
    assert installed.success, installed.render()
    assert "GREETING" in (ws / "target" / "tinypkg" / "__init__.py").read_text()
    assert refused.code == "network_denied" and refused.data["network_denied"][0]["host"] == "denied.test"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_clones_over_http_from_the_allowed_host_only(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    try:
        cloned = call(ctx, "run_command", command=f"git clone -q http://allowed.test:{allowed.port}/repo.git mine")
        refused = call(ctx, "run_command", command=f"git clone -q http://denied.test:{denied.port}/repo.git theirs")
    finally:
        ctx.close()
    assert cloned.success, cloned.render()
    assert (ws / "mine" / "README").read_text() == "cloned through the proxy\n"
    assert refused.code == "network_denied" and not (ws / "theirs" / "README").exists()


def test_the_proxy_is_the_only_way_out(ws: Path, sites: tuple[Site, Site]) -> None:
    """No route past the proxy: a raw socket to the denied server's address (the real 127.0.0.1 outside is
    another namespace's), to a public address, and DNS (by name and by UDP to a resolver) reach nothing."""
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    raw = (
        f"{sys.executable} -c \"import socket\n"
        f"for address in [('127.0.0.1', {denied.port}), ('1.1.1.1', 443), ('8.8.8.8', 53)]:\n"
        "    try: socket.create_connection(address, 3); print('REACHED', address)\n"
        "    except OSError as exc: print('no route', address, exc.errno)\n"
        "try: socket.getaddrinfo('pypi.org', 443); print('RESOLVED')\n"
        "except OSError: print('no DNS')\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "try: s.sendto(b'x', ('8.8.8.8', 53)); print('SENT')\n"
        "except OSError: print('no UDP')\""
    )
    try:
        result = call(ctx, "run_command", command=raw)
    finally:
        ctx.close()
    assert result.success, result.render()
    assert "REACHED" not in result.content and "RESOLVED" not in result.content and "SENT" not in result.content
    assert result.content.count("no route") == 3 and "no DNS" in result.content and "no UDP" in result.content


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_proxy_ends_with_the_session_and_leaves_no_process(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, _ = sites
    ctx = allowlist_ctx(ws, [allowed.port])
    result = call(ctx, "run_command", command=f"curl -sSf http://allowed.test:{allowed.port}/hello.txt")
    proxy = ctx.session.network.proxy
    assert result.success and proxy is not None and proxy.running
    folder = proxy.socket_path.parent
    ctx.close()
    assert not proxy.running and not folder.exists()
    assert not [t for t in threading.enumerate() if t.name == "sneakycode-netproxy"]
    leftover = subprocess.run(["pgrep", "-f", "sneakycode-proxy.sock"], capture_output=True, text=True)
    assert leftover.stdout == "", "a forwarder outlived its command"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_successful_command_keeps_a_note_of_what_was_refused(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port])
    try:
        result = call(ctx, "run_command", command=f"curl -s -p http://denied.test:{denied.port}/ || true")
    finally:
        ctx.close()
    assert result.success and "[network_denied]" in result.message
    assert result.data["network_denied"][0]["host"] == "denied.test"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_background_job_reports_the_hosts_refused_while_it_ran(ws: Path, sites: tuple[Site, Site]) -> None:
    allowed, denied = sites
    ctx = allowlist_ctx(ws, [allowed.port, denied.port])
    try:
        started = call(ctx, "run_command", background=True,
                       command=f"curl -sS -p http://denied.test:{denied.port}/ 2>&1; echo finished")  # fmt: skip
        report = call(ctx, "job", job_id=started.data["job_id"], pattern="finished", wait_seconds=20)
        again = call(ctx, "job", job_id=started.data["job_id"])
    finally:
        ctx.close()
    assert "[network_denied]" in started.message + report.message, report.render()
    assert "denied.test" in started.message + report.message
    assert "[network_denied]" not in again.message  # said once
