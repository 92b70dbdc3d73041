"""What an eval measured, per task and in total: scorecard.json (the data, `FORMAT` versioned) and
scorecard.md (the same as tables). A task's row adds up its attempts; the failure classes come from the
error codes of the tool results in each attempt's transcript (docs/errors.md), and `budget` from a run
that a budget or the turn limit ended.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

FORMAT = 1
SCORECARD_JSON = "scorecard.json"
SCORECARD_MD = "scorecard.md"
MAX_SCORECARD_BYTES = 16 * 1024 * 1024
"""A scorecard `eval compare` reads, at most (a 31-task run's is about 40 KB)."""
FAILURE_CLASSES: dict[str, tuple[str, ...]] = {
    "invalid_tool_call": ("invalid_arguments", "invalid_tool_call"),
    "unknown_tool": ("unknown_tool",),
    "edit_not_matched": ("no_match", "multiple_matches", "patch_failed", "invalid_patch"),
    "stale_read": ("stale_read", "not_read"),
    "denied": ("permission_denied", "rejected_by_user", "blocked_by_hook"),
}
CLASS_OF = {code: name for name, codes in FAILURE_CLASSES.items() for code in codes}
CLASSES = (*FAILURE_CLASSES, "budget")
BUDGET_STATUSES = ("budget", "turn_limit")
_ERROR = re.compile(r"^Error \[([a-z_]+)\]")


def transcript_facts(path: str | None) -> dict[str, Any]:
    """Tool calls, error codes of tool results, cached tokens and prefill seconds of one agent run."""
    facts: dict[str, Any] = {"tool_calls": 0, "codes": Counter(), "cached": 0, "prefill_seconds": None}
    if not path or not Path(path).is_file():
        return facts
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line
        if not isinstance(record, dict):
            continue
        if record.get("type") == "usage":
            facts["cached"] += int(record.get("cached_tokens") or 0)
            if isinstance(seconds := record.get("prefill_seconds"), int | float):
                facts["prefill_seconds"] = (facts["prefill_seconds"] or 0.0) + float(seconds)
        message = record.get("message") if record.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            facts["tool_calls"] += len(message.get("tool_calls") or [])
        elif message.get("role") == "tool" and (found := _ERROR.match(str(message.get("content") or ""))):
            facts["codes"][found.group(1)] += 1
    return facts


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None and b is None else round((a or 0.0) + (b or 0.0), 6)


def task_row(task_id: str, language: str, kind: str, attempts: list[dict[str, Any]]) -> dict[str, Any]:
    """One task's row from its attempts' batch result lines (oldest first)."""
    row: dict[str, Any] = {
        "id": task_id, "language": language, "kind": kind, "solved": False, "attempts": len(attempts),
        "outcome": None, "status": None, "turns": 0, "tool_calls": 0, "failures": dict.fromkeys(CLASSES, 0),
        "error_codes": {}, "tokens": {"prompt": 0, "cached": 0, "completion": 0}, "prefill_seconds": None,
        "wall_seconds": 0.0, "cost_usd": None, "error": None, "solved_at": None, "per_attempt": [],
    }  # fmt: skip
    codes: Counter[str] = Counter()
    for number, result in enumerate(attempts, start=1):
        # pass@k reads these: the first attempt that passed, and what each attempt found and cost.
        if result.get("outcome") == "passed" and row["solved_at"] is None:
            row["solved_at"] = number
        row["per_attempt"].append({"outcome": result.get("outcome"), "cost_usd": result.get("cost_usd"),
                                   "turns": int(result.get("turns") or 0)})
        facts = transcript_facts(result.get("transcript"))
        codes.update(facts["codes"])
        tokens = result.get("tokens") or {}
        row["solved"] = row["solved"] or result.get("outcome") == "passed"
        row["outcome"], row["status"], row["error"] = result.get("outcome"), result.get("status"), result.get("error")
        row["turns"] += int(result.get("turns") or 0)
        row["tool_calls"] += facts["tool_calls"]
        row["tokens"]["prompt"] += int(tokens.get("prompt") or 0)
        row["tokens"]["completion"] += int(tokens.get("completion") or 0)
        row["tokens"]["cached"] += facts["cached"]
        row["prefill_seconds"] = _add(row["prefill_seconds"], facts["prefill_seconds"])
        row["wall_seconds"] = round(row["wall_seconds"] + float(result.get("duration") or 0.0), 3)
        row["cost_usd"] = _add(row["cost_usd"], result.get("cost_usd"))
        row["failures"]["budget"] += result.get("status") in BUDGET_STATUSES
    for code, count in codes.items():
        if code in CLASS_OF:
            row["failures"][CLASS_OF[code]] += count
    row["error_codes"] = dict(sorted(codes.items()))
    return row


def totals(rows: list[dict[str, Any]], wall_seconds: float) -> dict[str, Any]:
    solved = sum(row["solved"] for row in rows)
    total: dict[str, Any] = {
        "tasks": len(rows), "solved": solved, "solve_rate": round(solved / len(rows), 4) if rows else 0.0,
        "attempts": sum(row["attempts"] for row in rows), "turns": sum(row["turns"] for row in rows),
        "tool_calls": sum(row["tool_calls"] for row in rows),
        "failures": {name: sum(row["failures"][name] for row in rows) for name in CLASSES},
        "tokens": {key: sum(row["tokens"][key] for row in rows) for key in ("prompt", "cached", "completion")},
        "prefill_seconds": None, "task_seconds": round(sum(row["wall_seconds"] for row in rows), 3),
        "wall_seconds": round(wall_seconds, 3), "cost_usd": None,
        **pass_at(rows),
    }  # fmt: skip
    for row in rows:
        total["prefill_seconds"] = _add(total["prefill_seconds"], row["prefill_seconds"])
        total["cost_usd"] = _add(total["cost_usd"], row["cost_usd"])
    return total


def pass_at(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """pass@1 (solved by the first attempt) beside pass@k (by any of the attempts allowed), and what the attempts
    after the first cost: the price of the difference between the two."""
    first = sum(row.get("solved_at") == 1 for row in rows)
    solved = sum(bool(row["solved"]) for row in rows)
    extra: float | None = None
    for row in rows:
        for attempt in row.get("per_attempt", [])[1:]:
            extra = _add(extra, attempt["cost_usd"])
    return {"pass_at_1": round(first / len(rows), 4) if rows else 0.0,
            "pass_at_k": round(solved / len(rows), 4) if rows else 0.0,
            "extra_attempts": sum(max(0, len(row.get("per_attempt", [])) - 1) for row in rows),
            "extra_attempts_cost_usd": extra}


def write_scorecard(out_dir: Path, card: dict[str, Any]) -> tuple[Path, Path]:
    from sneakycode.evals.report import scorecard_markdown

    json_path, md_path = out_dir / SCORECARD_JSON, out_dir / SCORECARD_MD
    json_path.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(scorecard_markdown(card), encoding="utf-8")
    return json_path, md_path


def read_scorecard(path: Path) -> dict[str, Any]:
    """A scorecard.json, or the folder holding one, validated (scorecard_model.py); a ConfigError says what
    is wrong. Read through the bounded reader: a FIFO, a device or a huge file is refused, not waited on."""
    from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
    from sneakycode.errors import ConfigError
    from sneakycode.evals.scorecard_model import validated_scorecard

    file = path / SCORECARD_JSON if path.is_dir() else path
    try:
        card = json.loads(read_regular(file, MAX_SCORECARD_BYTES).decode("utf-8"))
    except NotRegularFile as exc:
        raise ConfigError(f"cannot read the scorecard {file}: {exc.kind}, not a regular file") from None
    except OverLimit:
        raise ConfigError(f"cannot read the scorecard {file}: larger than {MAX_SCORECARD_BYTES} bytes") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the scorecard {file}: {exc.strerror or exc}") from None
    except RecursionError:
        raise ConfigError(f"cannot read the scorecard {file}: JSON nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"cannot read the scorecard {file}: not JSON ({exc})") from None
    return validated_scorecard(card, str(file))
