"""After a request, the terminal offers to allow the hosts the sandbox's network proxy refused during it: for
this session (the proxy takes it at once) or always (added to `tools.shell.allowed_hosts` in the user's own
config, which a repository cannot write for them). Only a host that was refused for not being on the list is
offered; an internal address or a malformed name stays refused (the result says which setting would allow it).
The model is not told: the person asks it to try again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console

from sneakycode.faces.shared.text import markup_safe

if TYPE_CHECKING:
    from sneakycode.api.session import Session

QUESTION = "Allow {host} for commands: (s)ession, (a)lways (your config), (n)o? "


class NetworkOffer:
    """Remembers how far the session's refusals were offered, so each is offered once."""

    def __init__(self, run: Session) -> None:
        self.run = run
        self.seen = run.refusals_mark()

    def after_request(self, console: Console, ask: Callable[[str], str]) -> None:
        hosts = self.run.refused_hosts(self.seen)
        self.seen = self.run.refusals_mark()
        for host in hosts:
            console.print(f"[yellow]The sandbox's network proxy refused {markup_safe(host)}.[/]")
            answer = ask(QUESTION.format(host=host))
            if answer == "s":
                self.run.allow_host(host)
                console.print(f"[dim]{markup_safe(host)} is allowed for this session; ask the model to try again.[/]")
            elif answer == "a":
                path = self.run.allow_host(host, always=True)
                console.print(f"[dim]{markup_safe(host)} added to tools.shell.allowed_hosts in {path}.[/]")
