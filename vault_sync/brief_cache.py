"""What a watcher keeps between its briefing refreshes: every page's facts and the orders the
briefing's sections are cut from (issue 12: a refresh adds at most 100 ms to a batch at
10,000 pages).

A briefing reads every page's facts (:func:`vault_sync.briefing.gather`: ~10,000 rows and a
:class:`~vault_sync.page_facts.PageFacts` each) and orders them
(:func:`vault_sync.briefing.lists`: confidence of every standing answer, the open bugs, the
dated pages newest first). A page's facts come from its own ``pages`` row only (its evidence
summed there), written with its evidence, stamped with the batch's generation. So after
the first refresh only the pages written since (generation above the one last read) are read
again; when fewer pages are stored than that leaves, the full list of paths says which went.
The typed links likewise: each link row carries the generation that inserted or last
resolved it (a new page can resolve the links of pages it did not write), so only those of a
later generation are read again. Each briefing's view (all pages, or one project's) then
moves only the pages that changed — those read again or gone, and those whose supersession
or count of open contradictions changed — out of and back into its sorted lists (by
:func:`~vault_sync.briefing.standing_key` and :func:`~vault_sync.briefing.newest_key`, the
orders the full sorts give); contradictions and supersession are worked out again only when
their edges or a page on them changed. When the vault's reference day moves (every standing
answer's confidence and every validity window may change with it), a view is rebuilt from
its kept pages, keeping its dated lists (they do not depend on the day); another store set
(a rebuild) is read in full. The results are the same :class:`~vault_sync.briefing.Facts`
and :class:`~vault_sync.briefing.Lists` a full read gives (``tests/test_brief_cache.py``).

Layer 5 (STYLE.md), beside :mod:`vault_sync.briefing`: reads the sidecar through its queries.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from vault_sync.brief_facts import (
    LINK_TYPES,
    STANDING_KINDS,
    Edge,
    Facts,
    Link,
    Lists,
    contradictions,
    current,
    fixers_of,
    lists,
    newest_key,
    page_confidence,
    page_days,
    split_links,
    standing_key,
)
from vault_sync.briefing import Said
from vault_sync.page_facts import (
    PageFacts,
    active,
    facts_from_rows,
    read_facts,
    superseded_by_edges,
)
from vault_sync.store import Sidecar


class FactsCache:
    """Every page's facts of one store set, as of a generation, and a view of them per
    briefing (project); one owner, one thread.

    Attributes:
        said: standing answers' summaries kept between refreshes
            (:data:`vault_sync.briefing.Said`).
    """

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._sidecar: Path | None = None
        self._generation = -1
        self._pages: dict[str, PageFacts] = {}
        self._version = 0  # counts the reads that changed pages
        self._full = 0  # the version of the last full read
        self._changes: list[tuple[int, set[str]]] = []  # (version, paths changed) since it
        self._views: dict[str | None, _View] = {}
        self._links = _Links()
        self.said: Said = {}

    def gather(self, sidecar: Sidecar, project: str | None = None) -> Facts:
        """:func:`vault_sync.briefing.gather`, reading only the pages written since the last
        call on this store set (``sidecar``: an open connection to it).

        Raises:
            sqlite3.DatabaseError: the sidecar could not be read (the cache is then dropped).
        """
        return self.inputs(sidecar, project)[0]

    def inputs(self, sidecar: Sidecar, project: str | None = None) -> tuple[Facts, Lists]:
        """:meth:`gather` and the :func:`vault_sync.briefing.lists` of its facts, each moved
        on from the last call by the pages that changed since.

        Raises:
            sqlite3.DatabaseError: the sidecar could not be read (the cache is then dropped).
        """
        try:
            pages = self._pages_now(sidecar)
            links = self._links.links
            view = self._views.get(project)
            if view is None or view.version < self._full:
                view = self._views[project] = _View(project, pages, links)
            else:
                view.update(pages, self._changed_since(view.version), links)
        except BaseException:
            self._reset()  # start again from a full read
            raise
        view.version = self._version
        oldest = min(v.version for v in self._views.values())
        self._changes = [(at, paths) for at, paths in self._changes if at > oldest]
        return view.facts, view.lists

    def _changed_since(self, version: int) -> set[str]:
        changed: set[str] = set()
        for at, paths in self._changes:
            if at > version:
                changed |= paths
        return changed

    def _pages_now(self, sidecar: Sidecar) -> dict[str, PageFacts]:
        if sidecar.path != self._sidecar:
            generation = sidecar.generation  # first: a batch committed meanwhile is read again
            self._pages = facts_from_rows(sidecar.fact_rows())
            self._links.read(sidecar)
            self._sidecar, self._generation = sidecar.path, generation
            self._version += 1
            self._full, self._changes = self._version, []
            self.said.clear()
            return self._pages
        generation, fresh, stored = sidecar.written_since(self._generation)
        pages = self._pages
        added = [path for path in fresh if path not in pages]
        gone: list[str] = []
        if stored != len(pages) + len(added):  # pages went (or came unseen): list them all
            kept = set(sidecar.page_paths())
            fresh += [path for path in kept if path not in pages and path not in fresh]
            gone = [path for path in pages if path not in kept]
            pages = {path: page for path, page in pages.items() if path in kept}
            added = [path for path in fresh if path not in pages]
        pages.update(read_facts(sidecar, fresh))
        self._links.update(sidecar, self._generation, {*fresh, *gone})
        if added or len(pages) != len(self._pages):  # by path, as a full read orders them
            pages = {path: pages[path] for path in sorted(pages)}
        self._pages, self._generation = pages, generation
        if fresh or gone:
            self._version += 1
            self._changes.append((self._version, {*fresh, *gone}))
            for path in (*fresh, *gone):
                self.said.pop(path, None)
        return pages


#: A typed link as :meth:`Sidecar.typed_links_since` gives it.
_Row = tuple[str, int, int, str, str, str | None]


class _Links:
    """The typed links (:data:`~vault_sync.briefing.LINK_TYPES`) of one store set, by source
    page, moved on by the rows a later batch inserted or resolved again."""

    def __init__(self) -> None:
        self.by_source: dict[str, list[_Row]] = {}
        self.links: list[Link] = []  # a new list whenever one of them changed

    def read(self, sidecar: Sidecar) -> None:
        """Read them all."""
        self.by_source = {}
        for row in sidecar.typed_links_since(-1, LINK_TYPES):
            self.by_source.setdefault(row[0], []).append(row)
        self._flatten()

    def update(self, sidecar: Sidecar, generation: int, written: set[str]) -> None:
        """Read those a later batch than ``generation`` inserted or resolved again;
        ``written``: the pages written or gone since (all their links are new, or gone)."""
        read: dict[str, list[_Row]] = {}
        for row in sidecar.typed_links_since(generation, LINK_TYPES):
            read.setdefault(row[0], []).append(row)
        changed = False
        for source in written | read.keys():
            old = self.by_source.get(source, [])
            if source in written:
                new = read.get(source, [])
            else:  # links of a page not written, resolved again: each in its place
                again = {row[2]: row for row in read[source]}
                new = [again.pop(row[2], row) for row in old]
                if again:  # not there before (a batch committed meanwhile): read them all
                    self.read(sidecar)
                    return
            if new:
                self.by_source[source] = new
            else:
                self.by_source.pop(source, None)
            changed = changed or [row[3:] for row in old] != [row[3:] for row in new]
        if changed:
            self._flatten()

    def _flatten(self) -> None:
        """:attr:`links` in :meth:`Sidecar.typed_edges`' form and order (source, line, rowid)."""
        by_source = self.by_source
        self.links = [
            (row[0], row[3], row[4], row[5])
            for source in sorted(by_source)
            for row in by_source[source]
        ]


