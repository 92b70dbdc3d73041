"""gpt-oss Harmony: the reply is a run of messages, `<|channel|>CHANNEL [to=RECIPIENT] [<|constrain|>json]
<|message|>BODY`, each ended by `<|end|>`, `<|call|>` or `<|return|>`. A message may open with
`<|start|>assistant`, and the recipient may sit there instead (or open the reply, when the prompt ended with
the role). A message to `functions.NAME` is a call with a JSON body; `analysis` is reasoning and is dropped
from the text; `final` (and a `commentary` preamble with no recipient) is what the user reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect, read_json, skip_space, why
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments, invalid_call
from sneakycode.agent.protocol import ToolCall

HEADER = re.compile(
    r"(?:<\|start\|>(?P<role>[^<]*)|(?P<lead>\A\s*to=[^<\s]+\s*))?<\|channel\|>(?P<channel>[^<]*?)(?:<\|constrain\|>(?P<constrain>[^<]*))?"
    r"<\|message\|>"
)
_END = re.compile(r"<\|end\|>|<\|call\|>|<\|return\|>|(?=<\|start\|>)|(?=<\|channel\|>)")
_RECIPIENT = re.compile(r"\bto=(\S+)")


def _call(recipient: str, body: str, schemas: Schemas) -> ToolCall:
    name = recipient.removeprefix("functions.")
    if not body.strip():
        return call_with_arguments(name, {}, "harmony", schemas)
    try:
        value, end = read_json(body, skip_space(body, 0))
    except ValueError as exc:
        return invalid_call(f"the arguments of {name} are not valid JSON ({why(exc)})", "harmony", schemas, name)
    if body[end:].strip():
        return invalid_call(f"the arguments of {name} are followed by stray text", "harmony", schemas, name)
    return call_with_arguments(name, value, "harmony", schemas)


def _json_end(body: str) -> int | None:
    try:
        return read_json(body, skip_space(body, 0))[1]
    except ValueError:
        return None


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    first = HEADER.search(content)
    if first is None:
        return
    calls: list[ToolCall] = []
    shown: list[str] = []
    position = first.start()
    end = position
    while (header := HEADER.match(content, position)) is not None:
        closing = _END.search(content, header.end())
        body = content[header.end() : len(content) if closing is None else closing.start()]
        end = len(content) if closing is None else closing.end()
        # The recipient sits in the role part, in the channel part, or (when the prompt ended with the role)
        # at the very start of the reply.
        role = header.group("role") or header.group("lead") or ""
        recipient = _RECIPIENT.search(f"{role} {header.group('channel')}")
        channel = header.group("channel").split()[0] if header.group("channel").split() else ""
        if recipient and closing is None:
            json_end = _json_end(body)
            if json_end is not None and body[json_end:].strip():
                # An unclosed message whose JSON runs on into prose: markup quoted in an explanation, and the
                # block ends with the JSON so the prose after it keeps it from counting.
                end = header.end() + json_end
                body = body[:json_end]
        if recipient:
            calls.append(_call(recipient.group(1), body, schemas))
        elif channel != "analysis":
            shown.append(body.strip())
        position = skip_space(content, end)
    yield Block(first.start(), end, calls, text="\n\n".join(part for part in shown if part))


DIALECT = Dialect("harmony", re.compile(r"<\|channel\|>"), ("<|channel|>", "<|start|>"), find)
