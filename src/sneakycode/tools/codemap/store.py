"""The tags of source files by their content, shared by every session, batch task and eval task of a machine
(`repo_map.index_dir`, by default `codemap/` in the state folder).

The key is the file's language and git's id of its bytes (a SHA-1 of them; for a tracked file git says is
unchanged, the id git lists, so nothing is read), never its path or time: a second session, a batch task's
worktree or an eval's copy of the same repository finds the tags a first one parsed, wherever the copy lies
and whenever it was checked out. The key is computed from the very bytes that were parsed (a file that
changes between the lookup and the parse is stored under its new content). The store holds no paths, so what
a deny rule hides is never in a map: the index asks for a file's tags only after the rules let it through.

SQLite (the standard library's) because it is what several processes can write at once with each write
atomic; rows are validated as they are read (a row that is not tags is dropped), a database that cannot be
opened or read is deleted and made again (the store is only an optimisation: it never ends a build), and the
least recently used rows beyond MAX_ROWS are dropped so the file stays bounded (about 1 kB a row).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from sneakycode.tools.codemap.tags import Definition, FileTags

STORE_NAME = "tags.sqlite3"
MAX_ROWS = 100_000  # about 100 MB: the source files of several large repositories
_FORMAT = 1  # bumped with index.py's: when the tags a query yields change, old rows are not trusted
_LOOKUP_CHUNK = 500  # keys per query (SQLite's limit on parameters is 32,766 since 3.32, 999 before)
_BUSY_MS = 2_000  # another process writing: wait this long, then go on without the store


def content_key(language: str, data: bytes) -> bytes:
    """The key of a file's tags: its language and git's id of its bytes (so a tracked file git says is unchanged
    needs no reading: `blob_key` of the id git lists)."""
    return blob_key(language, hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest())


def blob_key(language: str, blob: str) -> bytes:
    """The key of the tags of a file in `language` whose git blob id is `blob`."""
    return f"{language}:{blob}".encode()


class TagStore:
    """The store in `folder`; every method answers as if it were empty (and writes nothing) once the database
    cannot be used even after it was made again."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / STORE_NAME
        self._lock = threading.Lock()  # one connection per store, used by one thread at a time
        self._db: sqlite3.Connection | None = None
        self._broken = False

    def lookup(self, keys: Iterable[bytes]) -> dict[bytes, FileTags]:
        """The stored tags of those keys that are stored (and valid); their rows count as just used."""
        wanted = list(dict.fromkeys(keys))
        found: dict[bytes, FileTags] = {}
        bad: list[bytes] = []

        def read(db: sqlite3.Connection) -> None:
            for start in range(0, len(wanted), _LOOKUP_CHUNK):
                chunk = wanted[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, raw in db.execute(f"SELECT key, tags FROM tags WHERE key IN ({marks})", chunk):
                    tags = _validated(raw)
                    if tags is None:
                        bad.append(key)
                    else:
                        found[key] = tags
            with db:
                now = int(time.time())
                db.executemany("UPDATE tags SET used = ? WHERE key = ?", [(now, key) for key in found])
                db.executemany("DELETE FROM tags WHERE key = ?", [(key,) for key in bad])

        if wanted:
            self._use(read)
        return found

    def save(self, tags: Mapping[bytes, FileTags]) -> None:
        """Store these tags; past MAX_ROWS the least recently used rows go."""
        if not tags:
            return

        def write(db: sqlite3.Connection) -> None:
            now = int(time.time())
            rows = [(key, json.dumps(value.to_json(), separators=(",", ":")), now) for key, value in tags.items()]
            with db:
                db.executemany("INSERT OR REPLACE INTO tags (key, tags, used) VALUES (?, ?, ?)", rows)
                (count,) = db.execute("SELECT count(*) FROM tags").fetchone()
                if count > MAX_ROWS:
                    db.execute("DELETE FROM tags WHERE key IN (SELECT key FROM tags ORDER BY used LIMIT ?)",
                               (count - MAX_ROWS,))

        self._use(write)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _use(self, work: Callable[[sqlite3.Connection], None]) -> None:
        """Run `work(db)`; a database that fails is made again once, then left alone for this process."""
        with self._lock:
            for attempt in range(2):
                if self._broken:
                    return
                try:
                    work(self._connect())
                    return
                except sqlite3.OperationalError as exc:
                    if "locked" in str(exc) or "busy" in str(exc):
                        return  # another process holds it longer than _BUSY_MS: this time without it
                    self._reset(final=attempt == 1)
                except (sqlite3.Error, OSError):  # corrupt, not a database, a folder that cannot take it
                    self._reset(final=attempt == 1)

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            db = sqlite3.connect(self.path, timeout=_BUSY_MS / 1000, check_same_thread=False)
            try:
                db.execute("PRAGMA journal_mode=WAL")  # readers and one writer at once, across processes
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version not in (0, _FORMAT):
                    db.execute("DROP TABLE IF EXISTS tags")
                db.execute("CREATE TABLE IF NOT EXISTS tags (key BLOB PRIMARY KEY, tags TEXT NOT NULL, "
                           "used INTEGER NOT NULL)")
                db.execute(f"PRAGMA user_version = {_FORMAT}")
                db.execute("CREATE INDEX IF NOT EXISTS tags_used ON tags (used)")
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    def _reset(self, *, final: bool) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        if final:
            self._broken = True
            return
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")


def _validated(raw: object) -> FileTags | None:
    """The tags a row holds, or None for a row that is not tags (written by something else, cut)."""
    try:
        defs, refs = json.loads(raw) if isinstance(raw, str) else (None, None)
        if not isinstance(defs, list) or not isinstance(refs, dict):
            return None
        definitions = []
        for name, line, signature in defs:
            if not (isinstance(name, str) and type(line) is int and isinstance(signature, str)):
                return None
            definitions.append(Definition(name, line, signature))
        if not all(type(count) is int for count in refs.values()):  # JSON's keys are always strings
            return None
    except (ValueError, TypeError):
        return None
    return FileTags(tuple(definitions), refs)


_KEPT_OPEN = 4  # stores with an open connection at once: a process making many isolated sessions (each its
# own temporary state folder) would otherwise keep a connection, and three descriptors, for each of them
_stores: OrderedDict[Path, TagStore] = OrderedDict()
_stores_lock = threading.Lock()


def store_in(folder: Path) -> TagStore:
    """The process's store in `folder` (one connection per folder, the least recently used closed; a closed
    store opens again when used)."""
    with _stores_lock:
        store = _stores.get(folder)
        if store is None:
            store = _stores[folder] = TagStore(folder)
            while len(_stores) > _KEPT_OPEN:
                _stores.popitem(last=False)[1].close()
        _stores.move_to_end(folder)
        return store
