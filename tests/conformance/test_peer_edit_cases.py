"""Our str_replace over the text-replacement cases of other agents' test suites (shared peer-cases data).

The data (171 cases from aider, gemini-cli, opencode, openhands-aci, codex and SWE-agent) lives beside the
repository in shared/, never in it. Where a case's note marks no difference we must produce the peer's
result byte for byte, and where the peer expects an error we must leave the file alone. Every case where
we knowingly differ is listed in DISAGREEMENTS with our outcome and why; a test checks that each of them
is one the data itself marks as a CONFLICT, POSSIBLE CONFLICT or POLICY case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sneakycode.tools.base import ToolContext
from tests.conformance.peer_data import load_peer_cases
from tests.conftest import call

CASES = load_peer_cases("edit-cases.json")
MARKED = ("CONFLICT", "POSSIBLE CONFLICT", "POLICY")

UNIQUE = "we require one match; the peer silently takes the first of several"
EMPTY = "an empty old_str is invalid_arguments, not 'append' or 'overwrite the file'"
STRUCTURE = "the lines' relative indentation differs from the file's; matching would change the block's structure"
INLINE_WS = (
    "whitespace differs where a word meets punctuation (`( a`, `function  oldFunc` at the old_str's start); we "
    "only fold runs of spaces between the same tokens, as a formatter aligns them"
)
FUZZY = "a typo or a different quote character; we never match by similarity"
ANCHOR = "the middle lines differ (block-anchor match); we never replace text the model did not quote"
REINDENT = "we re-indent new_str by the same shift as old_str (keeping the file's base indent and tabs)"

# label (the last part of `source`) -> (our outcome: the file text, or "ERROR: code"), why we differ
DISAGREEMENTS: dict[str, tuple[str, str]] = {
    "test_replace_multiple_matches": ("ERROR: multiple_matches", UNIQUE),
    "test_replace_multiple_matches_missing_whitespace": ("ERROR: multiple_matches", UNIQUE),
    "test_replace_part_with_missing_leading_whitespace_including_blank_line": (
        "ERROR: no_match",
        "old_str starts with a blank line the file does not have; we do not drop lines of old_str",
    ),
    "test_new_file_edit_one_commit": ("ERROR: invalid_arguments", EMPTY),
    "calculateReplacement: should perform a flexible, whitespace-insensitive replacement": (
        "ERROR: no_match",
        STRUCTURE,
    ),
    "calculateReplacement: should perform a regex-based replacement for flexible intra-line whitespace": (
        "ERROR: no_match",
        INLINE_WS,
    ),
    "calculateReplacement: should perform a fuzzy replacement when exact match fails but similarity is high": (
        "ERROR: no_match",
        FUZZY,
    ),
    "calculateReplacement: should perform multiple fuzzy replacements if multiple valid matches are found": (
        "ERROR: no_match",
        FUZZY,
    ),
    "calculateReplacement: should correctly rebase indentation in fuzzy replacement without double-indenting": (
        "ERROR: no_match",
        FUZZY,
    ),
    "calculateReplacement: should NOT insert extra newlines when replacing a block preceded by a blank line "
    "(regression)": ("ERROR: no_match", INLINE_WS),
    "calculateReplacement: should NOT insert extra newlines in flexible replacement when old_string starts with a "
    "blank line (regression)": (
        "  // some comment\n\n    function newFunc() {}",
        "new_str is 2 columns deeper than old_str, so it lands 2 columns deeper than the matched line; the peer "
        "inserts it as given",
    ),
    "execute: should return error if expected_replacements does not match actual occurrences": (
        "new text new text",
        "the peer's expected_replacements=3 has no counterpart; with replace_all=true we replace both occurrences "
        "(the only case where we edit and the peer errors)",
    ),
    "ensureCorrectEdit Test 7.2: should handle trailing newlines separated by spaces (regression fix)": (
        "replaced \n \n",
        "old_str matches exactly, so new_str goes in exactly as sent; the peer trims both first",
    ),
    "EditTool Replacers > case 4": ("ERROR: no_match", STRUCTURE),
    "EditTool Replacers > case 5": ("ERROR: no_match", ANCHOR),
    "EditTool Replacers > case 6": ("ERROR: no_match", ANCHOR),
    "EditTool Replacers > case 7": ('function test() {\n\tconsole.log("world");\n}', REINDENT),
    "EditTool Replacers > case 10": (
        '    function nested() {\n      console.log("updated");\n      return false;\n    }',
        REINDENT,
    ),
    "EditTool Replacers > case 11": ("ERROR: no_match", STRUCTURE),
    "EditTool Replacers > case 16": ("ERROR: invalid_arguments", EMPTY),
    "EditTool Replacers > case 25": ("  function test() {\n    return false;\n  }", REINDENT),
    "EditTool Replacers > case 27": ("\n  if (condition) {\n    doNothing();\n  }\n", REINDENT),
    "EditTool Replacers > case 28": ("ERROR: no_match", ANCHOR),
    "EditTool Replacers > case 29": ("ERROR: no_match", ANCHOR),
    "EditTool Replacers > case 31": ("ERROR: no_match", STRUCTURE),
    "EditTool Replacers > case 37": ("ERROR: no_match", ANCHOR),
    "EditTool Replacers > case 38": ("ERROR: no_match", ANCHOR),
    "tool.edit > creating new files > preserves BOM when oldString is empty on existing files": (
        "ERROR: invalid_arguments",
        EMPTY,
    ),
    "test_apply_patch_cli_updates_file_appends_trailing_newline": (
        "first line\nsecond line",
        "a file without a final newline keeps it that way; the peer always adds one",
    ),
    "test_apply_patch_cli_uses_crlf_for_new_trailing_newline": (
        "ONE\r\ntwo",
        "a file without a final newline keeps it that way; the peer always adds one",
    ),
    "tests::test_trim_match_ignores_leading_and_trailing_whitespace": ("ERROR: no_match", STRUCTURE),
}


def label(case: dict[str, Any]) -> str:
    return str(case["source"]).split(":", 2)[-1].strip()


def test_labels_are_unique_and_every_disagreement_is_a_marked_case() -> None:
    by_label = {label(case): case for case in CASES}
    assert len(by_label) == len(CASES)
    for name in DISAGREEMENTS:
        assert name in by_label, name
        assert by_label[name]["note"].startswith(MARKED), f"{name} is not marked as a known difference"


@pytest.mark.parametrize("case", CASES, ids=[f"{i:03d}" for i in range(len(CASES))])
def test_peer_case(ctx: ToolContext, ws: Path, case: dict[str, Any]) -> None:
    raw = case["file"].encode("utf-8")
    (ws / "f.txt").write_bytes(raw)
    assert call(ctx, "read_file", file_path="f.txt").success
    result = call(
        ctx, "str_replace", file_path="f.txt", old_str=case["old"], new_str=case["new"],
        replace_all=case["replace_all"],
    )
    expected, _ = DISAGREEMENTS.get(label(case), (case["peer_expects"], ""))
    if expected.startswith("ERROR"):
        assert not result.success, f"edited although the expected outcome is an error:\n{result.render()}"
        if ":" in expected:
            assert result.code == expected.split(": ", 1)[1]
        assert (ws / "f.txt").read_bytes() == raw
    else:
        assert result.success, result.render()
        assert (ws / "f.txt").read_bytes().decode("utf-8") == expected
