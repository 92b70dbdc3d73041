"""Settings for one model by name, `[model_settings."MODEL"]`: what `sneakycode doctor --save` found to work
with it (how its tool calls arrive, the window its server honours, the edit tool it knows).

They apply when the session names that model (`model`, `--model`), over the defaults and the configuration
files' own keys (the more specific entry wins), but under SNEAKYCODE_* variables and command-line flags, which
are the user's choice for this one run.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Keys of a model's entry, and the dotted setting each one sets.
TUNED_KEYS = {
    "tool_calls": "tool_calls",
    "context_window": "context_window",
    "edit_format": "tools.edit_format",
    "reasoning_history": "reasoning_history",
    "reasoning_effort": "reasoning_effort",
}
_RUN_LAYERS = ("environment variable ", "command-line flags")


class ModelTuning(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)

    tool_calls: Literal["auto", "native", "text"] | None = Field(None, description="`tool_calls` for this model.")
    context_window: int | None = Field(None, ge=1024, description="`context_window` for this model.")
    edit_format: Literal["auto", "replace", "patch", "both"] | None = Field(
        None, description="`tools.edit_format` for this model."
    )
    reasoning_history: Literal["auto", "drop", "chain", "keep"] | None = Field(
        None, description="`reasoning_history` for this model: which replies' reasoning is sent back."
    )
    reasoning_effort: Literal["low", "medium", "high"] | None = Field(
        None, description="`reasoning_effort` for this model."
    )


def tuned_values(model: str | None, tuning: dict[str, ModelTuning], origins: dict[str, str]) -> dict[str, Any]:
    """The dotted settings `model`'s entry sets: the keys it names that neither a SNEAKYCODE_* variable nor a
    flag set."""
    entry = tuning.get(model or "")
    if entry is None:
        return {}
    values = {}
    for key, dotted in TUNED_KEYS.items():
        value = getattr(entry, key)
        if value is not None and not origins.get(dotted, "").startswith(_RUN_LAYERS):
            values[dotted] = value
    return values
