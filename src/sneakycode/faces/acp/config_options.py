"""The session's settings an editor shows as pickers (`configOptions`, `session/set_config_option`): the model
(from the server's own list), the small model, the permission mode, and the reasoning effort when the model
takes one. Each change goes through the session's verbs (`set_model`, `set_mode`, api/editor.py), so a model
that cannot run (no price while a cost budget is set) is refused as the terminal's /model refuses it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp import RequestError, schema

from sneakycode.api.editor import effort_levels, reasoning_effort, set_reasoning_effort
from sneakycode.api.vocabulary import ConfigError

if TYPE_CHECKING:
    from sneakycode.api.session import Session

MODEL, SMALL_MODEL, MODE, EFFORT = "model", "small_model", "mode", "reasoning_effort"
MAIN_FOR_CHORES = "(main model)"  # the small model's value when the main model runs the chores too

Option = schema.SessionConfigOptionSelect


def _select(option_id: str, name: str, current: str, values: list[tuple[str, str]], category: str,
            description: str) -> Option:
    if current not in [value for value, _ in values]:  # what is in force is always one of the choices
        values = [(current, current), *values]
    return Option(type="select", id=option_id, name=name, current_value=current, category=category,
                  description=description,
                  options=[schema.SessionConfigSelectOption(value=value, name=label) for value, label in values])


def options_of(session: Session, modes: list[schema.SessionMode], models: list[str] | None) -> list[Option]:
    """The pickers for `session`: `modes` as offered, `models` as its server lists them (None: not listed)."""
    listed = [(name, name) for name in models or []]
    small = session.small_config.model if session.small_config is not None else MAIN_FOR_CHORES
    shown = [
        _select(MODEL, "Model", session.model, listed, "model", "The model that works on your requests"),
        _select(SMALL_MODEL, "Small model", small, [(MAIN_FOR_CHORES, MAIN_FOR_CHORES), *listed], "model_config",
                "The model for chores: titles, compaction summaries, the explore subagent"),
        _select(MODE, "Mode", str(session.mode), [(mode.id, mode.name) for mode in modes], "mode",
                "What runs without asking"),
    ]
    efforts = effort_levels(session)
    if efforts:
        current = reasoning_effort(session) or "medium"
        shown.append(_select(EFFORT, "Reasoning effort", current, [(e, e.capitalize()) for e in efforts],
                             "thought_level", "How hard the model thinks before it answers"))
    return shown


LIST_SECONDS = 5.0  # GET /models: a picker without the server's list is better than a hung session/new


def listed_models(session: Session) -> list[str] | None:
    """The models the session's server lists, or None when it does not answer in time."""
    try:
        return session.offered_models(LIST_SECONDS)
    except (OSError, ValueError):
        return None


def apply(session: Session, option_id: str, value: str, modes: list[str]) -> None:
    """Set one option (on a worker thread: a model switch binds the new model); a -32602 error names what is
    wrong and changes nothing."""
    try:
        if option_id == MODEL:
            session.set_model(value)
        elif option_id == SMALL_MODEL:
            if value == MAIN_FOR_CHORES:
                raise ConfigError("the small model can be switched to another model, not turned off mid-session")
            session.set_model(value, role="small")
        elif option_id == MODE:
            if value not in modes:  # yolo only when already in force, as session/set_mode
                raise ConfigError(f"{value!r} is not one of {', '.join(modes)}")
            session.set_mode(value)
        elif option_id == EFFORT:
            set_reasoning_effort(session, value)
        else:
            raise ConfigError(f"there is no option {option_id!r}")
    except (ConfigError, ValueError) as exc:
        raise RequestError.invalid_params({"configId": option_id, "value": value, "message": str(exc)}) from None
