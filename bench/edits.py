"""How many realistic failing model edits each matching strategy recovers, versus exact-only matching.

Runs the corpus in tests/fixtures/edit_corpus through the same pure functions the tools use, with the
strategies switched on one at a time (cumulative). An edit counts as recovered only when the resulting
bytes equal the expected file; an edit the corpus says must be refused counts as wrong if it is applied.
Prints two Markdown tables (str_replace, patch_apply); docs/editing.md carries a copy.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sneakycode.errors import ToolError
from sneakycode.tools.edit.patch import Patch, apply_hunks, parse_patch
from sneakycode.tools.edit.strategies import STRATEGIES
from sneakycode.tools.edit.tools import compute_str_replace
from sneakycode.workspace.textfiles import decode_text, encode_text

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "edit_corpus"
FILE_NAME = "service.py"

Outcome = bytes | None  # the new file bytes, or None when the edit was refused


def naive_replace(raw: bytes, args: dict[str, Any]) -> Outcome:
    """What a peer without fallbacks does: find old_str in the raw decoded bytes, exactly once."""
    text = raw.decode("utf-8")
    old, new = args["old_str"], args["new_str"]
    if text.count(old) != 1:
        return None
    return text.replace(old, new, 1).encode("utf-8")


def str_replace_level(count: int) -> Callable[[bytes, dict[str, Any]], Outcome]:
    def run(raw: bytes, args: dict[str, Any]) -> Outcome:
        text, fmt = decode_text(raw)
        try:
            edit = compute_str_replace(
                text, args["old_str"], args["new_str"], replace_all=args["replace_all"], label=FILE_NAME,
                strategies=STRATEGIES[:count],
            )
        except ToolError:
            return None
        return encode_text(edit.text, fmt)

    return run


def well_formed(patch: str, parsed: Patch) -> bool:
    """What a strict applier accepts: exact @@ counts, every hunk line prefixed, LF line ends, no fence."""
    if "\r" in patch or patch.lstrip().startswith("```"):
        return False
    for hunk in parsed.hunks:
        new_count = sum(1 for kind, _ in hunk.lines if kind != "-")
        if any(hunk.from_blank) or hunk.old_count != len(hunk.old) or hunk.new_count != new_count:
            return False
    return True


def patch_level(*, strict: bool, search: bool, tolerant: bool) -> Callable[[bytes, dict[str, Any]], Outcome]:
    def run(raw: bytes, args: dict[str, Any]) -> Outcome:
        text, fmt = decode_text(raw)
        try:
            parsed = parse_patch(args["patch"])
            if strict and not well_formed(args["patch"], parsed):
                return None
            named = [p.removeprefix("a/").removeprefix("b/") for p in (parsed.old_path, parsed.new_path) if p]
            if any(name != FILE_NAME for name in named):
                return None
            patched = apply_hunks(text, parsed.hunks, label=FILE_NAME, search=search, tolerant=tolerant)
        except ToolError:
            return None
        return encode_text(patched.text, fmt)

    return run


def _strategy_label(name: str) -> str:
    return "exact on decoded text (a CRLF file reads as LF)" if name == "exact" else "+ " + name.replace("_", " ")


STR_LEVELS: list[tuple[str, Callable[[bytes, dict[str, Any]], Outcome]]] = [
    ("exact on the raw file (peers without fallbacks)", naive_replace),
    *((_strategy_label(s.name), str_replace_level(count)) for count, s in enumerate(STRATEGIES, 1)),
]

PATCH_LEVELS: list[tuple[str, Callable[[bytes, dict[str, Any]], Outcome]]] = [
    ("strict: well-formed hunks, exact at the stated line", patch_level(strict=True, search=False, tolerant=False)),
    ("+ lenient parsing (counts, fence, blank context, CRLF)", patch_level(strict=False, search=False, tolerant=False)),
    ("+ search nearby, then the whole file", patch_level(strict=False, search=True, tolerant=False)),
    ("+ whitespace-tolerant context", patch_level(strict=False, search=True, tolerant=True)),
]


def load_corpus() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(CORPUS.glob("*.json"))]


def table(title: str, cases: list[dict[str, Any]], levels: list[tuple[str, Callable[..., Outcome]]]) -> str:
    should_apply = [c for c in cases if c["expect"]["outcome"] == "applied"]
    must_refuse = [c for c in cases if c["expect"]["outcome"] == "error"]
    rows = [
        f"**{title}**: {len(should_apply)} edits that should apply, {len(must_refuse)} that must be refused",
        "",
        "| matching | applied correctly | refused correctly | wrong edits |",
        "|---|---|---|---|",
    ]
    for label, run in levels:
        applied = refused = wrong = 0
        for case in cases:
            raw = case["file"].encode("utf-8")
            outcome = run(raw, case["args"])
            expected = case["expect"]
            if outcome is None:
                refused += expected["outcome"] == "error"
            elif expected["outcome"] == "applied" and outcome == expected["result"].encode("utf-8"):
                applied += 1
            else:
                wrong += 1
        rows.append(f"| {label} | {applied}/{len(should_apply)} | {refused}/{len(must_refuse)} | {wrong} |")
    return "\n".join(rows)


def main() -> int:
    cases = load_corpus()
    print(table("str_replace", [c for c in cases if c["tool"] == "str_replace"], STR_LEVELS))
    print()
    print(table("patch_apply", [c for c in cases if c["tool"] == "patch_apply"], PATCH_LEVELS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
