"""The session's network proxy for sandboxed commands (process/netproxy.py): started on the first command in
`allowlist` mode, kept in step with the settings (a host added for the session applies at once), ended with
the session. `resolver` and `policy` are the seams tests replace (names mapped to servers on 127.0.0.1)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.config.addresses import Resolver, internal_kind, system_resolver
from sneakycode.config.network import NetworkPolicy

if TYPE_CHECKING:
    from sneakycode.process.netproxy import AddressPolicy, Denial, NetworkProxy


class SessionNetwork:
    def __init__(self) -> None:
        self._proxy: NetworkProxy | None = None
        self._lock = threading.Lock()
        self.resolver: Resolver = system_resolver
        self.policy: AddressPolicy = internal_kind
        self.extra_hosts: list[str] = []  # hosts the user allowed for this session only
        self._job_marks: dict[int, int] = {}

    def socket(self, policy: NetworkPolicy) -> Path:
        """The proxy's socket, the proxy started (or its lists brought up to date) first."""
        hosts = (*policy.hosts, *(h for h in self.extra_hosts if h not in policy.hosts))
        with self._lock:
            if self._proxy is None:
                from sneakycode.process.netproxy import NetworkProxy

                self._proxy = NetworkProxy(hosts, policy.ports, resolver=self.resolver, policy=self.policy)
            proxy = self._proxy
            proxy.hosts, proxy.ports = hosts, policy.ports
            return proxy.start()

    @property
    def proxy(self) -> NetworkProxy | None:
        return self._proxy

    def mark(self) -> int:
        proxy = self._proxy
        return proxy.mark() if proxy is not None else 0

    def denials_since(self, mark: int) -> list[Denial]:
        proxy = self._proxy
        return proxy.denials_since(mark) if proxy is not None else []

    def watch_job(self, job_id: int, mark: int) -> None:
        """Report to this job's status the refusals from `mark` on (those of other commands running meanwhile
        too: the proxy cannot tell its clients apart)."""
        self._job_marks[job_id] = mark

    def job_denials(self, job_id: int) -> list[Denial]:
        """The refusals since the job's last report, once each."""
        mark = self._job_marks.get(job_id)
        if mark is None:
            return []
        self._job_marks[job_id] = self.mark()
        return self.denials_since(mark)

    def close(self) -> None:
        with self._lock:
            proxy, self._proxy = self._proxy, None
        if proxy is not None:
            proxy.close()
