"""A read of both stores as one generation (DESIGN §1 invariant 4, for readers).

Layer 4. A batch commits the index first and the sidecar after it (:mod:`vault_sync.
batch_write`), so a reader that opens the two at different moments can pair the index of one
generation with the sidecar of another. For a page whose path a batch changes (a move, a
case-only rename, a folder move, a delete and a create of the same id) the two disagree on
the path: the index holds the new path, the sidecar the old one (or the other way round),
and a search that keeps only the pages both hold would find the page in neither.

:func:`paired` runs a read with the sidecar pinned to one snapshot (one read transaction,
whose generation it knows) and hands the read a :class:`Pairing`; when the read meets a page
one store holds and the other does not, it raises :class:`_StoresApart` (through
:meth:`Pairing.lacking_facts` / :meth:`Pairing.lacking_documents`) and the read is run again
once the store that lags has caught up:

- the index holds a document *newer* than the snapshot: the writer is between its two
  commits; wait for the sidecar's commit (:func:`wait_for_sidecar`: while a writer holds the
  lock, up to :data:`PAIR_WAIT_S`), then pin a new snapshot;
- the index holds a document the snapshot does not, no newer than it, or lacks a page the
  snapshot holds: the index was opened before a commit the sidecar has; reload it.

The last of :data:`ATTEMPTS` runs serves what the stores hold (a writer killed between its
two commits leaves them apart until the next writer redoes the batch from its journal).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import tantivy

from vault_sync.index import PageIndex
from vault_sync.store import Sidecar

R = TypeVar("R")

#: Runs of one read at most: each retry follows a commit this reader had not seen, so a
#: fourth is needed only when batches commit faster than a query runs.
ATTEMPTS = 4
#: Longest wait for the sidecar's commit after the index's, seconds: a batch's sidecar
#: transaction (1,000 pages: rows, links re-resolved) and the index writer's merges take
#: well under it; the sidecar's own ``busy_timeout`` is as long.
PAIR_WAIT_S = 10.0
#: Pause between two looks at the sidecar's generation while a writer finishes, seconds.
POLL_S = 0.002


class _StoresApart(Exception):
    """A read met a page one store holds and the other does not (internal: :func:`paired`
    catches it).

    Attributes:
        lagging: ``"sidecar"`` or ``"index"``, the store to bring forward.
        generation: for ``"sidecar"``, the generation it must reach.
    """

    def __init__(self, lagging: str, generation: int) -> None:
        super().__init__(f"the {lagging} lags (generation {generation})")
        self.lagging = lagging
        self.generation = generation


@dataclass(frozen=True)
class Pairing:
    """What a read under :func:`paired` knows of its sidecar snapshot.

    Attributes:
        generation: the snapshot's generation (``meta.generation``).
        strict: ``False`` for the last run (and for reads outside :func:`paired`): serve
            what the stores hold, raise nothing.
    """

    generation: int
    strict: bool = True

    def lacking_facts(self, docs: Iterable[tantivy.Document]) -> None:
        """Call with the index documents of the pages the snapshot does not hold, before
        dropping them.

        Raises:
            _StoresApart: some are (a document newer than the snapshot: the sidecar lags; else
                the index does).
        """
        if not self.strict:
            return
        written = [int(doc.get_first("generation") or 0) for doc in docs]
        if not written:
            return
        newest = max(written)
        if newest > self.generation:
            raise _StoresApart("sidecar", newest)
        raise _StoresApart("index", self.generation)

    def lacking_documents(self, paths: Iterable[str]) -> None:
        """Call with the pages the snapshot holds that the index does not, before dropping
        them.

        Raises:
            _StoresApart: some are (the index may lag; a page deleted by a batch whose index
                commit is in and whose sidecar commit is not looks the same, and the run
                after the reload serves it as the index has it).
        """
        if self.strict and any(True for _ in paths):
            raise _StoresApart("index", self.generation)


#: For reads run outside :func:`paired` (no snapshot known): never raises.
LENIENT = Pairing(0, strict=False)


def wait_for_sidecar(sidecar: Sidecar, generation: int) -> bool:
    """Wait until the sidecar records ``generation`` complete; return whether it did.

    Stops early when no process holds the writer lock (:func:`~vault_sync.lock.writer_busy`):
    a writer killed between its two commits will not commit the sidecar; gives up after
    :data:`PAIR_WAIT_S` seconds.
    """
    from vault_sync.lock import writer_busy  # only when the stores are met apart: a query
    # never loads the writers' lock module otherwise

    store = sidecar.path.parent.parent  # set-NNNNNN/sidecar.sqlite -> the store folder
    deadline = time.monotonic() + PAIR_WAIT_S
    while True:
        if sidecar.generation >= generation:
            return True
        if not writer_busy(store):  # none is writing: look once more, as it may have just
            return sidecar.generation >= generation  # committed and released the lock
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def paired(index: PageIndex, sidecar: Sidecar, read: Callable[[Pairing], R]) -> R:
    """Run ``read`` with the sidecar pinned to one snapshot, again while it meets the stores
    apart (see the module), at most :data:`ATTEMPTS` times.

    Args:
        index: the opened index (reloaded here when it lags).
        sidecar: an open sidecar of the same set (read-only or the writer's own).
        read: the read; gets the :class:`Pairing` of its snapshot and calls its checks
            before dropping a page one store lacks.

    Returns:
        What ``read`` returns.

    Raises:
        Whatever ``read`` raises, but :class:`_StoresApart`.
    """
    for attempt in range(ATTEMPTS):
        with sidecar.snapshot() as generation:
            try:
                return read(Pairing(generation, strict=attempt < ATTEMPTS - 1))
            except _StoresApart as exc:
                apart = exc
        if apart.lagging == "sidecar":
            wait_for_sidecar(sidecar, apart.generation)
        else:
            index.reload()
    raise AssertionError("unreachable: the last run is not strict")
