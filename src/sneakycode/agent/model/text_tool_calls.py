"""Tool calls that a model wrote into its text instead of the `tool_calls` field, in every dialect the serving
stacks parse (one parser per dialect in `dialects/`; the table is in docs/providers.md).

A marked block always means a call, so one that cannot be read comes back invalid (see `text_call_args`)
rather than lost or run with arguments missing; and because a reply is the model's one intent, a reply with an
unreadable block runs none of its calls (a call that merely names a tool we do not offer does not stop the
others, as with native calls). Unmarked JSON counts only as the whole reply (after a lead-in line for the
families whose stacks look there), a pythonic call list also after a lead-in when it names only offered tools.
Text we do not recognise stays text.

Unless `anywhere` is set, only the blocks that close the reply count: a block quoted inside prose, with more
prose after it, is an explanation, not a call; except a closed block opened by the model's own special token
(`Block.token`), which no explanation writes. Reasoning (`<think>` and its kin) is never read for calls.
"""

from __future__ import annotations

from sneakycode.agent.model.dialects import MARKERS, OPENERS, find_blocks
from sneakycode.agent.model.dialects.base import END_TOKENS, Block
from sneakycode.agent.model.dialects.pythonic import LIST_START
from sneakycode.agent.model.families import text_call_dialect_for
from sneakycode.agent.model.text_call_args import Schemas, is_unknown_tool
from sneakycode.agent.protocol import ToolCall

_JSON_OPENERS = ("{", "[{", "```json", "```\n{", "```xml")


def _closing_blocks(content: str, blocks: list[Block]) -> list[Block]:
    """The blocks that close the reply (the last one with only whitespace or end tokens after it, and those
    before it separated by whitespace alone), and every special-token block wherever it stands."""
    kept: list[Block] = []
    after = len(content)
    for block in reversed(blocks):
        gap = content[block.end : after]
        closes = END_TOKENS.fullmatch(gap) is not None if not kept else not gap.strip()
        if not closes:
            break
        kept.insert(0, block)
        after = block.start
    closing = {id(block) for block in kept}
    return [block for block in blocks if id(block) in closing or block.token]


def _unless_all_readable(blocks: list[Block]) -> list[ToolCall]:
    """The calls, or, when one of them could not be read, all of them invalid: the reply is one intent. A
    call of an `independent` block (its stacks run each call on its own) that cannot be read stops nothing."""
    calls = [call for block in blocks for call in block.calls]
    dependent = [call for block in blocks if not block.independent for call in block.calls]
    broken = next((c for c in dependent if c.invalid and not is_unknown_tool(c)), None)
    if broken is None:
        return calls
    reason = f"Another tool call in this reply could not be read, so none of them ran. {broken.invalid}"
    return [c if c.invalid else ToolCall(id=c.id, name=c.name, arguments=c.arguments, invalid=reason) for c in calls]


def parse_text_tool_calls(
    content: str, schemas: Schemas, *, anywhere: bool = False, model: str | None = None
) -> tuple[list[ToolCall], str]:
    """The tool calls written in `content` and the text left once they are removed (([], content) if none).

    `schemas` maps each offered tool to its parameters' JSON schema; `model` (its name) picks the family's
    dialect first. Calls that cannot run come back with `invalid` set. Without `anywhere`, blocks count only
    where they close the reply.
    """
    blocks = find_blocks(content, schemas, text_call_dialect_for(model))
    chosen = blocks if anywhere else _closing_blocks(content, blocks)
    calls = [call for block in chosen for call in block.calls]
    if not calls:
        return [], content
    rest: list[str] = []
    cursor = 0
    for block in chosen:
        rest.extend((content[cursor : block.start], block.text))
        cursor = block.end
    rest.append(content[cursor:])
    return _unless_all_readable(chosen), END_TOKENS.sub("", "".join(rest).strip())


def held_back_length(content: str) -> int:
    """How many trailing characters of streamed text to withhold because they may start a tool call.

    Everything from the first call marker on, a reply that opens like JSON or a pythonic call list, and a tail
    that could be the start of a marker are held back; the rest can be shown to the user as it arrives.
    """
    found = OPENERS.search(content)
    if found:
        return len(content) - found.start()
    stripped = content.lstrip()
    if any(stripped.startswith(opener) or opener.startswith(stripped) for opener in _JSON_OPENERS):
        return len(content)
    if LIST_START.match(stripped) or (stripped.startswith("[") and _could_open_call_list(stripped)):
        return len(content)
    longest = max(len(marker) for marker in MARKERS) - 1
    for size in range(min(longest, len(content)), 0, -1):
        if any(marker.startswith(content[-size:]) for marker in MARKERS):
            return size
    return 0


def _could_open_call_list(text: str) -> bool:
    """Whether `text` (starting with `[`) may still grow into `[name(`."""
    inner = text[1:].lstrip()
    return inner == "" or (inner.replace("_", "a").replace(".", "a").isalnum() and not inner[0].isdigit())
