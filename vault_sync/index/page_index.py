"""The index folder: opened, written in batches, searched.

Part of :mod:`vault_sync.index` (layer 3). Readers need no lock. A batch opens a tantivy writer
(:mod:`vault_sync.index.writer`) and, unless its owner keeps it (:class:`KeptWriter`), drops it
after the commit, so the index's OS lock is held only while a batch is applied (TECH-NOTES §7).
The folder's files are checked in :mod:`vault_sync.index.files`. Searching here is raw: a
tantivy query in, the best documents out (:meth:`PageIndex.top_documents`); queries are built
from user text, and hits made, in :mod:`vault_sync.retrieve`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tantivy

from vault_sync.errors import IndexCorruptError, IndexSchemaMismatch, StoreError
from vault_sync.index.files import (
    SEGMENT_FILE,
    first_line,
    is_panic,
    open_shadow,
    share_files,
    verify_checksums,
)
from vault_sync.index.schema import (
    SCHEMA_VERSION,
    create_index,
    register_analyzers,
    schema,
    stored_text,
)
from vault_sync.index.writer import (
    WRITER_BUSY_WAIT_S,
    KeptWriter,
    Writer,
    commit_in_thread,
    open_writer,
)

#: One tantivy document as a search returns it: (score rounded to 6 decimals, address, doc).
Row = tuple[float, tantivy.DocAddress, tantivy.Document]


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
            strays = [p.name for p in path.iterdir() if SEGMENT_FILE.match(p.name)]
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
                index = open_shadow(path, exc)  # a folder this user cannot write
            register_analyzers(index)
            index.searcher()
        except PermissionError as exc:
            raise StoreError(f"index at {path} cannot be read by this user: {exc}") from exc
        except ValueError as exc:
            if "PermissionDenied" in str(exc):
                msg = f"index at {path} cannot be read by this user: {first_line(exc)}"
                raise StoreError(msg) from exc
            if "schema does not match" in str(exc):
                raise IndexSchemaMismatch(
                    f"index at {path} has another schema (expected version {SCHEMA_VERSION}):"
                    " rebuild it"
                ) from exc
            raise IndexCorruptError(f"index at {path} is damaged: {first_line(exc)}") from exc
        except BaseException as exc:  # a panic on a damaged segment file: not an Exception
            if not is_panic(exc):
                raise
            raise IndexCorruptError(f"index at {path} is damaged: {first_line(exc)}") from exc
        return cls(path, index, busy_wait_s)

    def reload(self) -> None:
        """Make the last commit visible to this object's searches (about 0.5 ms).

        Raises:
            IndexCorruptError: a segment file of that commit is damaged (tantivy panics).
        """
        try:
            self._index.reload()
        except BaseException as exc:
            if isinstance(exc, ValueError) or is_panic(exc):
                raise self._damaged(exc) from exc
            raise

    def _open_writer(self) -> Any:
        """Open a tantivy writer of this index (:func:`~vault_sync.index.writer.open_writer`)."""
        return open_writer(self._index, self.path, self.busy_wait_s)

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
                msg = f"cannot commit to index at {self.path}: {first_line(exc)}"
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
        wait = commit_in_thread(raw, self.path)

        def join() -> None:
            wait()
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
            if isinstance(exc, ValueError) or is_panic(exc):
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
        return IndexCorruptError(f"index at {self.path} is damaged: {first_line(exc)}")
