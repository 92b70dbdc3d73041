"""A request's own syntax, for every face alike: `/NAME ARGS` runs a custom command or skill (its
allowed-tools granted and its model in use for that request only), and `@SERVER:URI` attaches an MCP
resource."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sneakycode.extensions.grants import granted
from sneakycode.extensions.invocation import Invocation, invoke, parse_slash
from sneakycode.extensions.mcp.resources import attach_resources, resource_mentions

if TYPE_CHECKING:
    from sneakycode.api.session import Session
    from sneakycode.tools.base import ImagePart


def expand(session: Session, line: str) -> Invocation | None:
    """The invocation `line` stands for, or None when it names none (a ConfigError when it names one that
    cannot be sent; see extensions.invocation). Its notices go to the session's events."""
    if parse_slash(line) is None:
        return None
    found = invoke(line, session._parts.extensions, session._agent.gate, trusted=session.loaded.trusted)
    for notice in found.notices:
        session._agent.sink.emit({"type": "notice", "message": notice})
    return found


@contextmanager
def in_effect(session: Session, invocation: Invocation) -> Iterator[None]:
    """The invocation's grants and model, for the block; both are undone however the block ends. Its model is
    bound like any other (api/binding.py): priced, and refused without a price under a cost budget."""
    from sneakycode.api.binding import ModelBinding, close_model

    agent = session._agent
    before = None
    if invocation.model and invocation.model != session.model:
        assert session._parts.models is not None
        binding = ModelBinding.for_model(invocation.model, "command", session._parts.models)
        binding.charge_to(agent.spending)
        before = agent.use_model(binding.bound(), fit=False)
    try:
        with granted(agent.ctx, invocation.grants, invocation.origin):
            yield
    finally:
        if before is not None:
            close_model(agent.use_model(before, fit=False).model)


def with_resources(session: Session, text: str) -> tuple[str, list[ImagePart]]:
    """The request with the `@SERVER:URI` resources it mentions attached, and the images among them; what
    could not be attached is a notice and stays as text."""
    if not resource_mentions(text):
        return text, []
    attached = attach_resources(text, session._parts.mcp, session._ctx)
    for notice in attached.notices:
        session._agent.sink.emit({"type": "notice", "message": notice})
    return attached.text, attached.images
