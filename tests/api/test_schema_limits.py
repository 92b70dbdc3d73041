"""Hardening round three, class 5: every keyword through which jsonschema runs a schema's regular expression on
the answer (`pattern`, `patternProperties`, and `additionalProperties` / `unevaluatedProperties`, which consult
`patternProperties`) runs it on RE2, in every draft the schema may name; so a backtracking pattern is checked
at once, and a jsonschema upgrade that moves its regex use elsewhere fails here rather than in a user's run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sneakycode.api.structured import load_output_schema

EVIL = "^(a+)+$"
SLOW = "a" * 40 + "!"  # ~2**40 steps for a backtracking engine
DRAFTS = ["https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
          "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#"]


REGEX_CASES = [  # keywords, answer, valid
    ({"properties": {"k": {"pattern": EVIL}}}, {"k": SLOW}, False),
    ({"properties": {"k": {"pattern": EVIL}}}, {"k": "aaa"}, True),
    ({"patternProperties": {EVIL: {"type": "string"}}}, {SLOW: 1}, True),
    ({"patternProperties": {EVIL: {"type": "string"}}}, {"aaa": 1}, False),
    ({"patternProperties": {EVIL: {}}, "additionalProperties": False}, {SLOW: 1}, False),
    ({"patternProperties": {EVIL: {}}, "additionalProperties": False}, {"aaa": 1}, True),
    ({"patternProperties": {EVIL: {}}, "unevaluatedProperties": False}, {SLOW: 1}, False),
]
# unevaluatedProperties came with draft 2019-09: the older drafts are not asked about it.
DRAFT_CASES = [(draft, *case) for draft in DRAFTS for case in REGEX_CASES
               if "unevaluatedProperties" not in case[0] or "draft-0" not in draft]


@pytest.mark.parametrize(("draft", "keywords", "answer", "valid"), DRAFT_CASES)
def test_every_regex_keyword_runs_in_linear_time(draft: str, keywords: dict[str, Any], answer: dict[str, Any],
                                                 valid: bool) -> None:
    schema = load_output_schema({"$schema": draft, "type": "object", **keywords})
    value, problems = schema.check(json.dumps(answer))
    assert (not problems) is valid, problems
    assert (value == answer) is valid
