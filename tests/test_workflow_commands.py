"""The one helper for GitHub Actions logs: text made inert, whole or streamed, against a reading of the
runner's own rules (tests/workflow_log.py); the commands SneakyCode writes, escaped as @actions/core does."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from sneakycode.workflow_commands import InertLines, command, inert, inert_json, mask
from tests.workflow_log import workflow_commands

# The pieces a command is made of, and every line break and leading space kind the runner honours.
PIECES = st.lists(st.sampled_from(["::", ":", "#", "##", "[", "]", "add-mask", " ", "\t", "\u00a0", "\u2003",
                                   "\u2028", "\n", "\r", "\r\n", "x", "é", "%0A"]), max_size=30).map("".join)
RUNS = settings(max_examples=300, deadline=None)


@RUNS
@given(PIECES)
def test_no_line_of_inert_text_is_a_command_and_harmless_text_is_unchanged(text: str) -> None:
    """Hardening round three, class 3: whatever the text, the runner finds no command in it; text in which it
    found none comes back as it was (unless a line break the runner does not honour makes a line start)."""
    made = inert(text)
    assert workflow_commands(made) == []
    assert inert(made) == made
    if workflow_commands(text) == [] and "\u2028" not in text:  # inert also breaks lines at U+2028: a margin
        assert made == text


@RUNS
@given(PIECES, st.lists(st.integers(min_value=1, max_value=7), min_size=1, max_size=10))
def test_a_stream_cut_anywhere_is_inert_as_a_whole(text: str, cuts: list[int]) -> None:
    """Hardening round three, class 3: the agent's stderr arrives in chunks cut anywhere, a `##[` or a
    leading `::` split between two of them included; the relayed log holds no command either."""
    data = text.encode()
    written = bytearray()
    relay = InertLines(written.extend, limit=16)
    at = 0
    for size in cuts * 10:
        relay.feed(data[at:at + size])
        at += size
    relay.feed(data[at:])
    relay.close()
    assert workflow_commands(written.decode()) == []


def test_the_commands_sneakycode_writes_keep_their_values_on_one_line() -> None:
    line = command("error", "bad\r\n::add-mask::x 100%", {"file": "a:b,c.py", "title": "t\n::x"})
    assert line == "::error file=a%3Ab%2Cc.py,title=t%0A%3A%3Ax::bad%0D%0A::add-mask::x 100%25"
    assert len(workflow_commands(line)) == 1


def test_every_line_of_a_multi_line_secret_is_masked() -> None:
    assert mask("sk-one") == ["::add-mask::sk-one"]
    assert mask("-----BEGIN-----\nabc%def\n\n-----END-----\n") == [
        "::add-mask::-----BEGIN-----", "::add-mask::abc%25def", "::add-mask::-----END-----",
        "::add-mask::-----BEGIN-----%0Aabc%25def%0A%0A-----END-----%0A"]
    assert mask("") == []


@RUNS
@given(st.recursive(PIECES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(PIECES, inner, max_size=3)))
def test_json_keeps_its_value_and_starts_no_command(value: object) -> None:
    shown = inert_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(shown) == value
    assert workflow_commands(shown) == []
