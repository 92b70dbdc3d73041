"""The tool-call conformance corpus and how far our text parser agrees with the serving stacks' parsers.

Each case in tests/fixtures/tool_call_corpus/ is a model reply taken byte-exact from the parser tests of vLLM,
SGLang, llama.cpp or Ollama, with the calls that source's parser extracts from it (`expected`, [] when it
extracts none) and the offered tools' parameter schemas. A case AGREES when our valid calls equal `expected`
(names and argument objects, in order). A WRONG EXECUTION is a valid call of ours that the source would not
make, or makes with other arguments: it would run something the model did not write. A call we mark
`invalid` runs nothing, so it can only cost agreement. Shared by test_tool_call_corpus.py and
bench/tool_call_dialects.py.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.agent.model.text_tool_calls import parse_text_tool_calls

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "tool_call_corpus"
SOURCES = ("vllm", "sglang", "llama.cpp", "ollama")

Call = tuple[str, Any]


def load_cases() -> list[dict[str, Any]]:
    """Every case of every corpus file, each tagged with the file it came from."""
    cases: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            cases.append({**case, "file": path.name})
    return cases


def _canonical(value: Any) -> Any:
    """A value compared the way a tool would see it: `true` is not `1`, but `3` and `3.0` are one number."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", tuple(sorted((key, _canonical(item)) for key, item in value.items())))
    raise TypeError(f"not a JSON value: {value!r}")


def _key(call: Call) -> Any:
    return call[0], _canonical(call[1])


@dataclass(frozen=True)
class Outcome:
    """What our parser made of one case."""

    case: dict[str, Any]
    ours: list[Call]
    invalid: int
    wrong: list[Call] = field(default_factory=list)

    @property
    def expected(self) -> list[Call]:
        return [(call["name"], call["arguments"]) for call in self.case["expected"]]

    @property
    def agreed(self) -> bool:
        return [_key(call) for call in self.ours] == [_key(call) for call in self.expected]

    def describe(self) -> str:
        """One line a reader can act on: where the case comes from, what it expects and what we did."""
        case = self.case
        where = f"{case['source']} {case['path']}::{case['test']} ({case['file']})"
        invalid = f" + {self.invalid} invalid" if self.invalid else ""
        return f"{where}: expected {_show(self.expected)}, ours {_show(self.ours)}{invalid}"


def _show(calls: list[Call]) -> str:
    text = "[" + ", ".join(f"{name}({json.dumps(args, ensure_ascii=False)})" for name, args in calls) + "]"
    return text if len(text) <= 200 else text[:197] + "..."


def score(case: dict[str, Any]) -> Outcome:
    """Parse the case's text as the agent would (closing blocks only) and compare with the source's calls."""
    calls, _rest = parse_text_tool_calls(case["text"], case["tools"], model=case.get("model"))
    ours = [(call.name, json.loads(call.arguments)) for call in calls if not call.invalid]
    outcome = Outcome(case, ours, invalid=sum(1 for call in calls if call.invalid))
    # Multiset difference: a call the source makes once but we make twice runs once too often.
    unmatched = Counter(_key(call) for call in outcome.expected)
    for call in ours:
        if unmatched[_key(call)] > 0:
            unmatched[_key(call)] -= 1
        else:
            outcome.wrong.append(call)
    return outcome


@dataclass
class Tally:
    """Agreement and wrong executions over a group of cases."""

    total: int = 0
    agreed: int = 0
    wrong: int = 0
    disagreements: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.total += 1
        self.agreed += outcome.agreed
        self.wrong += bool(outcome.wrong)
        if not outcome.agreed:
            self.disagreements.append(outcome)

    @property
    def rate(self) -> float:
        return self.agreed / self.total if self.total else 1.0


def tally(outcomes: list[Outcome]) -> dict[tuple[str, str], Tally]:
    """Per (dialect, source); the source "all" sums a dialect's sources."""
    tallies: dict[tuple[str, str], Tally] = {}
    for outcome in outcomes:
        for source in (outcome.case["source"], "all"):
            tallies.setdefault((outcome.case["dialect"], source), Tally()).add(outcome)
    return tallies
