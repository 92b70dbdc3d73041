"""GitHub Actions workflow commands: the ones SneakyCode writes, escaped, and any other text made unable to
start one. A leaf module (like version.py) so the review library and every face use the same rules.

How the runner reads a step's output (actions/runner, ActionCommand.cs): stdout and stderr are split into
lines at CR, LF and CRLF; a line is a command when, after its leading whitespace is trimmed, it starts with
`::` (`::add-mask::x`, `::stop-commands::t`, `::t::` to resume), or when it holds `##[` anywhere (the older
form, `##[add-mask]x`, still parsed). Command names are not case-sensitive. So text from a model or a
repository is made inert line by line: a `::` that would open a line and every `##[` are written out with
a `\\x` escape, the way `faces/shared/text.printable` writes out control characters. A command SneakyCode writes
itself escapes its values by GitHub's own rules (`%`, CR, LF; also `:` and `,` in a property), as
@actions/core does, so a value can never end the line early.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Mapping

# What .NET's String.TrimStart() drops: `\s` (str.isspace(), a superset of .NET's char.IsWhiteSpace), and a
# few format characters older Unicode versions counted as spaces. Trimming more than the runner does only
# neutralises more lines, never fewer.
_LEADING = re.compile("[\\s\u180e\u200b\ufeff]*")
OPENER = "::"
LEGACY_OPENER = "##["
_INERT_OPENER = "\\x3a"  # the first colon written out: `\x3a:add-mask::x` is shown, never obeyed
_INERT_LEGACY = "#\\x23["  # cannot form `##[` again: what follows each `#` is never `#[`
_JSON_LEGACY = "#\\u0023["


def escape_data(text: str) -> str:
    """A command's message: `%`, CR and LF percent-encoded, as the runner decodes them."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value: also `:` and `,`, which would end the value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, str] | None = None) -> str:
    """One workflow command line (no newline): `::name key=value,...::message`, every value escaped."""
    shown = ",".join(f"{key}={escape_property(value)}" for key, value in (properties or {}).items())
    return f"{OPENER}{name}{' ' + shown if shown else ''}{OPENER}{escape_data(message)}"


def mask(secret: str) -> list[str]:
    """`::add-mask::` lines for a secret: one for each of its lines (the runner masks what one log line
    holds, so a multi-line secret's whole value alone would never match), and the whole value."""
    values = [line.strip() for line in secret.splitlines() if line.strip()]
    if len(values) > 1:
        values.append(secret)
    return [command("add-mask", value) for value in values]


def inert(text: str) -> str:
    """`text` with no line able to start a workflow command: every line (split at every line break
    str.splitlines knows, a superset of CR, LF and CRLF) that opens with `::` after its leading whitespace,
    and every `##[`, written out with an escape. The first line counts as a line start too, since a writer
    cannot know what the stream held before it."""
    lines = text.splitlines(keepends=True)
    return "".join(_inert_line(line) for line in lines)


def inert_json(text: str) -> str:
    """JSON text (json.dumps) made unable to start a workflow command with the same value when parsed: its
    lines never open with `::` (a string holds no raw line break), but a string may hold `##[`, so its
    second `#` is written as the JSON escape `\\u0023`. `##[` can only stand inside a string, and never
    right after an escaping backslash (JSON has no `\\#`), so the value read back is unchanged."""
    return text.replace(LEGACY_OPENER, _JSON_LEGACY)


def _inert_line(line: str) -> str:
    line = line.replace(LEGACY_OPENER, _INERT_LEGACY)
    lead = _LEADING.match(line)
    start = lead.end() if lead else 0
    if not line.startswith(OPENER, start):
        return line
    return line[:start] + _INERT_OPENER + line[start + 1:]


class InertLines:
    """A byte stream on its way to a job's log (a child's stderr), made inert line by line: each complete
    line passes through `inert` as it comes. A line is held until its break arrives, so a `##[` or a leading
    `::` split across two reads is still seen whole; one longer than `limit` characters is broken there
    instead (its rest then starts a line of its own, checked like any other). Bytes that are not UTF-8 pass
    through unchanged (surrogateescape); a character split across two reads waits in the decoder."""

    def __init__(self, write: Callable[[bytes], None], limit: int = 1 << 16) -> None:
        self._write = write
        self._limit = limit
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self._pending = ""

    def feed(self, chunk: bytes) -> None:
        self._pending += self._decoder.decode(chunk)
        end = max(self._pending.rfind("\n"), self._pending.rfind("\r")) + 1
        if not end and len(self._pending) > self._limit:
            self._pending += "\n"
            end = len(self._pending)
        if end:
            self._emit(self._pending[:end])
            self._pending = self._pending[end:]

    def close(self) -> None:
        """The stream ended: its last line, even without a break."""
        self._pending += self._decoder.decode(b"", final=True)
        if self._pending:
            self._emit(self._pending)
            self._pending = ""

    def _emit(self, text: str) -> None:
        self._write(inert(text).encode("utf-8", "surrogateescape"))
