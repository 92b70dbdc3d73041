"""The hosts the sandbox's network proxy refused, for a face to offer allowing them: for this session (the
proxy takes it at once) or always (added to `tools.shell.allowed_hosts` in the user's own config, which a
repository cannot write for them). Only a host refused for not being on the list is offered; an internal
address or a malformed name stays refused."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts


def add_allowed_host(path: Path, host: str) -> None:
    """Append `host` to `[tools.shell] allowed_hosts` in the TOML file at `path` (created if missing), keeping
    everything else byte for byte."""
    from sneakycode.config.toml_edit import append_unique

    append_unique(path, ("tools", "shell"), "allowed_hosts", [host])


class NetworkVerbs:
    """Mixed into `Session`: `refusals_mark`, `refused_hosts`, `allow_host`."""

    _parts: Parts

    def refusals_mark(self) -> int:
        """Where the proxy's refusals stand now: `refused_hosts(mark)` names only those after it."""
        return self._parts.ctx.session.network.mark()

    def refused_hosts(self, since: int = 0) -> list[str]:
        """The hosts refused since `since` for not being allowed, each once, those allowed since left out."""
        network = self._parts.ctx.session.network
        denials = network.denials_since(since)
        return list(dict.fromkeys(d.entry for d in denials if d.entry and d.entry not in network.extra_hosts))

    def allow_host(self, host: str, always: bool = False, user_config: Path | None = None) -> Path | None:
        """Let commands reach `host` for the rest of the session; `always` also adds it to the user's config
        (returned). An OSError, ValueError or ConfigError when that file cannot be written (the session's
        allowance stands)."""
        from sneakycode.config import user_config_path

        network = self._parts.ctx.session.network
        if host not in network.extra_hosts:
            network.extra_hosts.append(host)
        if not always:
            return None
        path = user_config or user_config_path()
        add_allowed_host(path, host)
        return path
