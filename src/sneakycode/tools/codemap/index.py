"""The tags of every source file of a workspace, kept up to date by mtime and size.

The files are those of files.py (what git lists, or the search's walk without vendored trees; links not
followed; at most MAX_SOURCE_FILES), less those a deny rule hides from the read tools and those over the size
limit, which are never opened. A file whose mtime and size are what the index saw keeps its tags; any other is
parsed again. The index lives in memory for the process and in an append-only log in the session folder
(`codemap.jsonl`, one line per parsed file, later lines winning), so an update writes only what changed and a
resumed session, or another process of it, starts warm; a new session starts from the newest log of another
session of the same workspace. The log is rewritten whole when it holds more stale lines than live ones.

Before a new or changed file is parsed, the store shared by all sessions (store.py: tags by content) is asked
for it: another session, a batch task's worktree or an eval's copy of the same content parsed it already.
What is parsed goes into that store too.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.tools.codemap.files import MAX_SOURCE_FILES, source_candidates
from sneakycode.tools.codemap.graph import ReferenceGraph
from sneakycode.tools.codemap.parse import parse_files
from sneakycode.tools.codemap.store import TagStore, blob_key, content_key, store_in
from sneakycode.tools.codemap.tags import FileTags, has_tags
from sneakycode.tools.diagnostics.languages import EXTENSIONS

CACHE_NAME = "codemap.jsonl"
_LOOKUP_BATCH = 500  # keys asked of the shared store at once
_SEED_SESSIONS = 20  # the newest other session folders looked at for a log to start from
_FORMAT = 1  # bumped when the tags a query yields change, so an old log is not trusted


@dataclass
class Entry:
    mtime_ns: int
    size: int
    language: str
    tags: FileTags


@dataclass
class Refresh:
    """What one refresh did: files in the index, parsed now, dropped, too large to parse, left for later."""

    files: int = 0
    parsed: int = 0
    removed: int = 0
    oversized: list[str] = field(default_factory=list)
    pending: int = 0  # new or changed files left for the next refresh: its deadline came first
    reused: int = 0  # new or changed files whose tags the shared store had (parsed by another session)
    walk_cut: bool = False  # the deadline came before the walk of the tree ended
    capped: int = 0  # the cap (MAX_SOURCE_FILES) when there were more source files: the rest are left out
    changed_paths: set[str] = field(default_factory=set)

    @property
    def changed(self) -> bool:
        return bool(self.parsed or self.reused or self.removed)


class TagIndex:
    """The tags of the workspace's source files; `refresh` brings them up to date."""

    def __init__(self, root: Path, cache_dir: Path | None, store: TagStore | None = None) -> None:
        self.root = root
        self.store = store
        self.cache = cache_dir / CACHE_NAME if cache_dir is not None else None
        self.entries: dict[str, Entry] = {}
        self._log_lines = 0
        self._seeded = False  # loaded from another session's log: the first save writes this session's whole
        self._unsaved: dict[str, Entry] = {}  # refreshed, not yet in the log (refresh without `save`)
        self._unsaved_removed = False
        self.lock = threading.Lock()  # held while refreshing, and while ranking from the graph below
        # Kept with the index (rank.py): the reference graph, and the last file ranks the next ranking starts from.
        self.graph = ReferenceGraph()
        self.ranks: dict[str, float] | None = None
        self._load()

    def refresh(
        self, hidden: Callable[[str], str | None], max_file_bytes: int, deadline: float | None = None,
        stop: threading.Event | None = None, save: bool = True,
    ) -> Refresh:
        """Walk the workspace, parse what is new or changed, drop what is gone (or now ignored, hidden, too
        large). Past `deadline` (time.monotonic()), or once `stop` is set, nothing more is parsed: those files
        wait for the next refresh (a changed one keeps its old tags meanwhile), counted in `pending`. Smaller
        files are parsed first. Without `save`, the session's log is written at the next `flush` (a background
        build writes it once the first request has its map)."""
        report = Refresh()
        seen: set[str] = set()
        wanted: list[tuple[int, str, str, str, os.stat_result]] = []
        blobs: dict[str, str] = {}  # path -> git's id of its content, where git vouches for it
        for candidate in source_candidates(self.root, lambda name: _language(name) is not None):
            if _past(deadline, stop):
                report.walk_cut = True  # a huge tree (a home folder): what was not reached stays as it was
                break
            path = candidate.path
            if hidden(path) is not None:
                continue
            try:
                info = os.lstat(candidate.real)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):  # links are not followed, a submodule is not a file
                continue
            if info.st_size > max_file_bytes:
                report.oversized.append(path)
                continue
            if len(seen) >= MAX_SOURCE_FILES:
                report.capped = MAX_SOURCE_FILES
                break
            seen.add(path)
            language = _language(path.rsplit("/", 1)[-1])
            assert language is not None  # source_candidates yields only names it knows
            known = self.entries.get(path)
            if not (known and known.mtime_ns == info.st_mtime_ns and known.size == info.st_size):
                wanted.append((info.st_size, path, candidate.real, language, info))
                if candidate.blob is not None:
                    blobs[path] = candidate.blob
        fresh: dict[str, Entry] = {}
        wanted.sort()
        reused = self._reuse(wanted, blobs, max_file_bytes, deadline, stop)
        for number, tags in reused.items():
            _, path, _, language, info = wanted[number]
            fresh[path] = self.entries[path] = Entry(info.st_mtime_ns, info.st_size, language, tags)
        report.reused = len(reused)
        wanted = [job for number, job in enumerate(wanted) if number not in reused]
        parsed = parse_files([(real, language, size) for size, _, real, language, _ in wanted], max_file_bytes,
                             deadline, stop)
        report.pending = len(wanted) - len(parsed)
        shared: dict[bytes, FileTags] = {}
        for number, done in parsed.items():
            if done is not None:
                key, tags = done
                _, path, _, language, info = wanted[number]
                fresh[path] = self.entries[path] = Entry(info.st_mtime_ns, info.st_size, language, tags)
                shared[key] = tags
        if self.store is not None:
            self.store.save(shared)
        gone = [] if report.walk_cut else [path for path in self.entries if path not in seen]
        for path in gone:
            del self.entries[path]
        report.files, report.parsed, report.removed = len(self.entries), len(fresh) - len(reused), len(gone)
        report.changed_paths = {*fresh, *gone}
        self._unsaved.update(fresh)
        self._unsaved_removed = self._unsaved_removed or bool(gone)
        if save:
            self.flush()
        return report

    def flush(self) -> None:
        """Write what refreshes found since the last write to the session's log."""
        fresh = {path: self.entries[path] for path in self._unsaved if path in self.entries}
        removed = self._unsaved_removed or len(fresh) < len(self._unsaved)
        self._unsaved, self._unsaved_removed = {}, False
        self._save(fresh, removed)

    def _reuse(self, wanted: list[tuple[int, str, str, str, os.stat_result]], blobs: dict[str, str],
               max_file_bytes: int, deadline: float | None, stop: threading.Event | None) -> dict[int, FileTags]:
        """The tags the shared store has of the wanted files, by their number, all asked for in one lookup:
        by the blob id git lists for a file it vouches for, else by the hash of the file read here."""
        if self.store is None or not wanted:
            return {}
        keys: dict[int, bytes] = {}
        for number, (_, path, real, language, _) in enumerate(wanted):
            if path in blobs:
                keys[number] = blob_key(language, blobs[path])
                continue
            if _past(deadline, stop):
                break
            try:
                keys[number] = content_key(language, read_regular(real, max_file_bytes, follow_symlinks=False))
            except (OSError, NotRegularFile, OverLimit):
                continue  # the parse will say so too
        found: dict[bytes, FileTags] = {}
        ordered = list(keys.values())
        for start in range(0, len(ordered), _LOOKUP_BATCH):  # a deadline or a stop is honoured between batches
            if start and _past(deadline, stop):
                break
            found.update(self.store.lookup(ordered[start : start + _LOOKUP_BATCH]))
        return {number: found[key] for number, key in keys.items() if key in found}

    def _load(self) -> None:
        if self.cache is None:
            return
        if self.cache.exists():
            self._read(self.cache)
            return
        # A new session starts from the newest log another session of this workspace left (same state folder;
        # folder names sort by start time), then keeps its own.
        try:
            others = sorted((p for p in self.cache.parent.parent.iterdir() if p != self.cache.parent), reverse=True)
        except OSError:
            return
        for folder in others[:_SEED_SESSIONS]:
            if (folder / CACHE_NAME).is_file() and self._read(folder / CACHE_NAME):
                self._seeded = True
                return

    def _read(self, path: Path) -> bool:
        """Load the log at `path`; False (and nothing loaded) when it is of another root or cannot be used."""
        try:
            with path.open(encoding="utf-8") as log:
                header = json.loads(log.readline() or "null")
                if header != {"format": _FORMAT, "root": str(self.root)}:
                    return False
                for line in log:
                    self._log_lines += 1
                    name, mtime_ns, size, language, raw = json.loads(line)
                    self.entries[name] = Entry(mtime_ns, size, language, FileTags.from_json(raw))
        except (OSError, ValueError, TypeError):  # a cut or foreign log: start cold
            self.entries.clear()
            self._log_lines = 0
            return False
        return True

    def _save(self, fresh: dict[str, Entry], removed: bool) -> None:
        if self.cache is None or not (fresh or removed or self._seeded):
            return
        whole = self._seeded or self._log_lines + len(fresh) > 2 * len(self.entries) + 16
        self._seeded = False
        written = self.entries if whole else fresh
        lines = [json.dumps([p, e.mtime_ns, e.size, e.language, e.tags.to_json()]) + "\n" for p, e in written.items()]
        try:
            if whole or not self.cache.exists():
                temp = self.cache.with_suffix(".tmp")
                with temp.open("w", encoding="utf-8") as log:
                    log.write(json.dumps({"format": _FORMAT, "root": str(self.root)}) + "\n")
                    log.writelines(lines)
                os.replace(temp, self.cache)
                self._log_lines = len(lines)
            else:
                with self.cache.open("a", encoding="utf-8") as log:
                    log.writelines(lines)
                self._log_lines += len(lines)
        except OSError:
            pass  # the cache is an optimisation: a session folder that cannot take it only makes the next build cold


def _past(deadline: float | None, stop: threading.Event | None) -> bool:
    return (deadline is not None and time.monotonic() > deadline) or (stop is not None and stop.is_set())


def _language(name: str) -> str | None:
    dot = name.rfind(".")
    language = EXTENSIONS.get(name[dot:].lower()) if dot > 0 else None
    return language if has_tags(language) else None


_KEPT_INDEXES = 4  # a process embedding many sessions keeps only the latest in memory (each has its log)
_indexes: OrderedDict[tuple[Path, Path | None, Path | None], TagIndex] = OrderedDict()
_indexes_lock = threading.Lock()


def index_for(root: Path, cache_dir: Path | None, index_dir: Path | None = None) -> TagIndex:
    """The process's index of `root` cached in `cache_dir` (a session folder), loaded from its log on first use,
    sharing parsed tags through the store in `index_dir` (store.py; None: no store)."""
    with _indexes_lock:
        key = (root, cache_dir, index_dir)
        if key not in _indexes:
            _indexes[key] = TagIndex(root, cache_dir, store_in(index_dir) if index_dir is not None else None)
            while len(_indexes) > _KEPT_INDEXES:
                _indexes.popitem(last=False)
        _indexes.move_to_end(key)
        return _indexes[key]
