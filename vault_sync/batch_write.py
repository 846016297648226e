"""One batch of a sync written under the writer lock: journal, index commit, sidecar commit.

:func:`split_batches` cuts a plan's pages into bounded batches; :class:`BatchWriter` writes
each (DESIGN §4: the journal first, then the tantivy index, then the SQLite sidecar, which
records the generation complete and clears the journal). :func:`fault_point` is the test
seam that kills the process at a named point of that order.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_sync.config import Config
from vault_sync.index import KeptWriter, PageIndex
from vault_sync.prepare import Prepared
from vault_sync.scan_result import FileEntry, proven_absent
from vault_sync.store import FileState, PageRecord, Sidecar

logger = logging.getLogger(__name__)

#: Most pages per batch. About a second of work on this machine (parse ~0.1-0.3 ms/page,
#: index ~0.03 ms/page, TECH-NOTES §6), so the lock is released about once a second.
BATCH_PAGES = 1000
#: Most bytes of page text per batch, so a few huge pages also make a bounded batch.
BATCH_BYTES = 16 * 1024 * 1024

FAULT_ENV = "VAULT_SYNC_FAULT"


_fault_counts: dict[str, int] = {}


def fault_point(name: str) -> None:
    """Test-only seam: SIGKILL this process at a named point of apply (DESIGN §4).

    ``$VAULT_SYNC_FAULT`` is ``NAME`` (kill the first time the point is reached) or
    ``NAME@N`` (the N-th time, e.g. in a watcher's N-th batch). Points, in apply order:
    ``after_journal`` (journal committed, no store touched), ``during_batch`` (half the
    batch's prepared pages collected), ``after_index_commit`` (index committed, sidecar not: the
    two stores disagree), ``after_sidecar_commit`` (both committed). Read nowhere else.
    """
    wanted = os.environ.get(FAULT_ENV)
    if not wanted:
        return
    point, _, nth = wanted.partition("@")
    if point != name:
        return
    _fault_counts[name] = _fault_counts.get(name, 0) + 1
    if _fault_counts[name] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)


def split_batches(paths: Sequence[str], entries: dict[str, FileEntry]) -> list[list[str]]:
    """``paths`` in order, cut into batches of at most :data:`BATCH_PAGES` pages and
    :data:`BATCH_BYTES` bytes of text (by ``entries``' sizes; a page alone may exceed it)."""
    batches: list[list[str]] = []
    current: list[str] = []
    size = 0
    for path in paths:
        entry = entries.get(path)
        weight = entry.size if entry else 0
        if current and (len(current) >= BATCH_PAGES or size + weight > BATCH_BYTES):
            batches.append(current)
            current, size = [], 0
        current.append(path)
        size += weight
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class Batch:
    """One batch of a plan, as :class:`BatchWriter` writes it.

    ``paths`` are the pages to write, ``deletes`` the pages to remove (the first batch's),
    ``touched`` the pages whose (mtime, size) only is refreshed (the first batch's), and
    ``attachments`` the vault's attachment list to store (the last batch's; ``None``: keep
    the stored one). ``building``: the stores are a set being built; ``complete`` is False
    for all but the last batch of such a set: its index adds stay uncommitted and its links
    unresolved until the last batch.
    """

    paths: Sequence[str]
    deletes: Sequence[str]
    touched: Sequence[tuple[str, FileState]]
    attachments: set[str] | None
    building: bool
    complete: bool


@dataclass
class BatchWriter:
    """Writes one apply's batches under the lock: journal, index commit, sidecar commit.

    ``keep`` is the index writer kept between batches (or ``None``); ``errors`` gathers
    ``{path: message}`` of pages that could not be read, the plan's own included.
    """

    config: Config
    store: Sidecar
    index_dir: Path
    keep: KeptWriter | None
    errors: dict[str, str]

    def apply(self, batch: Batch, prepared: Iterable[Prepared]) -> int:
        """Apply one batch (``prepared``: its pages, in order); returns its generation."""
        store, paths, attachments = self.store, batch.paths, batch.attachments
        # Only refreshing (mtime, size) of touched pages changes no answer: no new generation.
        changes = bool(paths or batch.deletes) or (
            attachments is not None and attachments != store.attachments()
        )
        generation = store.generation + (1 if changes else 0)
        if paths or batch.deletes:
            store.begin_pending(generation, [*paths, *batch.deletes])
        fault_point("after_journal")
        records, documents, gone = self._collect(batch, prepared)
        join_commit = None
        if records or gone or batch.complete:
            join_commit = self._write_index(batch, generation, records, documents, gone)
        try:
            store.apply_batch(
                generation,
                records,
                gone,
                attachments=attachments,
                touched=batch.touched,
                resolve=batch.complete,
            )
            if batch.building and batch.complete:
                store.end_bulk_load()
        finally:
            if join_commit is not None:
                join_commit()
                fault_point("after_index_commit")
        fault_point("after_sidecar_commit")
        logger.info("generation %d: %d written, %d deleted", generation, len(records), len(gone))
        return generation

    def _collect(
        self, batch: Batch, prepared: Iterable[Prepared]
    ) -> tuple[list[PageRecord], list[dict[str, Any]], list[str]]:
        """The batch's rows, index documents and pages to remove (its deletes, and pages
        that could not be read and are proven gone); why a page that is still there could not
        be read goes into ``errors``."""
        records: list[PageRecord] = []
        documents: list[dict[str, Any]] = []
        gone = list(batch.deletes)
        for number, (entry, record, fields, error) in enumerate(prepared):
            if number == len(batch.paths) // 2:
                fault_point("during_batch")
            if record is None or fields is None:
                # judged once, now: a page proven gone while the batch read it is a delete (a
                # later check could find it made again and count a vanished read as an error:
                # the slow watcher run, a rename then a write at the old path)
                if proven_absent(self.config.vault / entry.disk_path):
                    gone.append(entry.path)
                else:
                    self.errors[entry.path] = error or "cannot read"
                continue
            records.append(record)
            documents.append(fields)
        return records, documents, gone

    def _write_index(
        self,
        batch: Batch,
        generation: int,
        records: Sequence[PageRecord],
        documents: Sequence[dict[str, Any]],
        gone: Sequence[str],
    ) -> Callable[[], None] | None:
        """Write the batch into the index; returns the join of a commit left running.

        The last batch of a set being built commits the index in a thread while the sidecar
        resolves links and builds its indexes (order does not matter: no one reads the set).
        """
        finish = batch.building and batch.complete
        index = PageIndex.open(self.index_dir)
        with index.batch(keep=self.keep, commit=batch.complete and not finish) as writer:
            for path in gone:
                writer.delete(path)
            for record, fields in zip(records, documents, strict=True):
                if not batch.building:  # a set being built holds no earlier copy of any page
                    writer.delete(record.path)
                writer.add_fields(fields, generation)
        if not finish:
            fault_point("after_index_commit")
            return None
        assert self.keep is not None  # a set being built keeps its writer (apply_plan)
        return index.commit_in_background(self.keep)
