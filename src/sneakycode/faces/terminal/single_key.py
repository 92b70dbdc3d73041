"""One key press, no Enter: how approvals are answered.

Hand-written on termios rather than a prompt_toolkit Application: an approval needs one byte, not an input
line, and raw mode (unlike cbreak) turns Ctrl-C into a byte we can read, so it works the same inside the
turn's SIGINT handler, which only sets the cancel flag and would otherwise leave the read waiting.
"""

from __future__ import annotations

import os
import sys
import termios
import tty

CTRL_C, CTRL_D, ESCAPE = "\x03", "\x04", "\x1b"


def read_key(question: str) -> str:
    """Show `question` and return the key pressed, lower-cased ("" for a key that is not one character, like
    an arrow). Ctrl-C and Esc raise KeyboardInterrupt, Ctrl-D EOFError. Without a terminal on stdin a whole
    line is read and its first character counts."""
    if not sys.stdin.isatty():
        sys.stdout.write(question)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.strip()[:1].lower()
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        # Raw first, then the question, and TCSANOW rather than setraw's default TCSAFLUSH: a key pressed as
        # soon as the question shows must not land in cooked mode (echoed, held for Enter) nor be flushed.
        tty.setraw(fd, termios.TCSANOW)
        sys.stdout.write(question)
        sys.stdout.flush()
        data = os.read(fd, 32).decode("utf-8", "replace")
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    if data in (CTRL_C, ESCAPE):
        raise KeyboardInterrupt
    if data == CTRL_D:
        raise EOFError
    # A key and Enter typed from habit can arrive together; a longer burst (a paste, an arrow key) is no answer.
    key = data.rstrip("\r\n")
    return key.lower() if len(key) == 1 and key.isprintable() else ""
