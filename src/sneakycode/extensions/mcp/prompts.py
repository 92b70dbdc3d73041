"""A server's prompts as slash commands: `/mcp__SERVER__PROMPT ARGS` asks the server for the prompt
(`prompts/get`) and sends its messages' text as the request.

Positional words fill the prompt's declared arguments in order, the last one taking the rest of the line
(`/mcp__gh__review app.py the error handling`); `NAME=value` sets an argument by name. The SDK is imported
only once a prompt is fetched, so a session without servers loads nothing of it.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sneakycode.errors import ConfigError

if TYPE_CHECKING:
    import mcp_types

    from sneakycode.extensions.mcp.connection import Connection

OnUnavailable = Callable[["Connection"], None]


@dataclass(frozen=True)
class PromptArgument:
    name: str
    required: bool
    description: str = ""


@dataclass(frozen=True)
class McpPrompt:
    """One server prompt; `name` is the command (`mcp__SERVER__PROMPT`), `remote` the server's own name."""

    name: str
    server: str
    remote: str
    description: str
    arguments: tuple[PromptArgument, ...]
    connection: Connection
    on_unavailable: OnUnavailable

    def usage(self) -> str:
        """`<file> [focus]`: the arguments as typed after the command."""
        return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in self.arguments)

    def help(self) -> str:
        usage = f"{self.usage()} " if self.arguments else ""
        return f"{usage}(MCP server {self.server}) {self.description or self.remote}"

    def bind(self, text: str) -> dict[str, str]:
        """The arguments `text` gives the prompt; a ConfigError names what is missing or left over."""
        try:
            words = shlex.split(text)
        except ValueError:  # an unbalanced quote: split on whitespace rather than refuse
            words = text.split()
        declared = {a.name for a in self.arguments}
        values: dict[str, str] = {}
        positional: list[str] = []
        for word in words:
            key, sep, value = word.partition("=")
            if sep and key in declared:
                values[key] = value
            else:
                positional.append(word)
        free = [a.name for a in self.arguments if a.name not in values]
        if positional and not free:
            raise ConfigError(f"/{self.name} takes no more arguments than {self.usage() or 'none'}; "
                              f"left over: {' '.join(positional)}")
        for index, name in enumerate(free[: len(positional)]):
            last = index == len(free) - 1
            values[name] = " ".join(positional[index:]) if last else positional[index]
        missing = [a.name for a in self.arguments if a.required and a.name not in values]
        if missing:
            raise ConfigError(f"/{self.name} needs {', '.join(missing)} (usage: /{self.name} {self.usage()})")
        return values

    def expand(self, text: str, limit: int) -> str:
        """The request the prompt stands for, at most `limit` bytes; a ConfigError (nothing is sent) when
        the arguments do not fit or the server cannot give it."""
        from mcp.shared.exceptions import MCPError

        from sneakycode.extensions.mcp.connection import CallCancelled, CallTimedOut, ServerUnavailable

        arguments = self.bind(text)
        where = f"/{self.name}: MCP server {self.server}"
        try:
            answer = self.connection.get_prompt(self.remote, arguments, threading.Event())
        except ServerUnavailable as exc:
            self.on_unavailable(self.connection)
            raise ConfigError(f"{where} cannot give the prompt: {exc}") from None
        except CallTimedOut as exc:
            raise ConfigError(f"{where}: {exc}") from None
        except (CallCancelled, KeyboardInterrupt):
            raise ConfigError(f"{where}: interrupted, so nothing was sent") from None
        except MCPError as exc:
            raise ConfigError(f"{where} refused the prompt: {exc.message}") from None
        return _bounded(prompt_text(answer), limit)


def prompt_text(answer: mcp_types.GetPromptResult) -> str:
    """The messages' text in order (embedded text resources included, other content described); an
    assistant message is marked, since the whole becomes one user request."""
    from sneakycode.extensions.mcp.results import render_block

    parts = []
    for message in answer.messages:
        text = render_block(message.content, [])
        parts.append(f"[assistant]\n{text}" if message.role == "assistant" else text)
    return "\n\n".join(part for part in parts if part)


def _bounded(text: str, limit: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    kept = encoded[:limit].decode("utf-8", errors="ignore")
    return f"{kept}\n[the prompt was cut at {limit:,} of {len(encoded):,} bytes]"


def server_prompts(connection: Connection, taken: set[str], on_unavailable: OnUnavailable) -> list[McpPrompt]:
    """The connected server's prompts as commands, named like its tools; new names are added to `taken`."""
    from sneakycode.extensions.mcp.tools import tool_name

    found = []
    for remote in connection.prompts:
        name = tool_name(connection.name, remote.name, taken)
        taken.add(name)
        arguments = tuple(PromptArgument(a.name, bool(a.required), a.description or "")
                          for a in remote.arguments or [])
        description = " ".join((remote.description or remote.title or "").split())
        found.append(McpPrompt(name, connection.name, remote.name, description, arguments, connection,
                               on_unavailable))
    return found
