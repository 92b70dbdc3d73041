"""Reading and parsing the files an index refresh needs: in this process for a few, in worker processes
(process/pool.py) for many.

tree-sitter holds the GIL while it parses and while a query runs, so threads would not make a cold build any
faster; processes do, on as many cores as the machine gives (two workers halve it on two cores). A pool
costs a few hundred milliseconds to start (a fresh interpreter importing the grammars), so fewer than
POOL_MIN_FILES files are parsed here, as are the files a pool could not do (it would not start, a worker
died). Work is handed out in batches of consecutive files (the caller's order: smallest first), so the
files parsed before a deadline are the ones that would have been parsed without the pool, and more of them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.process.pool import MAX_WORKERS, main_is_importable, run_batches, usable_cpus
from sneakycode.tools.codemap.store import content_key
from sneakycode.tools.codemap.tags import EMPTY, FileTags, extract_tags

POOL_MIN_FILES = 150  # fewer take less than a pool's start-up to parse here
BATCH_BYTES = 512_000  # a batch is at most this much source (or one larger file), so a deadline cuts little
BATCH_FILES = 64
# A file longer than MINIFIED_MIN_BYTES whose lines average over MINIFIED_LINE_BYTES is a minified bundle
# (`app.min.js`): its one-letter names would only crowd the map, so it is read but not parsed.
MINIFIED_MIN_BYTES = 4096
MINIFIED_LINE_BYTES = 1000

Job = tuple[str, str, int]  # (path to read, language, size in bytes)
Parsed = tuple[bytes, FileTags]  # the key of the bytes parsed (store.py), and their tags


def parse_file(path: str, language: str, limit: int) -> Parsed | None:
    """The file's content key and tags; EMPTY tags for one that is not text or is minified, None for one that
    cannot be read (left out)."""
    try:
        data = read_regular(path, limit, follow_symlinks=False)
    except (OSError, NotRegularFile, OverLimit):
        return None
    return content_key(language, data), tags_of(language, data)


def tags_of(language: str, data: bytes) -> FileTags:
    """The tags of a file's bytes: EMPTY for bytes that are not text, or minified."""
    if b"\x00" in data[:8192]:
        return EMPTY
    if len(data) > MINIFIED_MIN_BYTES and data.count(b"\n") * MINIFIED_LINE_BYTES < len(data):
        return EMPTY
    return extract_tags(language, data)


def parse_batch(batch: tuple[int, list[tuple[str, str]]]) -> list[Parsed | None]:
    """A worker's task: the tags of each (path, language) of the batch, read with the batch's size limit."""
    limit, files = batch
    return [parse_file(path, language, limit) for path, language in files]


def parse_files(jobs: Sequence[Job], limit: int, deadline: float | None,
                stop: threading.Event | None = None) -> dict[int, Parsed | None]:
    """The key and tags of each job by its number (None: the file could not be read); jobs missing from the
    answer were not reached before `deadline` (time.monotonic()) or `stop`. Earlier jobs are done first."""
    results: dict[int, Parsed | None] = {}
    if (deadline is not None and time.monotonic() > deadline) or (stop is not None and stop.is_set()):
        return results  # the walk took the time: no pool started for nothing
    workers = min(usable_cpus(), MAX_WORKERS)
    if len(jobs) >= POOL_MIN_FILES and workers > 1 and main_is_importable():
        numbers = _batches(jobs)
        batches = [(limit, [(jobs[j][0], jobs[j][1]) for j in batch]) for batch in numbers]
        done, worked = run_batches(parse_batch, batches, workers, deadline, stop)
        for b, tags in done.items():
            results.update(zip(numbers[b], tags, strict=True))
        if worked:
            return results
    for number, (path, language, _) in enumerate(jobs):
        if number in results:
            continue
        if (deadline is not None and time.monotonic() > deadline) or (stop is not None and stop.is_set()):
            break
        results[number] = parse_file(path, language, limit)
    return results


def _batches(jobs: Sequence[Job]) -> list[list[int]]:
    batches: list[list[int]] = [[]]
    size = 0
    for number, (_, _, bytes_) in enumerate(jobs):
        if batches[-1] and (size + bytes_ > BATCH_BYTES or len(batches[-1]) >= BATCH_FILES):
            batches.append([])
            size = 0
        batches[-1].append(number)
        size += bytes_
    return [batch for batch in batches if batch]
