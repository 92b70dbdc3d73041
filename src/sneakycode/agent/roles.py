"""Model roles: the main model works on the user's requests; the small model (`[models] small`), when one is
set, runs the chores: compaction summaries, the `explore` subagent and any subagent definition that asks
for `model: small`. Unset, the main model does everything.

`Binding` is what an Agent runs on; `api.binding.ModelBinding` derives each of its models (the agent layer
cannot import the api layer, so the agent says here what it needs and the api produces it).
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
    name: str = ""
    window: int = 0
    """Its context window in tokens; 0: the configured `context_window` (a model built without a binding)."""
    reserve: int = 0
    """The reply cap each request asks for, which the window must hold besides the prompt."""


@dataclass
class Binding:
    """The models one Agent runs on: `model` works on its requests, `small` writes its chores (summaries,
    titles, `model: small` subagents); None: its own model does them."""

    model: BoundModel
    small: BoundModel | None = None


SmallModel = BoundModel  # the small model is one BoundModel among others
