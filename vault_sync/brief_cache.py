"""Page facts a watcher keeps between its briefing refreshes (issue 12: a refresh adds at
most 100 ms to a batch at 10,000 pages).

A briefing reads every page's facts (:func:`vault_sync.briefing.gather`: ~10,000 rows, their
evidence and a :class:`~vault_sync.page_facts.PageFacts` each, most of a refresh's time). A
page's facts come from its own ``pages`` row and evidence rows only, which a sync writes
together, stamping the row with the batch's generation. So after the first refresh only the
pages written since (generation above the one last read) are read again; when fewer pages
are stored than that leaves, the full list of paths says which went; the typed links are read
in full each time (a new page can resolve links of pages not written). Another store set (a
rebuild) is read in full. The result is the same :class:`~vault_sync.briefing.Facts` a full
read gives (``tests/test_brief.py``).

Layer 5 (STYLE.md), beside :mod:`vault_sync.briefing`: reads the sidecar through its queries.
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
        if sidecar.path != self._sidecar:
            generation = sidecar.generation  # first: a batch committed meanwhile is read again
            self._pages = facts_from_rows(sidecar.fact_rows(), sidecar.evidence_rows())
            self._sidecar, self._generation = sidecar.path, generation
            return self._pages
        generation, fresh, stored = sidecar.written_since(self._generation)
        pages = self._pages
        added = [path for path in fresh if path not in pages]
        if stored != len(pages) + len(added):  # pages went (or came unseen): list them all
            kept = set(sidecar.page_paths())
            fresh += [path for path in kept if path not in pages and path not in fresh]
            pages = {path: page for path, page in pages.items() if path in kept}
            added = [path for path in fresh if path not in pages]
        pages.update(read_facts(sidecar, fresh))
        if added or len(pages) != len(self._pages):  # by path, as a full read orders them
            pages = {path: pages[path] for path in sorted(pages)}
        self._pages, self._generation = pages, generation
        return pages
