"""What a briefing is built from, and the orders its sections are cut in (DESIGN §6).

:class:`Facts` holds the pages a briefing covers (their :class:`~vault_sync.page_facts.PageFacts`),
the ``contradicts`` and ``fixes`` edges and the vault's reference day (the newest page date:
never the wall clock), put together from sidecar rows by :func:`assemble`. :func:`lists` cuts
them into the sorted :class:`Lists` the sections are taken from: the current standing answers by
confidence, the open :class:`Contradictions`, the active bugs with their fixers, the sessions
and the changed pages newest first; every ordering ends with the path, so the same stores give
the same bytes. :mod:`vault_sync.briefing` turns them into sections; the watcher keeps them
between refreshes (:mod:`vault_sync.brief_cache`), placing a page by :func:`standing_key` and
:func:`newest_key`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from vault_sync.brief_render import one_line
from vault_sync.page import path_id, path_stem
from vault_sync.page_dates import day_of
from vault_sync.page_facts import (
    PageFacts,
    active,
    contradiction_open,
    superseded_by_edges,
)
from vault_sync.page_facts import page_confidence as facts_confidence

#: Kinds whose active pages are standing answers (DESIGN §6).
STANDING_KINDS = ("rule", "decision", "preference", "procedure", "gotcha")


@dataclass
class Facts:
    """What a briefing is built from: pages by path, ``contradicts`` and ``fixes`` edges as
    ``(source, target_path or None, target_text)``, and the reference day (the newest page
    date or ``valid_from`` in the vault); ``superseded``: old path -> successor, by
    ``supersedes`` / ``superseded_by`` edges (:func:`vault_sync.page_facts.superseded_by_edges`)."""

    pages: dict[str, PageFacts]
    contradicts: list[tuple[str, str | None, str]] = field(default_factory=list)
    fixes: list[tuple[str, str | None, str]] = field(default_factory=list)
    day: str | None = None
    superseded: dict[str, str] = field(default_factory=dict)


#: The typed links a briefing reads (contradictions, fixes, supersession).
LINK_TYPES = ("contradicts", "fixes", "supersedes", "superseded_by")


def page_days(page: PageFacts) -> list[str]:
    """The days a page adds to the vault's reference day (:func:`reference_day`): its date
    and the day its validity starts (a page valid from a day holds that day as a fact of the
    vault; an end date may lie in the future, so not those)."""
    start = day_of(page.valid_from) if page.valid_from else None
    return [d for d in (page.date, start) if d]


def reference_day(pages: dict[str, PageFacts]) -> str | None:
    """The newest day of :func:`page_days` over ``pages``, or ``None``."""
    days = [p.date for p in pages.values() if p.date]
    days += [d for p in pages.values() if p.valid_from and (d := day_of(p.valid_from))]
    return max(days, default=None)


#: A link as :meth:`Sidecar.typed_edges` gives it: (source, type, target_text, target_path).
Link = tuple[str, str, str, str | None]
#: A ``contradicts`` or ``fixes`` edge as :class:`Facts` holds it: (source, target_path or
#: None, target_text).
Edge = tuple[str, str | None, str]


def split_links(
    pages: dict[str, PageFacts], links: Iterable[Link]
) -> tuple[list[Edge], list[Edge], list[tuple[str, str, str]]]:
    """``(contradicts, fixes, supersession)`` edges of the ``links`` whose source is one of
    ``pages``, in the links' order: the first two as :class:`Facts` holds them, the last as
    ``(source, type, target_path)`` of the resolved ``supersedes`` / ``superseded_by``
    links (what :func:`vault_sync.page_facts.superseded_by_edges` reads)."""
    contradicts: list[Edge] = []
    fixes: list[Edge] = []
    supersession: list[tuple[str, str, str]] = []
    for source, kind, text, target in links:
        if source not in pages:
            continue
        if kind == "contradicts":
            contradicts.append((source, target, text))
        elif kind == "fixes":
            fixes.append((source, target, text))
        elif target is not None:
            supersession.append((source, kind, target))
    return contradicts, fixes, supersession


def assemble(pages: dict[str, PageFacts], links: Iterable[Link]) -> Facts:
    """The :class:`Facts` of ``pages`` (by path: every page the briefing covers) and the
    sidecar's ``links`` of :data:`LINK_TYPES` (:meth:`Sidecar.typed_edges` rows; links from
    other pages are left out)."""
    day = reference_day(pages)
    contradicts, fixes, supersession = split_links(pages, links)
    superseded = superseded_by_edges(supersession, pages, day)
    return Facts(pages, contradicts, fixes, day, superseded)


def wikilink(page: PageFacts) -> str:
    """``[[stem]]`` when the title is the stem, else ``[[folder/stem|title]]``; brackets and
    pipes in a title are spaced out so a link never breaks."""
    title = _in_link(page.title)
    return (
        f"[[{title}]]"
        if path_stem(page.path) == page.title
        else f"[[{path_id(page.path)}|{title}]]"
    )


def _in_link(text: str) -> str:
    """``text`` fit for a wikilink's target or display (:func:`one_line`), a
    ``[REDACTED:label]`` placeholder in it written ``(REDACTED:label)``: one at the end made
    ``…label]]]``, which ends the link early in Obsidian (fresh-user report)."""
    if "[REDACTED:" in text:  # imported here: the sanitizer package costs a briefing ~20 ms
        from vault_sync.sanitize.rule import TOKEN_RE

        text = TOKEN_RE.sub(lambda m: f"({m.group()[1:-1]})", text)
    return one_line(text)


def current(page: PageFacts, facts: Facts) -> bool:
    """Active on the vault's newest day and not superseded by an active page's edge."""
    return active(page, facts.day) and page.path not in facts.superseded


def page_confidence(page: PageFacts, facts: Facts, open_edges: dict[str, int]) -> float:
    """:func:`vault_sync.page_facts.page_confidence` aged to the vault's newest day
    (``open_edges``: unresolved ``contradicts`` edges per path, :attr:`Contradictions.counts`)."""
    return facts_confidence(page, facts.day, open_edges.get(page.path, 0))


@dataclass(frozen=True)
class Contradictions:
    """The open ``contradicts`` edges of a :class:`Facts`, read once for every part that
    shows them (:func:`contradictions`).

    Attributes:
        counts: unresolved edges per page path, either direction (for confidence).
        challengers: ``{target path: challenger pages}``, each list by path (a page named
            twice counts once).
        lines: the "Open contradictions" lines, sorted; each pair once, as its first edge
            (in the links' order) states it.
    """

    counts: dict[str, int]
    challengers: dict[str, list[PageFacts]]
    lines: list[str]


def contradictions(facts: Facts) -> Contradictions:
    """The :class:`Contradictions` of ``facts``."""
    counts: dict[str, int] = {}
    found: dict[str, dict[str, PageFacts]] = {}
    lines, seen = [], set()
    for source, target, text in facts.contradicts:
        if not _open_contradiction(facts, source, target):
            continue
        for side in {source, target} - {None}:
            counts[str(side)] = counts.get(str(side), 0) + 1
        if target is not None:
            found.setdefault(target, {})[source] = facts.pages[source]
        pair = tuple(sorted((source, target or text)))
        if pair not in seen:
            seen.add(pair)
            lines.append(_contradiction_line(facts, source, target, text))
    challengers = {path: [mine[p] for p in sorted(mine)] for path, mine in found.items()}
    return Contradictions(counts, challengers, sorted(lines))


def _open_contradiction(facts: Facts, source: str, target: str | None) -> bool:
    """:func:`vault_sync.page_facts.contradiction_open` on the vault's newest day."""
    other = facts.pages.get(target) if target else None
    return contradiction_open(facts.pages.get(source), other, facts.day, facts.superseded)


class Descending:
    """A value that sorts in reverse, for keys with descending and ascending parts (the
    kept orders of :mod:`vault_sync.brief_cache` place a page by such a key; a full sort
    here uses two stable sorts instead, which need no object per page)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: Descending) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and bool(self.value == other.value)

    __hash__ = None  # type: ignore[assignment]


def standing_key(page: PageFacts, score: float) -> tuple[Descending, str]:
    """A standing answer's place (``score``: its :func:`page_confidence`): confidence, then
    distinct supporting sessions, then the newest evidence, each descending, then path."""
    return Descending((score, page.sessions, page.newest_evidence)), page.path


def newest_key(page: PageFacts) -> tuple[Descending, str]:
    """A dated page's place in the recent lists: its date descending, then path."""
    return Descending(page.date or ""), page.path


@dataclass
class Lists:
    """What the sections are cut from, each in its order (:func:`lists`).

    Attributes:
        against: the open contradictions (:func:`contradictions`).
        standing: the current pages of :data:`STANDING_KINDS`, by :func:`standing_key`.
        scores: their :func:`page_confidence` by path.
        bugs: the paths of the active ``bug`` pages, sorted.
        fixers: the pages fixing each target (:func:`fixers_of`).
        sessions: the dated ``session`` pages, by :func:`newest_key`.
        changed: the other dated pages, by :func:`newest_key`.
    """

    against: Contradictions
    standing: list[PageFacts]
    scores: dict[str, float]
    bugs: list[str]
    fixers: dict[str | None, set[str]]
    sessions: list[PageFacts]
    changed: list[PageFacts]


def lists(
    facts: Facts,
    against: Contradictions | None = None,
    recent: tuple[list[PageFacts], list[PageFacts]] | None = None,
) -> Lists:
    """The :class:`Lists` of ``facts`` (``against``: its contradictions, when known;
    ``recent``: its sessions and changed pages, when known: they do not depend on the day)."""
    against = contradictions(facts) if against is None else against
    pages, day = facts.pages, facts.day
    standing = [p for p in pages.values() if p.kind in STANDING_KINDS and current(p, facts)]
    scores = {p.path: page_confidence(p, facts, against.counts) for p in standing}
    standing.sort(key=lambda p: p.path)  # the tie-break; the stable sort below keeps it
    standing.sort(key=lambda p: (scores[p.path], p.sessions, p.newest_evidence), reverse=True)
    bugs = sorted(p.path for p in pages.values() if p.kind == "bug" and active(p, day))
    if recent is None:
        sessions = [p for p in pages.values() if p.kind == "session" and p.date]
        changed = [p for p in pages.values() if p.kind != "session" and p.date]
        recent = _newest_first(sessions), _newest_first(changed)
    return Lists(against, standing, scores, bugs, fixers_of(facts.fixes), *recent)


def _newest_first(pages: list[PageFacts]) -> list[PageFacts]:
    """Pages by date, newest first, then by path (two stable sorts: no key per page)."""
    pages.sort(key=lambda p: p.path)
    pages.sort(key=lambda p: p.date or "", reverse=True)
    return pages


def _link_of(facts: Facts, path: str | None, text: str) -> str:
    page = facts.pages.get(path) if path else None
    return wikilink(page) if page else f"[[{_in_link(text)}]]"


def _contradiction_line(facts: Facts, source: str, target: str | None, text: str) -> str:
    a, b = facts.pages[source], facts.pages.get(target) if target else None
    if b is None:
        return f"- {wikilink(a)} contradicts {_link_of(facts, None, text)} (no such page yet)"
    if a.date is None and b.date is None:  # neither side dated: no "newer" to tell
        return f"- {wikilink(a)} contradicts {wikilink(b)} (neither is dated)"
    newer = a if (a.date or "", a.path) >= (b.date or "", b.path) else b
    return f"- {wikilink(a)} contradicts {wikilink(b)}; newer: {wikilink(newer)} ({newer.date})"


def fixers_of(fixes: Iterable[Edge]) -> dict[str | None, set[str]]:
    """The pages that fix each target (``fixes`` edges of :class:`Facts`), by target path."""
    fixers: dict[str | None, set[str]] = {}
    for source, target, _ in fixes:
        fixers.setdefault(target, set()).add(source)
    return fixers
