"""The network a sandboxed command gets (tools.shell.network): off, on, or an allowlist of hosts reached only
through SneakyCode's proxy, with the presets a user can name instead of hosts. `effective_network` is the one
reading of the three keys (and the old alias `sandbox_network`), for the sandbox, the proxy and the doctor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sneakycode.config.tool_settings import ShellSettings

NetworkMode = Literal["off", "allowlist", "on"]
# The public registries of each ecosystem: what `pip install`, `npm ci`, `cargo build` and `go mod download`
# reach with their default configuration.
PRESETS: dict[str, tuple[str, ...]] = {
    "python": ("pypi.org", "files.pythonhosted.org"),
    "node": ("registry.npmjs.org", "registry.yarnpkg.com", "nodejs.org"),
    "rust": ("crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org"),
    "go": ("proxy.golang.org", "sum.golang.org", "storage.googleapis.com"),
}
DEFAULT_PORTS = (443, 80)


@dataclass(frozen=True)
class NetworkPolicy:
    """The effective mode, the hosts (presets expanded, in order, once each) and the ports allowed."""

    mode: NetworkMode
    hosts: tuple[str, ...]
    ports: tuple[int, ...]

    def describe(self) -> str:
        if self.mode != "allowlist":
            return self.mode
        ports = ", ".join(map(str, self.ports))
        return f"allowlist ({', '.join(self.hosts) or 'no host'}; ports {ports})"


def expand_hosts(entries: list[str]) -> tuple[str, ...]:
    """`entries` with each preset name replaced by its hosts; a host is kept as written (the proxy
    normalises it)."""
    hosts: list[str] = []
    for entry in entries:
        hosts.extend(PRESETS.get(entry.strip().lower(), (entry,)))
    return tuple(dict.fromkeys(hosts))


def effective_network(shell: ShellSettings) -> NetworkPolicy:
    """`network` when set; otherwise off when the old `sandbox_network = false` says so, an allowlist once
    the user named hosts, and on (as before) when nobody did."""
    mode: NetworkMode
    if shell.network is not None:
        mode = shell.network
    elif not shell.sandbox_network:
        mode = "off"
    else:
        mode = "allowlist" if shell.allowed_hosts else "on"
    return NetworkPolicy(mode, expand_hosts(shell.allowed_hosts), tuple(shell.allowed_ports))
