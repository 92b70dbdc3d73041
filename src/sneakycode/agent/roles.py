"""Model roles: the main model works on the user's requests; the small model (`[models] small`), when one is
set, runs the chores: compaction summaries, the `explore` subagent and any subagent definition that asks
for `model: small`. Unset, the main model does everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.agent.protocol import ChatModel

SMALL = "small"
"""The model name a subagent definition gives to run on the small model."""


@dataclass
class BoundModel:
    """A model the loop runs on (the main one, the small one, a subagent's own): its client, its name (its
    price is looked up by it), its window and its usual reply cap. `api.binding` derives it."""

    model: ChatModel
    name: str
    window: int
    reserve: int


SmallModel = BoundModel  # the small model is one BoundModel among others
