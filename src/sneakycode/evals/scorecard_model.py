"""What `eval compare` accepts of a scorecard.json: the fields the comparison shows, typed and bounded.

A scorecard to compare may come from anyone (a colleague's run, a CI artifact): it is read through the
bounded reader and validated here before a cell is made, so a wrong type or a missing key is a clear error
rather than a traceback, and a string can neither break the table nor reach the terminal as control codes.
Keys the comparison does not show are ignored.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from sneakycode.errors import ConfigError
from sneakycode.evals.scorecard import CLASSES, FORMAT

MAX_TASKS = 10_000
# Printable text on one line, without the table's `|`: what a cell or the header line may show.
Text = Annotated[str, StringConstraints(max_length=512, pattern=r"^[^\x00-\x1f\x7f-\x9f|]*$")]
TaskId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")]
Count = Annotated[int, Field(ge=0, le=10**15, strict=True)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Shown(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Suite(_Shown):
    name: Text
    version: Text


class _Model(_Shown):
    model: Text | None = None
    provider: Text | None = None
    base_url: Text | None = None


class _Tokens(_Shown):
    prompt: Count
    cached: Count = 0
    completion: Count = 0


class _Totals(_Shown):
    tasks: Count
    solved: Count
    attempts: Count
    turns: Count
    tool_calls: Count
    failures: dict[str, Count]
    tokens: _Tokens
    prefill_seconds: Seconds | None = None
    wall_seconds: Seconds | None = None
    cost_usd: Seconds | None = None


class _Row(_Shown):
    id: TaskId
    solved: bool
    attempts: Count
    turns: Count
    tool_calls: Count
    tokens: _Tokens
    wall_seconds: Seconds | None = None


class Scorecard(_Shown):
    format: int
    suite: _Suite
    model: _Model = Field(default_factory=_Model)
    started_at: Text
    totals: _Totals
    tasks: list[_Row] = Field(max_length=MAX_TASKS)


def validated_scorecard(data: Any, where: str) -> dict[str, Any]:
    """`data` as compare_markdown reads it, or a ConfigError naming the first few wrong fields."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"{where} is not an eval scorecard (format {FORMAT})")
    try:
        card = Scorecard.model_validate(data)
    except ValidationError as exc:
        wrong = [f"{'.'.join(map(str, error['loc'])) or '(top level)'}: {error['msg']}" for error in exc.errors()]
        more = f" (and {len(wrong) - 5} more)" if len(wrong) > 5 else ""
        raise ConfigError(f"{where} is not a valid eval scorecard: {'; '.join(wrong[:5])}{more}") from None
    if missing := [name for name in CLASSES if name not in card.totals.failures]:
        raise ConfigError(f"{where} is not a valid eval scorecard: totals.failures lacks {', '.join(missing)}")
    return card.model_dump()
