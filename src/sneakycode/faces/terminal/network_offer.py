"""After a request, the terminal offers to allow the hosts the sandbox's network proxy refused during it: for
this session (the proxy takes it at once) or always (added to `tools.shell.allowed_hosts` in the user's own
config, which a repository cannot write for them). Only a host that was refused for not being on the list is
offered; an internal address or a malformed name stays refused (the result says which setting would allow it).
The model is not told: the person asks it to try again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from sneakycode.config import user_config_path
from sneakycode.config.toml_edit import append_unique
from sneakycode.faces.cli.text import markup_safe
from sneakycode.tools.base import ToolContext

QUESTION = "Allow {host} for commands: (s)ession, (a)lways (your config), (n)o? "


class NetworkOffer:
    """Remembers how far the session's refusals were offered, so each is offered once."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.seen = ctx.session.network.mark()

    def after_request(self, console: Console, ask: Callable[[str], str]) -> None:
        network = self.ctx.session.network
        denials = network.denials_since(self.seen)
        self.seen = network.mark()
        hosts = list(dict.fromkeys(d.entry for d in denials if d.entry and d.entry not in network.extra_hosts))
        for host in hosts:
            console.print(f"[yellow]The sandbox's network proxy refused {markup_safe(host)}.[/]")
            answer = ask(QUESTION.format(host=host))
            if answer == "s":
                network.extra_hosts.append(host)
                console.print(f"[dim]{markup_safe(host)} is allowed for this session; ask the model to try again.[/]")
            elif answer == "a":
                path = user_config_path()
                add_allowed_host(path, host)
                network.extra_hosts.append(host)
                console.print(f"[dim]{markup_safe(host)} added to tools.shell.allowed_hosts in {path}.[/]")


def add_allowed_host(path: Path, host: str) -> None:
    """Append `host` to `[tools.shell] allowed_hosts` in the TOML file at `path` (created if missing), keeping
    everything else byte for byte."""
    append_unique(path, ("tools", "shell"), "allowed_hosts", [host])
