"""Running `/NAME ARGS` from headless mode and the terminal alike: expand it, then run its request with the
command's allowed-tools granted and its model in use, both only for that request. And, for any request,
attaching the MCP resources it mentions as `@SERVER:URI`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from sneakycode.extensions.grants import granted
from sneakycode.extensions.invocation import Invocation, invoke, parse_slash
from sneakycode.extensions.mcp.resources import attach_resources, resource_mentions

if TYPE_CHECKING:
    from sneakycode.cli.startup import PreparedRun
    from sneakycode.tools.base import ImagePart

__all__ = ["expand", "in_effect", "parse_slash", "with_resources"]


def expand(run: PreparedRun, line: str) -> Invocation:
    """The invocation `line` stands for (a ConfigError when it cannot be sent; see extensions.invocation)."""
    ctx = run.session.ctx
    return invoke(line, run.extensions, run.agent.gate, trusted=ctx.loaded.trusted)


@contextmanager
def in_effect(run: PreparedRun, invocation: Invocation) -> Iterator[None]:
    """The invocation's grants and model, for the block; both are undone however the block ends."""
    agent = run.agent
    before = agent.model
    if invocation.model and invocation.model != run.config.model:
        from sneakycode.agent.model.client import build_chat_model

        settings = agent.ctx.settings
        agent.model = build_chat_model(replace(run.config, model=invocation.model), tool_calls=settings.tool_calls)
    try:
        with granted(agent.ctx, invocation.grants, invocation.origin):
            yield
    finally:
        agent.model = before


def with_resources(run: PreparedRun, text: str, notify: Callable[[str], None]) -> tuple[str, list[ImagePart]]:
    """The request with the `@SERVER:URI` resources it mentions attached, and the images among them; what
    could not be attached goes to `notify` and stays as text."""
    if not resource_mentions(text):
        return text, []
    attached = attach_resources(text, run.mcp, run.session.ctx)
    for notice in attached.notices:
        notify(notice)
    return attached.text, attached.images
