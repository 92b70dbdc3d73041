"""The editor's files, when the client offers `fs/read_text_file` and `fs/write_text_file`.

Reads: the workspace asks `text_of` for a file's text before the model sees it (Workspace.editor_text), so
read_file, the edit tools' fresh-read check and the diff shown before approval all see the editor's buffer,
unsaved changes included. The path was resolved and checked by the workspace first (containment, hidden
paths, size), so the client is only ever asked about files the model may read.

Writes: an edit is written by the workspace's own anchored writer (atomic, never through a link, recorded in
the undo journal and the checkpoints, the read ledger updated) and then handed to the editor with
`fs/write_text_file`, byte for byte the text now on disk, so its buffer shows the edit (and its own undo
can take it back). The client's write cannot give those guarantees itself (we cannot know whether it follows
links, when it lands, or how it encodes), which is why it is the copy, not the original. If the client
writes something else (another newline or encoding), the disk no longer matches the read ledger, and the next
edit reports a stale read instead of overwriting it: the same check as for any outside change.

Both only together: with reads alone, a buffer the client does not update after our write would show the
model its pre-edit text.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from acp.interfaces import Client

from sneakycode.api.editor import written_text

if TYPE_CHECKING:
    from sneakycode.api.session import Session

ASK_SECONDS = 10.0  # a client that does not answer a read or write in time: the disk is used


class EditorFiles:
    def __init__(self, client: Client, loop: asyncio.AbstractEventLoop, session_id: str) -> None:
        self.client = client
        self.loop = loop
        self.session_id = session_id
        self.loop_thread = threading.get_ident()  # made on the loop: a call from it could not wait for the client
        self.reads = 0
        self.writes = 0

    def text_of(self, real: Path) -> str | None:
        """The editor's text of `real`, or None (read the disk) when the client cannot say in time."""
        if threading.get_ident() == self.loop_thread:
            return None
        request = self.client.read_text_file(session_id=self.session_id, path=str(real))
        try:
            answer = asyncio.run_coroutine_threadsafe(request, self.loop).result(timeout=ASK_SECONDS)
        except Exception:  # an error answer, a timeout or a vanished client: the disk is the truth
            return None
        self.reads += 1
        return str(answer.content)

    def show_written(self, session: Session, user_path: str) -> None:
        """Hand the editor the file as it is now on disk, after our write. Only UTF-8 files without a BOM are
        handed over (their text is their bytes); the editor reloads any other from the disk itself."""
        written = written_text(session, user_path)
        if written is None:
            return
        real, text = written
        request = self.client.write_text_file(session_id=self.session_id, path=str(real), content=text)
        try:
            asyncio.run_coroutine_threadsafe(request, self.loop).result(timeout=ASK_SECONDS)
        except Exception:  # the edit is on disk either way; the editor will see it there
            return
        self.writes += 1
