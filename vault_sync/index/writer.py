"""tantivy's writers: opened, given one batch's adds and deletes, kept, committed in a thread.

Part of :mod:`vault_sync.index` (layer 3). :func:`open_writer` waits out another process's
writer; :class:`Writer` wraps a writer for one batch of
:meth:`~vault_sync.index.page_index.PageIndex.batch`; :class:`KeptWriter` holds writers their
owner keeps open between batches (the watcher, a store set being built);
:func:`commit_in_thread` commits one while the caller works on. The writer's sizes are here
too (:data:`WRITER_HEAP_BYTES`, :data:`WRITER_THREADS`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from vault_sync.errors import IndexBusyError, IndexCorruptError, StoreError
from vault_sync.index.files import first_line, share_files
from vault_sync.index.schema import make_document, page_document

if TYPE_CHECKING:  # the page model: with the parser, off the query path
    from vault_sync.page import Page

#: Writer heap in bytes: tantivy needs >= 15 MB per thread (TECH-NOTES §1.1); 64 MB holds a
#: batch of thousands of pages before tantivy flushes a segment on its own.
WRITER_HEAP_BYTES = 64_000_000
#: How long a writer waits for another process's tantivy writer (finishing merges), seconds:
#: the default of :meth:`PageIndex.open`'s ``busy_wait_s``.
WRITER_BUSY_WAIT_S = 10.0
#: One indexing thread: a 2-thread writer made single updates slower (16.2 vs 9.8 ms,
#: TECH-NOTES §6 (f)) and doubles the segments of a rebuild.
WRITER_THREADS = 1


class KeptWriter:
    """Tantivy writers kept open between batches by whoever opened this object.

    :meth:`PageIndex.batch` with ``keep=`` takes the writer of its index from here (or opens
    one) and puts it back afterwards instead of dropping it. Two owners use one:

    - the watcher, for its lifetime: committed writers stay open with their merges running,
      so a ~1 s merge every 8th small commit at 10k pages never delays the next save
      (benchmarks/watch_latency.py); it calls :meth:`release` when idle;
    - :func:`vault_sync.sync.apply_plan`, for a store set being built: its batches' adds stay
      uncommitted until :meth:`PageIndex.commit_in_background`; on failure it calls
      :meth:`discard`.

    Not thread-safe: one owner, one thread.
    """

    def __init__(self) -> None:
        self._writers: dict[str, Any] = {}  # index folder -> tantivy IndexWriter

    def _take(self, path: Path) -> Any | None:
        return self._writers.pop(str(path), None)

    def _put(self, path: Path, raw: Any) -> None:
        self._writers[str(path)] = raw

    def release(self) -> None:
        """Finish and drop every writer kept here: waits for their merges, which gives
        tantivy's lock back to other processes. Uncommitted adds are lost."""
        while self._writers:
            path, raw = self._writers.popitem()
            raw.wait_merging_threads()
            share_files(Path(path))

    def discard(self) -> None:
        """Roll back and drop every writer kept here (a store set whose build failed between
        batches); releases tantivy's lock."""
        while self._writers:
            _, raw = self._writers.popitem()
            raw.rollback()
            raw.wait_merging_threads()


class Writer:
    """Adds and deletes of one batch; :meth:`PageIndex.batch` commits them once."""

    def __init__(self, writer: tantivy.IndexWriter) -> None:
        self._writer = writer

    def delete(self, path: str) -> None:
        """Delete the page at ``path`` (exact, vault-relative; a missing path is a no-op)."""
        self._writer.delete_documents_by_term("path", path)

    def add(self, page: Page, content_hash: str, generation: int) -> None:
        """Add a page; to replace one, :meth:`delete` its path first in the same batch."""
        self._writer.add_document(page_document(page, content_hash, generation))

    def add_fields(self, fields: dict[str, Any], generation: int) -> None:
        """Add a page given as its :func:`document_fields`; like :meth:`add`."""
        self._writer.add_document(make_document(fields, generation))

    def delete_all(self) -> None:
        """Delete every page."""
        self._writer.delete_all_documents()


def open_writer(index: tantivy.Index, path: Path, busy_wait_s: float) -> Any:
    """Open a tantivy writer of ``index`` (its folder ``path``, for messages), waiting up to
    ``busy_wait_s`` seconds while another process's writer finishes its merges (it holds
    tantivy's own lock meanwhile).

    Raises:
        IndexBusyError: the other writer kept the lock longer.
        IndexCorruptError: tantivy refused to open a writer for another reason.
    """
    deadline = time.monotonic() + busy_wait_s
    while True:
        try:
            return index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
        except ValueError as exc:
            if "LockBusy" not in str(exc):
                raise IndexCorruptError(f"index at {path}: {first_line(exc)}") from exc
            if time.monotonic() >= deadline:
                raise IndexBusyError(f"index at {path} is locked by another writer") from exc
            time.sleep(0.05)


def commit_in_thread(raw: Any, path: Path) -> Callable[[], None]:
    """Commit the tantivy writer ``raw`` (of the index at ``path``) in a thread, then wait for
    its merges (which releases tantivy's lock); return the function that waits for it.

    Raises:
        StoreError: (from the returned function) the commit failed.
    """
    failed: list[BaseException] = []

    def run() -> None:
        try:
            raw.commit()
            raw.wait_merging_threads()  # releases tantivy's lock
        except BaseException as exc:  # re-raised by the join in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="vault-sync-index-commit", daemon=True)
    thread.start()

    def join() -> None:
        thread.join()
        if failed:
            msg = f"cannot commit to index at {path}: {first_line(failed[0])}"
            raise StoreError(msg) from failed[0]

    return join