class _OutOfStepError(Exception):
    """A kept list did not hold a page where its key placed it (a bug: the view is rebuilt)."""


class _View:
    """One briefing's facts (every page, or one project's) and their :class:`Lists`, moved
    on page by page; built in full when the reference day moves."""

    def __init__(self, project: str | None, pages: dict[str, PageFacts], links: list[Link]):
        self.project, self.version = project, 0
        self.pages = {path: p for path, p in pages.items() if self._mine(p)}
        self.days = Counter(day for p in self.pages.values() for day in page_days(p))
        self.links, self.split = links, split_links(self.pages, links)
        self._build(self.split)

    def _mine(self, page: PageFacts | None) -> bool:
        return page is not None and (self.project is None or page.project == self.project)

    def _build(self, split: _Split, recent: _Recent | None = None) -> None:
        """Everything again from the pages (``recent``: the dated lists, when kept)."""
        contradicts, fixes, self.supersession = split
        day = max(self.days) if self.days else None
        superseded = superseded_by_edges(self.supersession, self.pages, day)
        self.facts = Facts(self.pages, contradicts, fixes, day, superseded)
        self.lists = lists(self.facts, recent=recent)
        self.supersession_sides = _sides((s, t) for s, _, t in self.supersession)
        self.contradicts_sides = _sides((s, t) for s, t, _ in contradicts)

    def update(self, pages: dict[str, PageFacts], changed: set[str], links: list[Link]) -> None:
        """Move the view on to ``pages`` (every page now), of which ``changed`` were read
        again or went since the last call; ``links``: every typed link now."""
        before: dict[str, PageFacts | None] = {}
        for path in changed:
            old, new = self.pages.get(path), pages.get(path)
            new = new if self._mine(new) else None
            if old is new:
                continue
            before[path] = old
            if old is not None:
                for day in page_days(old):
                    self.days[day] -= 1
                    if not self.days[day]:
                        del self.days[day]  # max() below: only the days pages hold now
            if new is not None:
                self.days.update(page_days(new))
                self.pages[path] = new  # in place: the dict stays by path
            else:
                del self.pages[path]
        if any(old is None for old in before.values()):  # by path, as a full read orders them
            self.pages = {path: self.pages[path] for path in sorted(self.pages)}
        came_or_went = any(old is None or path not in self.pages for path, old in before.items())
        if links is not self.links or came_or_went:  # else the same links of the same pages
            self.links, self.split = links, split_links(self.pages, links)
        split, was = self.split, self.facts
        if not before and split == (was.contradicts, was.fixes, self.supersession):
            return  # nothing this view shows changed
        try:
            if (max(self.days) if self.days else None) != was.day:
                # every confidence and window moves with the day; the dated lists do not
                self._build(split, self._recent(before))
            else:
                self._move(before, split)
        except _OutOfStepError:
            self._build(split)

    def _move(self, before: dict[str, PageFacts | None], split: _Split) -> None:
        touched = set(before)
        was, day = self.facts, self.facts.day
        contradicts, fixes, supersession = split
        superseded = was.superseded
        if supersession != self.supersession or any(
            _succession(before[path]) != _succession(self.pages.get(path))
            for path in touched & self.supersession_sides
        ):
            superseded = superseded_by_edges(supersession, self.pages, day)
            self.supersession = supersession
            self.supersession_sides = _sides((s, t) for s, _, t in supersession)
        facts = Facts(self.pages, contradicts, fixes, day, superseded)
        against, dirty = self.lists.against, set(touched)
        if (
            contradicts != was.contradicts
            or superseded != was.superseded
            or touched & self.contradicts_sides
        ):
            against = contradictions(facts)
            self.contradicts_sides = _sides((s, t) for s, t, _ in contradicts)
            old, new = self.lists.against.counts, against.counts
            dirty |= {path for path in old.keys() | new.keys() if old.get(path) != new.get(path)}
            dirty |= superseded.keys() ^ was.superseded.keys()
        standing, scores, bugs = self._current(facts, before, dirty, against.counts)
        fixers = self.lists.fixers if fixes == was.fixes else fixers_of(fixes)
        self.lists = Lists(against, standing, scores, bugs, fixers, *self._recent(before))
        self.facts = facts

    def _current(
        self,
        facts: Facts,
        before: dict[str, PageFacts | None],
        dirty: set[str],
        counts: dict[str, int],
    ) -> tuple[list[PageFacts], dict[str, float], list[str]]:
        """The kept standing answers (and their scores) with the ``dirty`` pages
        (``before``: the old facts of those read again) moved out and, where they belong,
        back in; the open bugs with those read again moved."""
        kept = self.lists
        standing, scores = kept.standing, kept.scores

        def placed(p: PageFacts) -> Any:
            return standing_key(p, scores[p.path])

        for path in sorted(dirty):  # out first, so every page listed has its score
            if path in scores:
                old = before.get(path) or self.pages[path]
                _drop(standing, placed(old), path, placed)
                del scores[path]
        for path in sorted(dirty):
            now = self.pages.get(path)
            if now is not None and now.kind in STANDING_KINDS and current(now, facts):
                scores[path] = page_confidence(now, facts, counts)
                insort(standing, now, key=placed)
        bugs = kept.bugs
        for path, prior in sorted(before.items()):
            for page, add in ((prior, False), (self.pages.get(path), True)):
                if page is not None and page.kind == "bug" and active(page, facts.day):
                    _place(bugs, path, path, add, None)
        return standing, scores, bugs

    def _recent(self, before: dict[str, PageFacts | None]) -> _Recent:
        """The kept sessions and changed pages with those read again (``before``: their old
        facts) moved."""
        sessions, changed = self.lists.sessions, self.lists.changed
        for path, prior in sorted(before.items()):
            for page, add in ((prior, False), (self.pages.get(path), True)):
                if page is not None and page.date:
                    listed = sessions if page.kind == "session" else changed
                    _place(listed, page, newest_key(page), add, newest_key)
        return sessions, changed


