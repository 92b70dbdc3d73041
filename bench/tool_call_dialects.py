"""How our text tool-call parser agrees with vLLM's, SGLang's, llama.cpp's and Ollama's, dialect by dialect.

Runs every case of tests/fixtures/tool_call_corpus/ (model replies from those projects' parser tests) through
`parse_text_tool_calls` and prints, per dialect and source, the replies where our valid calls equal the
source's (agreed/total) and the replies where we would run a call the source would not (wrong executions;
the target is zero everywhere). `--cases` also lists every disagreeing reply.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.model.tool_call_corpus import SOURCES, load_cases, score, tally


def main() -> int:
    outcomes = [score(case) for case in load_cases()]
    tallies = tally(outcomes)
    dialects = sorted({dialect for dialect, _source in tallies})
    print(f"{len(outcomes)} replies from {len({o.case['path'] for o in outcomes})} test files\n")
    print("| dialect | " + " | ".join(SOURCES) + " | all | agreement | wrong executions |")
    print("|---" * (len(SOURCES) + 4) + "|")
    for dialect in dialects:
        cells = []
        for source in SOURCES:
            cell = tallies.get((dialect, source))
            wrong = f" ({cell.wrong}!)" if cell and cell.wrong else ""
            cells.append("" if cell is None else f"{cell.agreed}/{cell.total}{wrong}")
        total = tallies[(dialect, "all")]
        summary = f"{total.agreed}/{total.total} | {total.rate:.0%} | {total.wrong}"
        print(f"| {dialect} | " + " | ".join(cells) + f" | {summary} |")
    agreed = sum(outcome.agreed for outcome in outcomes)
    wrong = sum(bool(outcome.wrong) for outcome in outcomes)
    print(f"| all | | | | | {agreed}/{len(outcomes)} | {agreed / max(len(outcomes), 1):.0%} | {wrong} |")
    print("\n(n!) after a cell: n replies there would run a call the source would not.")
    if "--cases" in sys.argv[1:]:
        print("\nDisagreeing replies:")
        for outcome in outcomes:
            if not outcome.agreed:
                print(("WRONG " if outcome.wrong else "") + outcome.describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
