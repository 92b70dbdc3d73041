"""`ModelBinding.for_model(name, role, models)`: the one derivation of what a model needs: its endpoint and
window, its client, its reply cap, its price (and, with `max_cost` set, the refusal of a model without one),
whether it takes images, the edit format its family is trained on and the built-in tools that go with it.

Start-up, `Session.set_model`, a command's `model:`, subagents that name a model and the small model all
bind through here, so none of them can skip a step: a model switched to, or a chore model, without a price
can no longer quietly turn the cost budget off.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from sneakycode.agent.budgets import Budgets, Spending
from sneakycode.agent.model.client import DebugLog, build_chat_model
from sneakycode.agent.model.families import edit_format_for, supports_images_for
from sneakycode.agent.model.pricing import Price, price_for
from sneakycode.agent.model.providers import ModelConfig, output_cap
from sneakycode.agent.protocol import ChatModel
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.subagents import TASK_TOOL
from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError
from sneakycode.tools.base import Tool
from sneakycode.tools.registry import conditional_tools, offered_tools

Role = Literal["main", "small", "subagent", "command", "fallback"]
"""main: the user's requests; small: the chores ([models] small); subagent: a definition's own `model:`;
command: a custom command's `model:` for one request (these two run on the main model's server); fallback: the
model that takes over a goal the main one could not reach ([models] fallback, api/goal.py)."""
ROLES: tuple[Role, ...] = ("main", "small", "subagent", "command", "fallback")


@dataclass
class Models:
    """What every binding of a session derives from: the settings, the main model's resolved endpoint (the
    start-up one), the session's budgets and the debug log."""

    loaded: LoadedSettings
    main: ModelConfig
    budgets: Budgets
    debug_log: DebugLog | None = None


@dataclass
class ModelBinding:
    """One model bound for one role: its config (endpoint, window), client, price and tools."""

    role: Role
    config: ModelConfig
    client: ChatModel
    price: Price | None
    edit_format: str
    tools: tuple[Tool, ...]
    """The built-in tools for this model (`tools.enabled`, with its edit tool)."""

    @property
    def name(self) -> str:
        return self.config.model

    @property
    def window(self) -> int:
        return self.config.context_window

    @property
    def reserve(self) -> int:
        """The reply cap each request asks for."""
        return output_cap(self.config)

    @property
    def supports_images(self) -> bool:
        return self.config.supports_images

    def bound(self) -> BoundModel:
        """What the loop holds of it: the client, its name (its price is looked up by it), window, reply cap."""
        return BoundModel(self.client, self.name, self.window, self.reserve)

    def charge_to(self, spending: Spending) -> None:
        """Register its price in the session's spending: the main one's is the session's, others by name."""
        if self.role == "main":
            spending.price = self.price
        else:
            spending.prices[self.name] = self.price

    def close(self) -> None:
        close_model(self.client)

    @classmethod
    def for_model(cls, name: str | None, role: Role, models: Models) -> ModelBinding:
        """Bind `name` (None: the configured one of the role) for `role`. A ConfigError, before any client is
        built, when the model has no price while `max_cost` is set, or when its settings are incomplete."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        config = config_for(name, role, models)
        settings = models.loaded.settings
        price = price_for(settings, config.provider, config.model)
        check_priced(config.model, price, models.budgets)
        if role == "fallback":
            check_priced(config.model, price, Budgets(max_cost=fallback_cost_cap(models.loaded)))
        client = build_chat_model(config, debug_log=models.debug_log, tool_calls=settings.tool_calls)
        return cls(role, config, client, price, edit_format_for(config.model, settings.tools.edit_format),
                   builtin_tools(models.loaded, config.model))


def binding_of(main: ModelBinding, small: ModelBinding | None) -> Binding:
    """What an Agent runs on (agent.roles.Binding): `main` for its requests, `small` for its chores."""
    return Binding(main.bound(), None if small is None else small.bound())


def config_for(name: str | None, role: Role, models: Models) -> ModelConfig:
    """The endpoint, model and window of `name` in `role` (the window asked of the server where it says)."""
    from sneakycode.api.assembly import with_server_window
    from sneakycode.api.roles import role_model_config

    main, settings = models.main, models.loaded.settings
    if role in ("small", "fallback"):
        found = role_model_config(models.loaded, main, "small" if role == "small" else "fallback", name)
        if found is None:
            raise ConfigError(f"no {role} model is set: name one ([models] {role}, or set_model(NAME, 'small'))"
                              if role == "small" else "no fallback model is set: name one ([models] fallback)")
        return found
    if name is None or name == main.model:
        return main
    config = replace(main, model=name, model_source=f"a {role} model" if role != "main" else "a model switch",
                     supports_images=supports_images_for(name, settings.supports_images))
    # A subagent's or a command's model runs in the main model's window on the same server (as it always has).
    return with_server_window(config) if role == "main" else config


def fallback_cost_cap(loaded: LoadedSettings) -> float | None:
    """`[models.fallback] max_cost`: the fallback model's own cost cap (None: only budgets.max_cost holds)."""
    chosen = loaded.settings.models.fallback
    return None if chosen is None or isinstance(chosen, str) else chosen.max_cost


def check_priced(model: str, price: Price | None, budgets: Budgets) -> None:
    """A cost budget needs the price of every model that spends tokens: refuse one without, whatever its role."""
    if budgets.max_cost is not None and price is None:
        raise ConfigError(
            f"--max-cost (budgets.max_cost) needs the price of {model}, which is not in the built-in table: "
            f'add [pricing."{model}"] with input = and output = (USD per million tokens) to the config'
        )


def builtin_tools(loaded: LoadedSettings, model: str) -> tuple[Tool, ...]:
    """The built-in tools for this model: `tools.enabled`, with the edit tool its family is trained on."""
    chosen = loaded.settings.tools
    # The task tool is the session's own (not a registry tool): offered unless tools.enabled leaves it out.
    enabled = None if chosen.enabled is None else [name for name in chosen.enabled if name != TASK_TOOL]
    tools = offered_tools(enabled, edit_format_for(model, chosen.edit_format), loaded.settings)
    extra = tuple(t for t in conditional_tools() if (enabled is None or t.name in enabled) and offered_if(t, loaded))
    ending = tuple(t for t in tools if t.ends_run)  # stays last, where the model is used to it
    return (*(t for t in tools if not t.ends_run), *extra, *ending)


def offered_if(found: Tool, loaded: LoadedSettings) -> bool:
    """Whether a conditional tool can work in this session: `code` needs a language server for a language of
    the workspace (found without starting one)."""
    from sneakycode.tools.lsp.servers import available_servers

    return found.name == "code" and bool(available_servers(loaded))


def close_model(model: ChatModel) -> None:
    """Close a model's HTTP connections, when it holds any."""
    close = getattr(model, "close", None)
    if callable(close):
        close()