#: :func:`vault_sync.briefing.split_links`' answer: contradicts, fixes, supersession edges.
_Split = tuple[list[Edge], list[Edge], list[tuple[str, str, str]]]
#: :class:`~vault_sync.briefing.Lists`' sessions and changed pages.
_Recent = tuple[list[PageFacts], list[PageFacts]]


def _succession(page: PageFacts | None) -> tuple[str | None, ...] | None:
    """What :func:`~vault_sync.page_facts.superseded_by_edges` reads of a page."""
    return None if page is None else (page.status, page.valid_from, page.valid_to, page.date)


def _sides(pairs: Iterable[tuple[str, str | None]]) -> set[str]:
    """Every page path the ``(source, target)`` pairs of edges name."""
    return {side for pair in pairs for side in pair if side is not None}


def _drop(items: list[Any], key: Any, path: str, place: Callable[[Any], Any] | None) -> None:
    """Remove the item of ``path`` found at ``key`` in the sorted ``items``.

    Raises:
        _OutOfStepError: it is not there.
    """
    at = bisect_left(items, key, key=place)
    found = items[at] if at < len(items) else None
    if found is None or (found if place is None else found.path) != path:
        raise _OutOfStepError(path)
    del items[at]


def _place(
    items: list[Any], item: Any, key: Any, add: bool, place: Callable[[Any], Any] | None
) -> None:
    """Add ``item`` to the sorted ``items`` at ``key``, or (``add`` false) remove it."""
    if add:
        insort(items, item, key=place)
    else:
        _drop(items, key, item if place is None else item.path, place)
