"""The small model (`[models] small`) and the fallback model (`[models] fallback`): their endpoint, key and
window. The small model runs the chores (compaction summaries, the explore subagent, definitions with
`model: small`); the fallback takes over a goal whose check the main model could not pass (api/goal.py).

A bare name runs on the main model's server with its key. A `[models.small]` table may name its own
`base_url` and `api_key_env`; the main model's key is never sent to another endpoint (the table gets no key
unless it names one), and an untrusted repository cannot set either (config/trust.py REDIRECTING_KEYS).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal
from urllib.parse import urlparse

from sneakycode.agent.model.families import supports_images_for
from sneakycode.agent.model.providers import LOOPBACK_HOSTS, PLACEHOLDER_KEY, PRESETS, ModelConfig
from sneakycode.config import LoadedSettings
from sneakycode.config.settings import SmallModelSettings
from sneakycode.errors import ConfigError
from sneakycode.process.environment import full_environment


def small_model_config(loaded: LoadedSettings, main: ModelConfig, name: str | None = None) -> ModelConfig | None:
    """The small model's config, derived from the main one; None when `[models] small` is unset (and no
    `name` is given: a switch to NAME works without a configured one). A ConfigError says what to set."""
    return role_model_config(loaded, main, "small", name)


def role_model_config(loaded: LoadedSettings, main: ModelConfig, key: Literal["small", "fallback"],
                      name: str | None = None) -> ModelConfig | None:
    """`[models] KEY`'s config (a bare name, or a table with its own endpoint and key), derived from the main
    model's; None when it is unset and no `name` is given. The same trust rules hold for both keys."""
    from sneakycode.api.assembly import with_server_window

    chosen: str | SmallModelSettings | None = getattr(loaded.settings.models, key)
    if chosen is None and name is None:
        return None
    table = SmallModelSettings(model=chosen) if isinstance(chosen, str) else chosen
    origin = loaded.origin_of(f"models.{key}") if isinstance(chosen, str) else loaded.origin_of(f"models.{key}.model")
    model = name or (table.model if table is not None else "")
    config = replace(
        main, model=model, model_source="a model switch" if name else f"[models] {key} ({origin})",
        supports_images=supports_images_for(model, None),
        context_window_source="the main model's window",
    )
    if table is not None and table.base_url:
        url = table.base_url.rstrip("/")
        custom = PRESETS["custom"]
        config = replace(
            config, provider="custom", base_url=url, local=urlparse(url).hostname in LOOPBACK_HOSTS, help=custom.help,
            api_key=PLACEHOLDER_KEY, key_source=f"nowhere (models.{key} names no api_key_env)",
            context_window=custom.context_window, context_window_source="the custom preset",
        )
    if table is not None and table.api_key_env:
        secret = full_environment().get(table.api_key_env)
        if not secret:
            raise ConfigError(
                f"{loaded.origin_of(f'models.{key}.api_key_env')}: models.{key}.api_key_env names "
                f"{table.api_key_env}, but that environment variable is not set"
            )
        config = replace(config, api_key=secret, key_source=f"the environment variable {table.api_key_env}")
    if table is not None and table.context_window:
        return replace(config, context_window=table.context_window,
                       context_window_source=f"configured ({loaded.origin_of(f'models.{key}.context_window')})")
    if main.context_window_source.startswith("configured") and not (table and table.base_url):
        return config  # the main model's configured window, on the same server
    return with_server_window(config)
