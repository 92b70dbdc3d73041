"""`@SERVER:URI` in a request attaches that MCP resource (`resources/read`) after the text, the way `@path`
attaches a file: `@docs:file:///guide.md`, `@db:postgres://main/schema`.

Text is attached up to the output limit (with a note when cut); an image is attached as an image for a
model that takes them; other binary content is described. A mention of a server that is not connected, or
a read that fails, leaves the token as text and says why in a notice: the request is still sent.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sneakycode.tools.base import ImagePart, ToolContext

if TYPE_CHECKING:
    import mcp_types

    from sneakycode.extensions.mcp.connection import Connection
    from sneakycode.extensions.mcp.manager import McpServers

# The URI must start with a scheme, so `@app:route` or `@user:pass` stay words.
RESOURCE_MENTION = re.compile(
    r"(?<![\w@/`])@([A-Za-z0-9][A-Za-z0-9_.-]*):([A-Za-z][A-Za-z0-9+.-]*:[^\s`'\"<>]+)"
)
_TRAILING = ".,;:!?)]}"


@dataclass
class AttachedResources:
    """The request with the resources after it, images for a vision model, and what could not be attached."""

    text: str
    images: list[ImagePart] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def resource_mentions(text: str) -> list[tuple[str, str]]:
    """(server, uri) for each `@SERVER:URI` in the text, first occurrence only."""
    found = RESOURCE_MENTION.finditer(text)
    return list(dict.fromkeys((m.group(1), m.group(2).rstrip(_TRAILING)) for m in found))


def attach_resources(text: str, servers: McpServers, ctx: ToolContext) -> AttachedResources:
    """`text` with every resource it mentions attached after it (each at most ctx.output_limit bytes)."""
    attached = AttachedResources(text)
    blocks: list[str] = []
    for server, uri in resource_mentions(text):
        token = f"@{server}:{uri}"
        connection = servers.connected(server)
        if connection is None:
            names = ", ".join(c.name for c in servers.connections if servers.connected(c.name)) or "none"
            attached.notices.append(f"{token} was not attached: no MCP server {server} is connected "
                                    f"(connected: {names})")
            continue
        problem, answer = _read(servers, connection, uri)
        if answer is None:
            attached.notices.append(f"{token} was not attached: {problem}")
            continue
        blocks.append(_render(server, uri, answer, ctx, attached))
    if blocks:
        attached.text = "\n\n".join([text, *blocks])
    return attached


def _read(
    servers: McpServers, connection: Connection, uri: str
) -> tuple[str, mcp_types.ReadResourceResult | None]:
    """The server's answer, or why there is none."""
    from mcp.shared.exceptions import MCPError

    from sneakycode.extensions.mcp.connection import CallCancelled, CallTimedOut, ServerUnavailable

    server = connection.name
    try:
        return "", connection.read_resource(uri, threading.Event())
    except ServerUnavailable as exc:
        servers.mark_unavailable(connection)
        return str(exc), None
    except CallTimedOut as exc:
        return f"MCP server {server}: {exc}", None
    except (CallCancelled, KeyboardInterrupt):
        return "interrupted", None
    except MCPError as exc:
        return f"MCP server {server} could not read it: {exc.message}", None


def _render(
    server: str, uri: str, answer: mcp_types.ReadResourceResult, ctx: ToolContext, attached: AttachedResources
) -> str:
    """One `<resource>` block: every content the read returned, text bounded to the output limit."""
    import mcp_types

    from sneakycode.extensions.mcp.results import attachable_image, decoded_size

    budget = ctx.output_limit
    parts: list[str] = []
    for content in answer.contents:
        kind = content.mime_type or ""
        if isinstance(content, mcp_types.TextResourceContents):
            encoded = content.text.encode("utf-8")
            shown = encoded[: max(budget, 0)].decode("utf-8", errors="ignore")
            budget -= len(encoded)
            if len(encoded) > len(shown.encode("utf-8")):
                shown += (f"\n[cut at {len(shown.encode('utf-8')):,} of {len(encoded):,} bytes "
                          "(max_output_bytes)]")
            parts.append(shown)
        elif kind.startswith("image/") and ctx.supports_images:
            image, note = attachable_image(content.blob, f"{content.uri}")
            if image is not None:
                attached.images.append(image)
            parts.append(f"[{note}]")
        else:
            parts.append(f"[{content.uri}: {kind or 'binary'}, {decoded_size(content.blob):,} bytes, not shown]")
    single = answer.contents[0].mime_type if len(answer.contents) == 1 else None
    mime = f' mime_type="{single}"' if single else ""
    body = "\n".join(parts).rstrip() or "(empty)"
    return f'<resource server="{server}" uri="{uri}"{mime}>\n{body}\n</resource>'
