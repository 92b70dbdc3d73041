"""`DIR/results.jsonl` (one line per finished task, appended and synced as each ends, so a crash loses
nothing) and `DIR/summary.json` (counts, tokens, cost, duration percentiles)."""

from __future__ import annotations

import json
import os
import statistics
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

RESULTS = "results.jsonl"
SUMMARY = "summary.json"


class ResultsFile:
    """Appends result lines from any thread; each line is written whole and synced before `append` returns."""

    def __init__(self, out_dir: Path) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.path = out_dir / RESULTS
        self._lock = threading.Lock()
        self._repair_tail()

    def _repair_tail(self) -> None:
        """A runner killed mid-write can leave half a line: end it, so the next line starts on its own
        (the half line is skipped when read, and its task runs again)."""
        if self.path.exists() and self.path.stat().st_size:
            with self.path.open("rb+") as file:
                file.seek(-1, os.SEEK_END)
                if file.read(1) != b"\n":
                    file.write(b"\n")

    def append(self, result: dict[str, Any]) -> None:
        line = json.dumps(result, ensure_ascii=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as file:
            file.write(line)
            file.flush()
            os.fsync(file.fileno())


def read_results(out_dir: Path) -> list[dict[str, Any]]:
    """The whole lines of results.jsonl, oldest first (a cut last line is left out)."""
    path = out_dir / RESULTS
    if not path.exists():
        return []
    results: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            results.append(data)
    return results


def finished_ids(out_dir: Path) -> set[str]:
    """Tasks `--resume` skips: every task with a result line (cancelled ones never get one)."""
    return {result["id"] for result in read_results(out_dir)}


def _percentile(values: list[float], fraction: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 3)
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(fraction * 100) - 1], 3)


def summarise(results: Iterable[dict[str, Any]], *, cancelled: int = 0, not_started: int = 0) -> dict[str, Any]:
    """The batch in numbers: what summary.json holds and the end-of-run table shows. The latest line per
    task counts (a task run again after a resume replaces nothing, but guard anyway)."""
    latest = {result["id"]: result for result in results}
    rows = list(latest.values())
    durations = [float(r.get("duration") or 0.0) for r in rows]
    costs = [r["cost_usd"] for r in rows if isinstance(r.get("cost_usd"), int | float)]
    return {
        "tasks": len(rows),
        "passed": sum(r.get("outcome") == "passed" for r in rows),
        "failed": sum(r.get("outcome") == "failed" for r in rows),
        "errored": sum(r.get("outcome") == "errored" for r in rows),
        "cancelled": cancelled,
        "not_started": not_started,
        "tokens": sum(int((r.get("tokens") or {}).get("total") or 0) for r in rows),
        "cost_usd": round(sum(costs), 6) if costs else None,
        "duration_p50": _percentile(durations, 0.50),
        "duration_p95": _percentile(durations, 0.95),
    }


def write_summary(out_dir: Path, summary: dict[str, Any]) -> Path:
    path = out_dir / SUMMARY
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)
    return path
