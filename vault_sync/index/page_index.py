"""The index folder: opened, verified, written in batches, searched.

Part of :mod:`vault_sync.index` (layer 3). Readers need no lock. A batch opens a tantivy writer
and, unless its owner keeps it (:class:`KeptWriter`), drops it after the commit, so the
index's OS lock is held only while a batch is applied (TECH-NOTES §7). Searching here is raw:
a tantivy query in, the best documents out (:meth:`PageIndex.top_documents`); queries are
built from user text, and hits made, in :mod:`vault_sync.retrieve`.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from vault_sync.errors import IndexBusyError, IndexCorruptError, IndexSchemaMismatch, StoreError
from vault_sync.index.schema import (
    SCHEMA_VERSION,
    create_index,
    make_document,
    page_document,
    register_analyzers,
    schema,
    stored_text,
)

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
#: Segment files are named ``<32 hex digits>.<ext>`` (TECH-NOTES §1.1 layout).
_SEGMENT_FILE = re.compile(r"^[0-9a-f]{32}\.")
#: The files every segment named in meta.json has (tantivy's SegmentComponent, but the
#: temporary store and the optional ``.del``): postings, positions, terms, store, fast
#: fields, field norms.
_SEGMENT_PARTS = ("idx", "pos", "term", "store", "fast", "fieldnorm")
_FOOTER_MAGIC = 1337  # tantivy's footer magic number (``0x539``), after the JSON footer


#: One tantivy document as a search returns it: (score rounded to 6 decimals, address, doc).
Row = tuple[float, tantivy.DocAddress, tantivy.Document]


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


def _open_shadow(path: Path, exc: ValueError) -> tantivy.Index:
    """Open, for reading, an index whose folder this user cannot write (a store made by
    another user, a read-only mount): tantivy takes a lock even to read, on a file it must
    open for writing. A private folder of symlinks to the index's files (never its lock
    files) gives it lock files of its own; segment files are immutable, so reading them
    through links is safe. The folder goes when the process exits.

    Raises:
        PermissionError: a file of the index cannot be read by this user either.
    """
    import atexit
    import shutil
    import tempfile

    shadow = Path(tempfile.mkdtemp(prefix="vault-sync-index-"))
    atexit.register(shutil.rmtree, shadow, True)
    for file in path.iterdir():
        if not file.name.startswith(".tantivy-"):
            if not os.access(file, os.R_OK):
                raise PermissionError(f"{file.name} is not readable") from exc
            (shadow / file.name).symlink_to(file)
    return tantivy.Index(schema(), path=str(shadow), reuse=True)


#: tantivy's own files that it writes atomically through a private (mode 0600) temp file.
_PRIVATE_FILES = ("meta.json", ".managed.json")


def share_files(path: Path) -> None:
    """Give tantivy's ``meta.json`` and ``.managed.json`` the read permissions of the index
    folder (0755 -> 0644, 0700 -> 0600): tantivy writes them mode 0600, so a store made by
    one user could not be read by any other, even where its folder lets them read."""
    try:
        mode = path.stat().st_mode & 0o666
        for name in _PRIVATE_FILES:
            file = path / name
            if file.exists() and file.stat().st_mode & 0o777 != mode:
                file.chmod(mode)
    except OSError:
        pass  # a courtesy to other users; never fails a write


def _is_panic(exc: BaseException) -> bool:
    """True for pyo3's ``PanicException`` (a BaseException): tantivy panicked on bad data."""
    return type(exc).__name__ == "PanicException"


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


