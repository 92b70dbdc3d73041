"""What a request given up says to the user: the ModelError for the last failure, with what to do about it."""

from __future__ import annotations

from collections.abc import Callable

from sneakycode.agent.model.failures import MAX_RETRY_AFTER, Failure, silence_message
from sneakycode.agent.model.providers import KEY_PROVIDERS, ModelConfig
from sneakycode.errors import ModelError


def final_error(config: ModelConfig, failure: Failure, retries: int, model_ids: Callable[[], list[str]]) -> ModelError:
    """`model_ids` lists the server's models, asked only when the model was not found."""
    tries = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
    local_help = f" Is the server running? {config.help}." if config.local and config.help else ""
    if failure.kind == "auth":
        # Only a hosted provider's help is about keys ("get a key at ..."); a local or custom server's says how
        # to start it or set base_url, which a refused key has nothing to do with.
        key_help = config.help if config.provider in KEY_PROVIDERS else ""
        message = (
            f"{config.provider} at {config.base_url} rejected the API key ({failure.summary}). The key came "
            f"from {config.key_source}; check that it is right and still active"
            + (f" ({key_help})." if key_help else ".")
        )
    elif failure.kind == "model_not_found":
        message = _unknown_model_message(config, failure, model_ids)
    elif failure.kind == "context_length":
        message = f"the conversation no longer fits {config.model}'s context window ({failure.summary})."
    elif failure.kind == "bad_request":
        message = f"{config.base_url} refused the request ({failure.summary})."
    elif failure.kind == "timeout":
        message = silence_message(config.base_url, failure, config.request_timeout, tries) + local_help
    elif failure.kind == "connection":
        message = f"cannot reach {config.base_url}{tries}: {failure.summary}.{local_help}"
    else:
        wait = ""
        if failure.retry_after is not None and failure.retry_after > MAX_RETRY_AFTER:
            wait = f" The server asks to wait {failure.retry_after:.0f} s; try again later."
        message = f"{config.base_url} failed{tries}: {failure.summary}.{wait} Raise max_retries to keep trying."
    return ModelError(message, kind=failure.kind)


def _unknown_model_message(config: ModelConfig, failure: Failure, model_ids: Callable[[], list[str]]) -> str:
    head = (
        f"{config.base_url} does not offer the model {config.model!r} "
        f"(from {config.model_source}; {failure.summary})."
    )
    try:
        offered = model_ids()
    except Exception as exc:  # any failure of the listing only makes the message shorter
        return f"{head} Listing its /models failed too ({exc}); check base_url (it usually ends in /v1)."
    shown = ", ".join(offered[:40]) + (f", ... ({len(offered)} in all)" if len(offered) > 40 else "")
    return f"{head} It offers: {shown or '(none)'}. Choose one with --model NAME or model = \"NAME\" in the config."
