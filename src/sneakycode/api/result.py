"""`Result`: how one request to a session ended, with what it cost and changed (the `-p --output-format json`
object and the stream's `final` event are this, as a dict)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypedDict

Status = Literal["finished", "answered", "turn_limit", "budget", "cancelled", "error"]


class TokenUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    estimated: bool  # the server reported no usage; these are SneakyCode's estimates
    cached_tokens: int  # of prompt_tokens, served from the server's prompt cache
    prefilled_tokens: int  # of prompt_tokens, evaluated anew
    cache_reported: bool  # whether the server said what it cached (else cached_tokens is merely 0)
    prefill_seconds: float | None  # time spent reading the prompts, where the server reports it (llama.cpp)


@dataclass
class Result:
    """`status`: finished (the model called finish), answered (it replied without a call), turn_limit,
    budget, cancelled or error; `message` is what the user is told. `files_changed` lists the workspace
    files the session changed so far (commands' changes included where checkpoints are on); `denied` the
    calls refused; `jobs` the background commands started; `cost` the spending, in USD when the price is
    known. With an output schema, `structured_output` is the final answer as JSON, valid against it; an answer
    that stays invalid after one retry ends the request as an error with `error_code` output_schema_mismatch."""

    status: Status
    message: str
    turns: int = 0
    tool_calls: int = 0
    usage: TokenUsage = field(default_factory=lambda: TokenUsage(
        prompt_tokens=0, completion_tokens=0, total_tokens=0, estimated=False, cached_tokens=0, prefilled_tokens=0,
        cache_reported=False, prefill_seconds=None))
    cost: dict[str, Any] = field(default_factory=dict)
    session_id: str = ""
    files_changed: list[str] = field(default_factory=list)
    denied: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    budget: str | None = None  # which budget stopped it: max_turns, max_tokens, max_cost, timeout
    error_kind: str | None = None  # status "error" from a failed model request: auth, timeout, ... (ModelErrorKind)
    # With an output schema: the final answer as JSON, valid against it (None without one, or when invalid).
    structured_output: Any = None
    error_code: str | None = None  # status "error" with an ErrorCode: output_schema_mismatch
    # With a goal (`Options.until`): the check's last run ({command, passed, exit_code, output, rounds,
    # already_passing, files}); None without one.
    check: dict[str, Any] | None = None
    # The model whose work ended the request (with a goal: the one whose change passed the check).
    solved_by: str | None = None
    # Tokens and cost per model ({name: {prompt_tokens, completion_tokens, usd}}), the fallback's apart.
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    # With several attempts (batch/attempts.py): one row per attempt, and which was kept (None: none).
    attempts: list[dict[str, Any]] = field(default_factory=list)
    chosen_attempt: int | None = None

    @property
    def success(self) -> bool:
        return self.status in ("finished", "answered")

    @property
    def resume(self) -> str | None:
        """How to go on with a run that ended early (any status but finished and answered): the flag to pass."""
        return None if self.success or not self.session_id else f"--resume {self.session_id}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON result (docs/headless.md): `result` holds the message."""
        shown = asdict(self)
        return {"result": shown.pop("message"), "success": self.success, "status": shown.pop("status"),
                "budget": shown.pop("budget"), **shown, "resume": self.resume}