class PageIndex:
    """The index folder, opened for search and for batches of writes.

    Open with :meth:`open`. Readers need no lock; a batch opens the tantivy writer and drops it
    after its commit (unless its caller keeps it, :class:`KeptWriter`), so the index's OS lock
    is held only while a batch is applied (TECH-NOTES §7).
    """

    def __init__(
        self, path: Path, index: tantivy.Index, busy_wait_s: float = WRITER_BUSY_WAIT_S
    ) -> None:
        self.path = path
        self._index = index
        self.busy_wait_s = busy_wait_s

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        verify: bool = False,
        busy_wait_s: float = WRITER_BUSY_WAIT_S,
        create: bool = True,
    ) -> PageIndex:
        """Open the index at ``path``, creating it (and its parents) when missing.

        Args:
            path: the index folder.
            create: make the index when ``path`` holds none (a writer's open). Readers pass
                ``False``: a set whose index folder is gone or emptied is damage, never an
                empty index that answers every query with no hit (issue 14 fault 4; tantivy
                would make a new empty index in an empty folder).
            verify: also check every segment file's CRC32 footer (reads the whole index:
                about 10 ms for 10k pages; worth it for writers and ``status``, not for each
                query).
            busy_wait_s: how long a batch waits for another process's tantivy writer before
                :class:`IndexBusyError`, in seconds (default :data:`WRITER_BUSY_WAIT_S`; tests
                lower it).

        Raises:
            IndexSchemaMismatch: the index was written with another schema or analyzers.
            IndexCorruptError: a file is missing, truncated or damaged; with ``create``
                false, also when the index (its ``meta.json``) is missing.
        """
        existing = (path / "meta.json").exists()
        if not existing and not create:
            raise IndexCorruptError(f"index at {path} is damaged: its meta.json is missing")
        if not existing and path.is_dir():
            strays = [p.name for p in path.iterdir() if _SEGMENT_FILE.match(p.name)]
            if strays:
                raise IndexCorruptError(
                    f"index at {path} is damaged: meta.json is missing but segment files remain"
                )
        path.mkdir(parents=True, exist_ok=True)
        if verify and existing:
            verify_checksums(path)
        try:
            try:
                if not existing:
                    create_index(path)
                index = tantivy.Index(schema(), path=str(path), reuse=True)
            except ValueError as exc:
                if "Failed to acquire Lockfile" not in str(exc):
                    raise
                index = _open_shadow(path, exc)  # a folder this user cannot write
            register_analyzers(index)
            index.searcher()
        except PermissionError as exc:
            raise StoreError(f"index at {path} cannot be read by this user: {exc}") from exc
        except ValueError as exc:
            if "PermissionDenied" in str(exc):
                msg = f"index at {path} cannot be read by this user: {_first_line(exc)}"
                raise StoreError(msg) from exc
            if "schema does not match" in str(exc):
                raise IndexSchemaMismatch(
                    f"index at {path} has another schema (expected version {SCHEMA_VERSION}):"
                    " rebuild it"
                ) from exc
            raise IndexCorruptError(f"index at {path} is damaged: {_first_line(exc)}") from exc
        except BaseException as exc:  # a panic on a damaged segment file: not an Exception
            if not _is_panic(exc):
                raise
            raise IndexCorruptError(f"index at {path} is damaged: {_first_line(exc)}") from exc
        return cls(path, index, busy_wait_s)

    def reload(self) -> None:
        """Make the last commit visible to this object's searches (about 0.5 ms).

        Raises:
            IndexCorruptError: a segment file of that commit is damaged (tantivy panics).
        """
        try:
            self._index.reload()
        except BaseException as exc:
            if isinstance(exc, ValueError) or _is_panic(exc):
                raise self._damaged(exc) from exc
            raise

    def _open_writer(self) -> Any:
        """Open a tantivy writer, waiting up to ``busy_wait_s`` seconds while another
        process's writer finishes its merges (it holds tantivy's own lock meanwhile)."""
        deadline = time.monotonic() + self.busy_wait_s
        while True:
            try:
                return self._index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise IndexCorruptError(f"index at {self.path}: {_first_line(exc)}") from exc
                if time.monotonic() >= deadline:
                    msg = f"index at {self.path} is locked by another writer"
                    raise IndexBusyError(msg) from exc
                time.sleep(0.05)

    @contextmanager
    def batch(self, *, keep: KeptWriter | None = None, commit: bool = True) -> Iterator[Writer]:
        """Open a writer for one batch; commit once and reload at exit, roll back on error.

        Args:
            keep: take the writer from there (its owner's writer of this index, if any) and
                put it back after the commit, merges running in the background, instead of
                waiting for them and dropping it (see :class:`KeptWriter`).
            commit: ``False`` leaves this batch's adds uncommitted in the writer put back in
                ``keep`` (required then), which its owner's next batch continues; the batch
                that commits (or :meth:`commit_in_background`) makes all of them visible at
                once. Only for a store set being built, which no one reads yet: one commit
                instead of one per batch saves ~0.8 s of a 10k-page cold sync (fewer, larger
                segments and no merges between batches). A crash loses the uncommitted adds,
                and the half-built set with them (``layout``'s ``BUILDING`` marker).

        Raises:
            IndexBusyError: another process's writer kept tantivy's lock too long.
            StoreError: the commit failed (the batch is rolled back).
            ValueError: ``commit=False`` without ``keep``.
        """
        if not commit and keep is None:
            raise ValueError("an uncommitted batch needs a KeptWriter to continue it")
        raw = (keep._take(self.path) if keep is not None else None) or self._open_writer()
        try:
            yield Writer(raw)
            if not commit:
                assert keep is not None
                keep._put(self.path, raw)
                return
            raw.commit()
        except BaseException as exc:
            raw.rollback()
            raw.wait_merging_threads()  # consumes the writer: the OS lock is released now
            if isinstance(exc, ValueError):  # commit failed: I/O, or a value tantivy refused
                msg = f"cannot commit to index at {self.path}: {_first_line(exc)}"
                raise StoreError(msg) from exc
            raise
        # Reload first: the commit is visible to every reader now. Then wait for merges, which
        # consumes the writer (the OS lock is released even while the caller still holds the
        # Writer) and keeps segments few (TECH-NOTES §6: 10-17 segments after 30 commits
        # without, 4 with).
        self._index.reload()
        if keep is not None:
            keep._put(self.path, raw)
            share_files(self.path)  # merges still running rewrite it: release() again
        else:
            raw.wait_merging_threads()
            share_files(self.path)

    def commit_in_background(self, keep: KeptWriter) -> Callable[[], None]:
        """Commit, in a thread, the adds that ``batch(keep=keep, commit=False)`` left
        uncommitted in this index's writer, and return the function that waits for it (and
        reloads). The writer leaves ``keep``.

        tantivy releases the GIL while it commits (~0.55 s at 10k pages: the last segment's
        flush), so a store set being built resolves its links and indexes its sidecar
        meanwhile (benchmarks/run.py, 2026-12-01).

        Raises:
            KeyError: ``keep`` holds no writer of this index.
            StoreError: (from the returned function) the commit failed.
        """
        raw = keep._take(self.path)
        if raw is None:
            raise KeyError(f"no uncommitted writer of {self.path}")
        failed: list[BaseException] = []

        def run() -> None:
            try:
                raw.commit()
                raw.wait_merging_threads()  # releases tantivy's lock
            except BaseException as exc:  # re-raised by join() in the caller's thread
                failed.append(exc)

        thread = threading.Thread(target=run, name="vault-sync-index-commit", daemon=True)
        thread.start()

        def join() -> None:
            thread.join()
            if failed:
                msg = f"cannot commit to index at {self.path}: {_first_line(failed[0])}"
                raise StoreError(msg) from failed[0]
            share_files(self.path)
            self._index.reload()

        return join

    def delete_all(self) -> None:
        """Delete every page in one committed batch."""
        with self.batch() as writer:
            writer.delete_all()

    def doc_count(self) -> int:
        """Number of pages visible to searches."""
        return int(self._index.searcher().num_docs)

    def stored_texts(self, paths: Iterable[str], field: str) -> dict[str, str]:
        """``{path: the stored text of field}`` for each of ``paths`` the index holds (one
        term lookup each: for the few pages a briefing shows, not for the whole vault).

        Raises:
            IndexCorruptError: a stored document cannot be read.
        """
        out: dict[str, str] = {}
        schema = self._index.schema
        with self.searching() as searcher:
            for path in paths:
                query = tantivy.Query.term_query(schema, "path", path)
                hits = searcher.search(query, limit=1).hits
                if hits:
                    out[path] = stored_text(searcher.doc(hits[0][1]), field)
        return out

    def documents(
        self,
        searcher: tantivy.Searcher,
        paths: Iterable[str],
        where: tantivy.Query | None = None,
    ) -> dict[str, tantivy.Document]:
        """``{path: stored document}`` for each of ``paths`` the index holds (and whose
        document matches ``where``, when given), in one search (a disjunction of the path
        terms): the ranking's graph neighbours and the pages its rules move, which the
        lexical stream did not fetch; with ``where``, those holding an excluded word.

        Args:
            searcher: from :meth:`searching` (errors inside it are damage).
            paths: vault-relative page paths.
            where: a query the documents must match too, or ``None``.
        """
        wanted = sorted(set(paths))
        if not wanted:
            return {}
        schema = self._index.schema
        terms = [
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "path", path))
            for path in wanted
        ]
        query = tantivy.Query.boolean_query(terms)
        if where is not None:
            occur = tantivy.Occur.Must
            query = tantivy.Query.boolean_query([(occur, query), (occur, where)])
        hits = searcher.search(query, limit=len(wanted)).hits
        docs = (searcher.doc(addr) for _, addr in hits)
        return {stored_text(doc, "path"): doc for doc in docs}

    def paths_with_generation(self) -> dict[str, int]:
        """Map every indexed path to the generation that wrote it (to check the sidecar).

        Raises:
            IndexCorruptError: a stored document cannot be read.
        """
        searcher = self._index.searcher()
        total = searcher.num_docs
        if not total:
            return {}
        try:
            result = searcher.search(tantivy.Query.all_query(), limit=total)
            out = {}
            for _score, addr in result.hits:
                doc = searcher.doc(addr)
                out[stored_text(doc, "path")] = int(doc.get_first("generation") or 0)
        except BaseException as exc:
            raise self._damaged(exc) from exc
        return out

    @contextmanager
    def searching(self) -> Iterator[tantivy.Searcher]:
        """A searcher of the last commit this object saw (:meth:`reload`); a tantivy error
        raised while it is used (a damaged segment, a panic on bad data) leaves the block as
        :class:`IndexCorruptError`, never as a silent zero."""
        try:
            searcher = self._index.searcher()
            yield searcher
        except BaseException as exc:
            if isinstance(exc, ValueError) or _is_panic(exc):
                raise self._damaged(exc) from exc
            raise

    def top_documents(
        self, searcher: tantivy.Searcher, query: tantivy.Query, limit: int
    ) -> list[Row]:
        """The best ``limit`` documents for ``query``, sorted by ``(-score, path)``, so the
        order never depends on segments: documents tied at the cut are fetched until the
        score there differs. Scores are rounded to 6 decimals before sorting.

        Args:
            searcher: from :meth:`searching`.
            query: a built tantivy query (:func:`vault_sync.retrieve.build_query`).
            limit: most documents to return (>= 1).
        """
        total = searcher.num_docs
        if not total:
            return []
        # past the cut, until the score there differs, so ties sort by path; twice the limit
        # at first: a tie at the cut is common (one search more, as costly as the first: every
        # match is scored again), and fetching more costs about nothing
        fetch = min(2 * limit + 1, total)
        while True:
            hits = searcher.search(query, limit=fetch).hits
            if len(hits) < fetch or fetch >= total:
                break
            if round(hits[-1][0], 6) != round(hits[min(limit, len(hits)) - 1][0], 6):
                break
            fetch = min(fetch * 2, total)
        # hits come best first: those below the limit-th score are out whatever their path,
        # so only the documents at or above it are read (a tie past the cut doubled the reads)
        cut = round(hits[min(limit, len(hits)) - 1][0], 6) if hits else 0.0
        scored = [(round(float(score), 6), addr) for score, addr in hits]
        rows = [(score, addr, searcher.doc(addr)) for score, addr in scored if score >= cut]
        rows.sort(key=lambda row: (-row[0], stored_text(row[2], "path")))
        return rows[:limit]

    def _damaged(self, exc: BaseException) -> IndexCorruptError:
        return IndexCorruptError(f"index at {self.path} is damaged: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def verify_checksums(path: Path) -> None:
    """Check the CRC32 footer of every segment file of the index at ``path``.

    tantivy ends each segment file with a JSON footer holding the CRC32 (the zlib/IEEE
    polynomial, as ``crc32fast``) of the bytes before it, then the footer's length (u32 LE) and
    the magic number 1337. tantivy checks only the magic number at open, so garbage written
    inside a file goes unseen until a search panics or, for positions, silently misranks.

    Only segments named in ``meta.json`` are checked: files of a merge or commit that a
    killed writer left half-written are not part of the index (tantivy deletes them when the
    next writer opens), so they must not make a healthy index look damaged.

    Raises:
        IndexCorruptError: a file a live segment needs is missing, a file's footer is
            missing or its checksum differs, or ``meta.json`` cannot be read.
    """
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        live = {seg["segment_id"].replace("-", "") for seg in meta["segments"]}
        live_deletes = {
            f"{seg['segment_id'].replace('-', '')}.{seg['deletes']['opstamp']}.del"
            for seg in meta["segments"]
            if seg.get("deletes")
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexCorruptError(f"index at {path} is damaged: meta.json: {exc}") from exc
    present = {file.name for file in path.iterdir()}
    needed = {f"{seg}.{part}" for seg in live for part in _SEGMENT_PARTS} | live_deletes
    missing = sorted(needed - present)
    if missing:  # a checksum check sees only the files that are there
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise IndexCorruptError(f"index at {path} is damaged: missing {shown}")
    for file in sorted(path.iterdir()):
        if not _SEGMENT_FILE.match(file.name):
            continue
        if file.name.endswith(".del"):
            if file.name not in live_deletes:
                continue
        elif file.name.split(".", 1)[0] not in live:
            continue
        data = file.read_bytes()
        try:
            if len(data) < 8:
                raise ValueError("shorter than its footer")
            length = int.from_bytes(data[-8:-4], "little")
            magic = int.from_bytes(data[-4:], "little")
            if magic != _FOOTER_MAGIC or length + 8 > len(data):
                raise ValueError("footer magic number mismatch")
            footer = json.loads(data[-8 - length : -8])
            if zlib.crc32(data[: -8 - length]) != footer["crc"]:
                raise ValueError("checksum mismatch")
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexCorruptError(f"index at {path} is damaged: {file.name}: {exc}") from exc
