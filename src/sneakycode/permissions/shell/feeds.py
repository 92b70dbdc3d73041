"""What a command reads on its standard input, as far as the line shows it.

A heredoc or herestring is visible; so is the output of `echo`, `printf` or `cat` (of a heredoc) piped into
it, when their words are literal: `printf 'rm -rf x\\n' | sh` runs `rm -rf x`, and deny rules must see that.
Anything else (`curl x | sh`, `base64 -d | sh`, `sh < file`, `{ ...; } | sh`) is only a description of where
the text comes from: what a shell runs from there cannot be seen.
"""

from __future__ import annotations

import re
import shlex

from sneakycode.permissions.shell.syntax import SimpleCommand, quoted
from sneakycode.permissions.shell.words import Word, decode_escapes
from sneakycode.permissions.shell.wrapped import Stdin, command_name, joined

ECHO_FLAGS = re.compile(r"-[neE]+")
DIRECTIVE = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d*)?([diouxXfFeEgGaAcsbq]))")
MAX_ROUNDS = 64


def feed_of(command: SimpleCommand) -> Stdin:
    """What `command` reads on standard input (a redirect wins over a pipe, as in bash)."""
    if command.stdin is not None:
        return Stdin(command.stdin, "its heredoc")
    redirect = command.stdin_redirect
    if redirect is not None:
        if redirect.target is not None and redirect.target.literal and redirect.target.value == "/dev/null":
            return Stdin(Word.plain(""), "/dev/null")
        return Stdin(None, quoted(redirect.source))
    if not command.piped:
        return Stdin()
    if command.upstream is None:
        return Stdin(None, "the pipe that feeds it")
    text = printed(command.upstream, 0)
    origin = f"the output of {quoted(command.upstream.source)}"
    return Stdin(text, origin)


def printed(command: SimpleCommand, depth: int) -> Word | None:
    """The text `echo`, `printf` or `cat` print, when the line shows it (not literal when words are only
    known at run time: their values would become code); None for any other command."""
    core = command.core
    if not core or not core[0].literal or depth > 8:
        return None
    name = command_name(core[0])
    args = core[1:]
    if name == "echo":
        flags = ""
        while args and args[0].literal and ECHO_FLAGS.fullmatch(args[0].value):
            flags += args[0].value[1:]
            args = args[1:]
        text = joined(args) if args else Word.plain("")
        ending = "" if "n" in flags else "\n"
        value = text.value + ending
        if "\\" in value:
            value = f"{value}\n{decode_escapes(value)}"
        return Word(value, text.literal, text.prefix + ending if text.literal else text.prefix, text.source)
    if name == "printf":
        if args and args[0].literal and args[0].value == "--":
            args = args[1:]
        if not args or (args[0].literal and args[0].value == "-v"):
            return Word.plain("")
        if not all(arg.literal for arg in args):
            return joined(args)
        rendered = render_printf(args[0].value, [arg.value for arg in args[1:]])
        return None if rendered is None else Word.plain(rendered)
    if name == "cat" and all(arg.literal and arg.value == "-" for arg in args):
        if command.stdin is not None:
            return command.stdin
        if command.piped and command.upstream is not None:
            return printed(command.upstream, depth + 1)
    return None


def render_printf(form: str, args: list[str]) -> str | None:
    """What bash's `printf FORMAT ARGS...` prints (the format is reused while arguments remain); None for
    a format this does not follow (`%*d`, `%(...)T`)."""
    if form.count("%") != sum(match.group(0).count("%") for match in DIRECTIVE.finditer(form)):
        return None
    out: list[str] = []
    remaining = list(args)
    for _ in range(MAX_ROUNDS):
        consumed = False
        cursor = 0
        for match in DIRECTIVE.finditer(form):
            out.append(decode_escapes(form[cursor : match.start()]))
            cursor = match.end()
            conversion = match.group(1)
            if conversion is None:
                out.append("%")
                continue
            value = remaining.pop(0) if remaining else ""
            consumed = True
            if conversion in "bq":
                value = decode_escapes(value) if conversion == "b" else shlex.quote(value)
            out.append(value)
        out.append(decode_escapes(form[cursor:]))
        if not consumed or not remaining:
            break
    return "".join(out)
