"""Page facts a watcher keeps between its briefing refreshes (issue 12: a refresh adds at
most 100 ms to a batch at 10,000 pages).

A briefing reads every page's facts (:func:`vault_sync.briefing.gather`: ~10,000 rows, their
evidence and a :class:`~vault_sync.page_facts.PageFacts` each, most of a refresh's time). A
page's facts come from its own ``pages`` row and evidence rows only, which a sync writes
together, stamping the row with the batch's generation. So after the first refresh only the
pages written since (generation above the one last read) are read again, pages no longer
stored are dropped, and the typed links are read in full each time (a new page can resolve
links of pages not written). Another store set (a rebuild) is read in full. The result is
the same :class:`~vault_sync.briefing.Facts` a full read gives (``tests/test_brief.py``).

Layer 4 (STYLE.md), beside :mod:`vault_sync.briefing`: reads the sidecar through its queries.
"""

from __future__ import annotations

from pathlib import Path

from vault_sync.briefing import LINK_TYPES, Facts, assemble
from vault_sync.page_facts import PageFacts, facts_from_rows, read_facts
from vault_sync.store import Sidecar


class FactsCache:
    """Every page's facts of one store set, as of a generation; one owner, one thread."""

    def __init__(self) -> None:
        self._sidecar: Path | None = None
        self._generation = -1
        self._pages: dict[str, PageFacts] = {}

    def gather(self, sidecar: Sidecar, project: str | None = None) -> Facts:
        """:func:`vault_sync.briefing.gather`, reading only the pages written since the last
        call on this store set (``sidecar``: an open connection to it).

        Raises:
            sqlite3.DatabaseError: the sidecar could not be read (the cache is then dropped).
        """
        try:
            pages = self._pages_now(sidecar)
        except BaseException:
            self._sidecar, self._generation, self._pages = None, -1, {}
            raise
        if project is not None:
            pages = {path: page for path, page in pages.items() if page.project == project}
        return assemble(pages, sidecar.typed_links(LINK_TYPES))

    def _pages_now(self, sidecar: Sidecar) -> dict[str, PageFacts]:
        # The generation first: a batch committed while this reads is read again next time.
        generation = sidecar.generation
        if sidecar.path != self._sidecar:
            self._pages = facts_from_rows(sidecar.fact_rows(), sidecar.evidence_rows())
        else:
            stored = sidecar.page_generations()
            fresh = [p for p, g in stored.items() if g > self._generation or p not in self._pages]
            if fresh or len(stored) != len(self._pages):
                read = read_facts(sidecar, fresh)
                known = self._pages
                self._pages = {
                    p: read[p] if p in read else known[p]
                    for p in stored  # by path, as a full read orders them
                    if p in read or p in known
                }
        self._sidecar, self._generation = sidecar.path, generation
        return self._pages
