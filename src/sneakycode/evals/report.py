"""Scorecards as Markdown: one run (scorecard.md) and two runs side by side (`sneakycode eval compare`)."""

from __future__ import annotations

from typing import Any

from sneakycode.evals.scorecard import CLASSES


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cost(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def _failures(failures: dict[str, int]) -> str:
    shown = [f"{name} {count}" for name, count in failures.items() if count]
    return ", ".join(shown) or "-"


def _is_number(cell: str) -> bool:
    return all(part.strip().lstrip("$").replace(".", "", 1).replace("/", "", 1).isdigit() or part.strip() == "-"
               for part in cell.split(" / "))  # fmt: skip


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table; columns of numbers (or `A / B` pairs of them) are right-aligned."""
    align = ["---:" if rows and all(_is_number(row[i]) for row in rows) else "---" for i in range(len(header))]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |",
            *("| " + " | ".join(row) + " |" for row in rows)]  # fmt: skip


def _who(card: dict[str, Any]) -> str:
    model = card.get("model") or {}
    return f"{model.get('model') or '?'} ({model.get('provider') or '?'}, {model.get('base_url') or '?'})"


def scorecard_markdown(card: dict[str, Any]) -> str:
    suite, total = card["suite"], card["totals"]
    lines = [
        f"# Eval scorecard: {suite['name']} {suite['version']}", "",
        f"- model: {_who(card)}",
        f"- solved: **{total['solved']} / {total['tasks']}** ({total['solve_rate'] * 100:.1f} %), "
        f"up to {card['attempts_allowed']} attempt(s) per task",
        f"- started: {card['started_at']}, wall time {_num(total['wall_seconds'])} s", "",
        *_pass_at(card),
        "## Totals", "",
        *_table(["attempts", "turns", "tool calls", *CLASSES, "prompt", "cached", "completion", "prefill s",
                 "task s", "cost"],
                [[str(total["attempts"]), str(total["turns"]), str(total["tool_calls"]),
                  *(str(total["failures"][name]) for name in CLASSES), str(total["tokens"]["prompt"]),
                  str(total["tokens"]["cached"]), str(total["tokens"]["completion"]),
                  _num(total["prefill_seconds"], 2), _num(total["task_seconds"]), _cost(total["cost_usd"])]]),
        "", "## Tasks", "",
    ]  # fmt: skip
    rows = [[row["id"], row["language"], row["kind"], "yes" if row["solved"] else "no", str(row["attempts"]),
             str(row["turns"]), str(row["tool_calls"]), _failures(row["failures"]), str(row["tokens"]["prompt"]),
             str(row["tokens"]["cached"]), str(row["tokens"]["completion"]), _num(row["prefill_seconds"], 2),
             _num(row["wall_seconds"]), _cost(row["cost_usd"])] for row in card["tasks"]]  # fmt: skip
    lines += _table(["task", "language", "kind", "solved", "attempts", "turns", "tool calls", "failures", "prompt",
                     "cached", "completion", "prefill s", "wall s", "cost"], rows)  # fmt: skip
    return "\n".join(lines) + "\n"


def _pass_at(card: dict[str, Any]) -> list[str]:
    """pass@1 and pass@k side by side, with the cost of the attempts after the first (older cards: nothing)."""
    total = card["totals"]
    if "pass_at_1" not in total:
        return []
    k = card["attempts_allowed"]
    return [*_table(["pass@1", f"pass@{k}", "extra attempts", "their cost"],
                    [[f"{total['pass_at_1'] * 100:.1f} %", f"{total['pass_at_k'] * 100:.1f} %",
                      str(total["extra_attempts"]), _cost(total["extra_attempts_cost_usd"])]]), ""]


def _shown(row: dict[str, Any] | None, key: str) -> str:
    if row is None:
        return "-"
    value = row[key]
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _pair(a: Any, b: Any) -> str:
    return f"{a} / {b}"


def compare_markdown(a: dict[str, Any], b: dict[str, Any], sources: tuple[str, str] = ("", "")) -> str:
    """Two scorecards side by side: every cell is `A / B`; a task only one run has shows `-` for the other.
    `sources`: where each was read from, shown beside it."""
    ta, tb = a["totals"], b["totals"]
    where = [f" (`{source}`)" if source else "" for source in sources]
    lines = ["# Eval compare: A / B", "",
             f"- A{where[0]}: {_who(a)}, suite {a['suite']['name']} {a['suite']['version']}, {a['started_at']}",
             f"- B{where[1]}: {_who(b)}, suite {b['suite']['name']} {b['suite']['version']}, {b['started_at']}"]
    if (a["suite"]["name"], a["suite"]["version"]) != (b["suite"]["name"], b["suite"]["version"]):
        lines.append("- note: the two runs used different suites or suite versions; compare with care")
    lines += ["", "## Totals", ""]
    lines += _table(["", "tasks", "solved", "attempts", "turns", "tool calls", *CLASSES, "prompt", "cached",
                     "completion", "prefill s", "wall s", "cost"],
                    [["A / B", _pair(ta["tasks"], tb["tasks"]), _pair(ta["solved"], tb["solved"]),
                      _pair(ta["attempts"], tb["attempts"]), _pair(ta["turns"], tb["turns"]),
                      _pair(ta["tool_calls"], tb["tool_calls"]),
                      *(_pair(ta["failures"][n], tb["failures"][n]) for n in CLASSES),
                      *(_pair(ta["tokens"][k], tb["tokens"][k]) for k in ("prompt", "cached", "completion")),
                      _pair(_num(ta["prefill_seconds"], 2), _num(tb["prefill_seconds"], 2)),
                      _pair(_num(ta["wall_seconds"]), _num(tb["wall_seconds"])),
                      _pair(_cost(ta["cost_usd"]), _cost(tb["cost_usd"]))]])  # fmt: skip
    by_a = {row["id"]: row for row in a["tasks"]}
    by_b = {row["id"]: row for row in b["tasks"]}
    ids = [*by_a, *(task_id for task_id in by_b if task_id not in by_a)]
    rows = []
    for task_id in ids:
        ra, rb = by_a.get(task_id), by_b.get(task_id)

        def cell(key: str, ra: dict[str, Any] | None = ra, rb: dict[str, Any] | None = rb) -> str:
            return _pair(_shown(ra, key), _shown(rb, key))

        changed = "" if ra is None or rb is None or ra["solved"] == rb["solved"] else (
            " (+)" if rb["solved"] else " (-)")  # fmt: skip
        prompt = _pair("-" if ra is None else ra["tokens"]["prompt"], "-" if rb is None else rb["tokens"]["prompt"])
        wall = _pair("-" if ra is None else _num(ra["wall_seconds"]), "-" if rb is None else _num(rb["wall_seconds"]))
        rows.append([task_id, cell("solved") + changed, cell("attempts"), cell("turns"), cell("tool_calls"),
                     prompt, wall])  # fmt: skip
    lines += ["", "## Tasks", "", "(+) solved only by B, (-) solved only by A.", ""]
    lines += _table(["task", "solved", "attempts", "turns", "tool calls", "prompt tokens", "wall s"], rows)
    return "\n".join(lines) + "\n"
