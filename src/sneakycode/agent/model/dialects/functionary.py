"""Functionary v3.2: each part of the reply names its recipient, `>>>NAME\n{json}` for a call and
`>>>all\ntext` for the user. The first part may come without its `>>>` (the prompt ends with it), which is read
only for a Functionary model, since in any other reply `word\n{` is just text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect, read_json, unreadable_block, why
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments

_PART = re.compile(r">>>([A-Za-z_][\w.\-]*)\n")
_FIRST = re.compile(r"\s*(?P<name>[A-Za-z_][\w.\-]*)\n(?=\{|\s*\Z)|\s*(?P<python>python)\n")
_TEXT_PART = re.compile(r"\s*all\n")


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    parts = list(_PART.finditer(content))
    first = _FIRST.match(content) if family == "functionary_v3" else None
    heads: list[tuple[int, int, str]] = [(m.start(), m.end(), m.group(1)) for m in parts]
    group = (first.lastgroup or "name") if first else "name"
    if first and first.group(group) != "all" and (not parts or parts[0].start() > 0):
        heads.insert(0, (first.start(group), first.end(), first.group(group)))
    elif family == "functionary_v3" and (text := _TEXT_PART.match(content)):
        yield Block(0, text.end())
    for index, (start, body, name) in enumerate(heads):
        stop = heads[index + 1][0] if index + 1 < len(heads) else len(content)
        if name == "all":
            yield Block(start, stop, text=content[body:stop])
            continue
        if name == "python" and not content[body:stop].lstrip().startswith("{"):  # its code interpreter: raw code
            code = content[body:stop].strip()
            yield Block(start, stop, [call_with_arguments("python", {"code": code}, "functionary_v3", schemas)])
            continue
        try:
            arguments, end = read_json(content, body)
        except ValueError as exc:
            reason = f"the arguments of {name} are not valid JSON ({why(exc)})"
            yield unreadable_block(start, stop, reason, "functionary_v3", schemas)
            return
        yield Block(start, end, [call_with_arguments(name, arguments, "functionary_v3", schemas)])


DIALECT = Dialect(
    "functionary_v3", re.compile(r">>>[A-Za-z_][\w.\-]*\n|\A\s*[A-Za-z_][\w.\-]*\n\{|\A\s*python\n"), (), find
)
