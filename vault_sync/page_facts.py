"""What the vault knows about a page beyond its text, and the rules over it, shared by ranking
(:mod:`vault_sync.ranking`) and briefing (:mod:`vault_sync.briefing`): status and validity
window, evidence, typed edges; whether a page is active on a day, superseded, or the side of a
contradiction still open; its confidence (DESIGN §5.4-5.6).

Layer 4 (STYLE.md): reads the sidecar (:mod:`vault_sync.store`) through its queries, holds no
SQL. One home for these rules, so ``query`` and ``brief`` never disagree on what is current.
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vault_sync.confidence import Support, confidence
from vault_sync.page_dates import day_of, days_between
from vault_sync.store import Sidecar

#: Statuses that leave a page out of what is current (DESIGN §2).
NOT_CURRENT = frozenset({"superseded", "archived", "historical"})


@dataclass(frozen=True)
class PageFacts:
    """One page's facts from the sidecar.

    Attributes:
        path, title, kind, status, project: the page's stored fields.
        valid_from, valid_to: its validity window as written (ISO text), or ``None``.
        date: its day (DESIGN §5.6: ``date`` key, else newest evidence ``at``, else
            ``valid_from``), ``YYYY-MM-DD`` or ``None``.
        agent, summary: the ``agent`` and ``summary`` keys when they are strings.
        evidence_count: its evidence entries (a repeated ``kind:source`` once).
        sessions: distinct ``session`` evidence sources.
        other_evidence: distinct evidence entries that are not sessions.
        newest_evidence: the newest dated evidence day, or ``""``.
        (The four kept in the page's row at write time:
        :func:`vault_sync.store.columns.evidence_sums`.)
    """

    path: str
    title: str
    kind: str
    status: str
    project: str | None
    valid_from: str | None
    valid_to: str | None
    date: str | None
    agent: str | None = None
    summary: str | None = None
    evidence_count: int = 0
    sessions: int = 0
    other_evidence: int = 0
    newest_evidence: str = ""


def facts_from_rows(rows: Iterable[Sequence[Any]]) -> dict[str, PageFacts]:
    """``{path: PageFacts}`` from :meth:`Sidecar.fact_rows` tuples, read by position in the
    order it selects its columns (those of :class:`PageFacts`, the ``date`` key's value in
    place of the page's day); columns after those are ignored."""
    pages = {}
    # Built past the frozen dataclass's __init__ (one object.__setattr__ per field): ``brief``
    # builds every page's facts, 10,000 at 10k pages (13 -> 8 ms there); same fields, same
    # equality and hash.
    new, fields = object.__new__, _FIELDS
    for row in rows:
        facts = new(PageFacts)
        values = facts.__dict__
        values.update(zip(fields, row))  # noqa: B905 (rows may hold more columns)
        # page_date's order: the date key, else the newest evidence, else valid_from
        values["date"] = day_of(row[7]) or row[13] or day_of(row[5])
        pages[row[0]] = facts
    return pages


#: The fields of :class:`PageFacts`, in order (for :func:`facts_from_rows`).
_FIELDS = tuple(f.name for f in dataclasses.fields(PageFacts))


def read_facts(sidecar: Sidecar, paths: Iterable[str]) -> dict[str, PageFacts]:
    """The facts of the pages at ``paths`` that exist (one query)."""
    return facts_from_rows(sidecar.fact_rows(paths=sorted(set(paths))))


#: Most pages whose sidecar reads one open sidecar keeps for the ranking (:func:`ranked_facts`;
#: ~1 kB a page): past it the kept reads are dropped and read again as asked.
KEPT_PAGES_MAX = 20_000


@dataclass
class _Kept:
    """What the ranking read of one open sidecar at one ``generation``: facts, rule links
    (pages whose links were read) and tags (pages whose tags were read), by path."""

    generation: int
    facts: dict[str, PageFacts] = dataclasses.field(default_factory=dict)
    links: dict[str, tuple[tuple[str, str, str], ...]] = dataclasses.field(default_factory=dict)
    tags: dict[str, list[str]] = dataclasses.field(default_factory=dict)


_KEPT: weakref.WeakKeyDictionary[Sidecar, _Kept] = weakref.WeakKeyDictionary()


def _kept(sidecar: Sidecar) -> _Kept:
    """The reads kept for ``sidecar``, emptied when a batch has been recorded complete since
    they were read (its ``generation`` moved: every write of the sidecar is a batch that
    moves it, :meth:`~vault_sync.store.Sidecar.apply_batch`) or when they grew too many."""
    kept = _KEPT.get(sidecar)
    generation = sidecar.generation
    if kept is None or kept.generation != generation or len(kept.facts) > KEPT_PAGES_MAX:
        kept = _KEPT[sidecar] = _Kept(generation)
    return kept


def ranked_facts(
    sidecar: Sidecar, paths: Iterable[str], tags_of: Iterable[str] = ()
) -> tuple[dict[str, PageFacts], list[tuple[str, str, str]], dict[str, list[str]]]:
    """``(facts, rule links, tags)`` of the pages at ``paths``: the facts of those stored,
    the rule links touching them (sorted, each once) and the tags of those in ``tags_of``
    (:meth:`~vault_sync.store.Sidecar.rank_rows`, one statement); the facts of the far ends
    of the links that the rules read (:func:`read_by_rules`) are read with them (a second
    statement) and kept for :func:`kept_facts`. Read once per page while the sidecar's
    generation stays: a long-lived reader (the MCP server) reads again only the pages no
    query read since the last write."""
    kept = _kept(sidecar)
    wanted = set(paths)
    if need := sorted(p for p in wanted if p not in kept.links):
        read = sidecar.rank_rows(need)
        found: set[tuple[str, str, str]] = set()
        for row, touching, tags in read:
            kept.links[row[0]] = touching
            kept.tags[row[0]] = tags
            found.update(touching)
        kept.facts.update(facts_from_rows(row for row, _, _ in read))
        for path in need:
            kept.links.setdefault(path, ())  # not stored: no facts, no links
        if ends := [p for p in read_by_rules(found) if p not in kept.facts and p not in wanted]:
            kept.facts.update(read_facts(sidecar, ends))
    facts = {p: kept.facts[p] for p in sorted(wanted) if p in kept.facts}
    links = sorted({link for p in wanted for link in kept.links[p]})
    return facts, links, {p: kept.tags[p] for p in tags_of if p in kept.tags}


def kept_facts(sidecar: Sidecar, paths: Iterable[str]) -> dict[str, PageFacts]:
    """:func:`read_facts`, kept as :func:`ranked_facts` keeps its reads."""
    kept = _kept(sidecar)
    wanted = set(paths)
    if need := wanted - kept.facts.keys():
        kept.facts.update(read_facts(sidecar, need))
    return {p: kept.facts[p] for p in sorted(wanted) if p in kept.facts}


def in_window(page: PageFacts, day: str | None) -> bool:
    """``day`` lies inside the page's validity window (inclusive); ``None`` is inside every
    window. An end or start that is not an ISO date is no bound."""
    if day is None:
        return True
    start, end = day_of(page.valid_from), day_of(page.valid_to)
    return (start is None or start <= day) and (end is None or day <= end)


def active(page: PageFacts, day: str | None) -> bool:
    """Status ``active``, and ``day`` inside its validity window."""
    return page.status == "active" and in_window(page, day)


def _successions(edges: Iterable[tuple[str, str, str]]) -> Iterator[tuple[str, str]]:
    """``(successor, replaced)`` of each ``A supersedes B`` / ``B superseded_by A`` edge."""
    for source, edge, target in edges:
        if edge == "supersedes":
            yield source, target
        elif edge == "superseded_by":
            yield target, source


def superseded_by_edges(
    edges: Iterable[tuple[str, str, str]], pages: Mapping[str, PageFacts], day: str | None
) -> dict[str, str]:
    """``{old path: successor path}`` from ``(source, type, target_path)`` edges: ``A
    supersedes B`` and ``B superseded_by A`` make ``B`` superseded when ``A`` is a page not
    itself out of what is current (status) and valid on ``day`` — and, when ``day`` is
    given (``--as-of``), ``A`` started by then (its ``valid_from``, else its date). The
    first successor by path wins."""
    out: dict[str, str] = {}
    for new, old in _successions(sorted(edges)):
        successor = pages.get(new)
        if successor is None or new == old or successor.status in NOT_CURRENT:
            continue
        if day is not None:
            began = day_of(successor.valid_from) or successor.date
            if not in_window(successor, day) or (began is not None and began > day):
                continue
        out.setdefault(old, new)
    return out


def superseded_on(
    edges: Iterable[tuple[str, str, str]], pages: Mapping[str, PageFacts], day: str | None
) -> set[str]:
    """The pages that ``(source, type, target_path)`` edges (``A supersedes B``, ``B
    superseded_by A``) name as replaced by a successor ``pages`` holds that had begun by
    ``day`` (its ``valid_from``, else its date; one with neither, or any when ``day`` is
    ``None``, counts) — whatever the successor's status now, which may say it was replaced
    later itself. The ``--as-of`` status of a page (``vault_sync.ranking``)."""
    out: set[str] = set()
    for new, old in _successions(edges):
        successor = pages.get(new)
        if successor is None or new == old:
            continue
        began = day_of(successor.valid_from) or successor.date
        if day is None or began is None or began <= day:
            out.add(old)
    return out


def read_by_rules(edges: Iterable[tuple[str, str, str]]) -> set[str]:
    """The pages whose facts :func:`superseded_by_edges` and :func:`contradiction_open` read
    over ``(source, type, target_path)`` edges: each successor, and both sides of each
    ``contradicts`` edge (the page a successor replaces is only named)."""
    out: set[str] = set()
    for source, edge, target in edges:
        if edge == "supersedes":
            out.add(source)
        elif edge == "superseded_by":
            out.add(target)
        elif edge == "contradicts":
            out.update((source, target))
    return out


def contradiction_open(
    source: PageFacts | None,
    target: PageFacts | None,
    day: str | None,
    superseded: Mapping[str, str] | None = None,
) -> bool:
    """A ``contradicts`` edge from ``source`` to ``target`` is unresolved until either side
    is superseded (by status or by an edge: ``superseded``), archived or outside its window
    on ``day`` (DESIGN §5.4; issue 10, item 5: the challenger superseded settles it too). A
    target that is no page yet keeps it open; a missing source closes it."""
    gone = superseded or {}
    if source is None:
        return False
    for side in (source, target):
        if side is not None and (not active(side, day) or side.path in gone):
            return False
    return True


def page_confidence(page: PageFacts, day: str | None, open_edges: int) -> float:
    """:func:`vault_sync.confidence.confidence` of a page, its newest evidence (else its own
    date) aged to ``day``, with ``open_edges`` unresolved contradictions."""
    newest = page.newest_evidence or page.date
    age = days_between(newest, day) if newest and day else None
    if not page.evidence_count:  # most pages: no support to count
        return _confidence(0, 0, age, open_edges)
    return _confidence(page.sessions, page.other_evidence, age, open_edges)


@functools.lru_cache(maxsize=4096)  # the ranking asks for ~100 pages a query, most alike
def _confidence(sessions: int, other: int, age: int | None, open_edges: int) -> float:
    return confidence(Support(sessions, other, age, open_edges))
