"""``vault-sync brief``: the standing answers an agent reads at session start (DESIGN §6).

Markdown in sections, by priority: standing answers (active ``rule`` / ``decision`` /
``preference`` / ``procedure`` / ``gotcha`` pages in their validity window), open
contradictions, known fixes for open bugs, recent sessions, recently changed pages, and a
closing "to recall more" line. The whole fits a budget of characters (default 10,000, the cap
one major coding agent applies to injected startup text): sections are cut by priority at line
boundaries with an explicit "… N more" line, never mid-line or mid-link.

Deterministic: the same stores give the same bytes. No wall-clock time; "recent" is relative
to the newest date found in the vault (page dates, DESIGN §5.6: never file mtimes, which
differ between clones); every ordering ends with the path. Everything shown comes from the
stores, which hold only sanitized text (``clean.py`` scrubs every field before it is stored).
The text of the lines and the fitting to the budget are :mod:`vault_sync.brief_render`'s;
the watcher keeps what this module computes between refreshes (:mod:`vault_sync.brief_cache`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vault_sync.brief_render import Section, one_line, summary
from vault_sync.brief_render import render as render
from vault_sync.page import path_id, path_stem
from vault_sync.page_dates import day_of
from vault_sync.page_facts import (
    PageFacts,
    active,
    contradiction_open,
    facts_from_rows,
    superseded_by_edges,
)
from vault_sync.page_facts import page_confidence as facts_confidence
from vault_sync.store import Sidecar

#: Default budget in characters: the cap one major coding agent applies to the text injected
#: at startup (issue 12; DESIGN §6).
BUDGET_CHARS = 10_000
#: The smallest budget ``brief`` accepts: the heading, one section line and the closing line.
MIN_BUDGET_CHARS = 300
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


def gather(sidecar: Sidecar, project: str | None = None) -> Facts:
    """Read what a briefing needs from the sidecar (one project's pages, or all)."""
    pages = facts_from_rows(sidecar.fact_rows(project))
    return assemble(pages, sidecar.typed_edges(LINK_TYPES))


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


#: The shortest line a section can have, in characters: how many standing answers (and
#: their summaries, read from the index) a budget can show at most is budget / this.
MIN_LINE_CHARS = 24


#: Summaries kept between briefings: ``{path: (page, summary)}``, valid while the page's
#: facts are that very object (a page written again is read again, as a new object).
Said = dict[str, tuple[PageFacts, str]]


def sections(
    facts: Facts,
    bodies: Callable[[Iterable[str]], dict[str, str]],
    budget: int = BUDGET_CHARS,
    ordered: Lists | None = None,
    said: Said | None = None,
) -> list[Section]:
    """The briefing's sections, in priority order (``bodies``: ``{path: body}`` of the
    standing answers, for their summaries; only as many as ``budget`` could show are built;
    ``ordered``: the :func:`lists` of ``facts`` when kept; ``said``: summaries kept, updated
    with those made)."""
    ordered = lists(facts) if ordered is None else ordered
    standing, against = ordered.standing, ordered.against
    shown = standing[: budget // MIN_LINE_CHARS + 1]
    answers = _Answers(shown, bodies, against.challengers, said)
    return [
        Section("Standing answers", answers, 'vault-sync query "<topic>"', len(standing)),
        Section("Open contradictions", against.lines, "vault-sync lint"),
        Section(
            "Known fixes for open bugs",
            _fixes(facts, ordered.bugs, ordered.fixers),
            'vault-sync query "<bug>" --kind bug',
        ),
        Section(
            "Recent sessions",
            _Lines(ordered.sessions, _session_line),
            'vault-sync query "<topic>" --kind session',
        ),
        Section(
            "Recently changed pages",
            _Lines(ordered.changed, lambda p: f"- {p.date} {wikilink(p)} ({p.kind})"),
            'vault-sync query "<topic>"',
        ),
    ]


class _Answers(Sequence[str]):
    """The standing-answer lines, built on first use in chunks (each line needs its page's
    body from the index, for the summary): a budget shows only the first few dozen."""

    CHUNK = 32

    def __init__(
        self,
        pages: list[PageFacts],
        bodies: Callable[[Iterable[str]], dict[str, str]],
        challengers: dict[str, list[PageFacts]],
        said: Said | None = None,
    ):
        self.pages, self.bodies, self.built = pages, bodies, list[str]()
        self.challengers, self.said = challengers, said

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        while index >= len(self.built) and len(self.built) < len(self.pages):
            chunk = self.pages[len(self.built) : len(self.built) + self.CHUNK]
            self.built += [
                _answer(p, said, self.challengers.get(p.path, []))
                for p, said in zip(chunk, self._summaries(chunk), strict=True)
            ]
        return self.built[index]

    def _summaries(self, chunk: list[PageFacts]) -> list[str]:
        kept = {} if self.said is None else self.said
        new = [p for p in chunk if kept.get(p.path, (None,))[0] is not p]
        texts = self.bodies(p.path for p in new) if new else {}
        for p in new:
            kept[p.path] = (p, summary(p.summary, texts.get(p.path, "")))
        return [kept[p.path][1] for p in chunk]


def _answer(page: PageFacts, said: str, challengers: list[PageFacts]) -> str:
    """One standing answer's line; a page with nothing to summarise ends at its count. The
    target of an open contradiction says by whom, so an agent reading only this section
    does not follow it unwarned (the pair is under "Open contradictions" too)."""
    against = "".join(f"; contradicted by {wikilink(c)}" for c in challengers)
    head = f"- {wikilink(page)} ({page.kind}, {page.evidence_count} evidence{against})"
    return f"{head}: {said}" if said else head


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


class _Lines(Sequence[str]):
    """A section's lines, each made from its item when read: a budget shows a few dozen of
    thousands (a 10,000-page vault has ~9,000 dated pages, ~1,000 open bugs)."""

    def __init__(self, items: Sequence[Any], line: Callable[[Any], str]):
        self.items, self.line = items, line

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self.line(item) for item in self.items[index]]
        return self.line(self.items[index])


def fixers_of(fixes: Iterable[Edge]) -> dict[str | None, set[str]]:
    """The pages that fix each target (``fixes`` edges of :class:`Facts`), by target path."""
    fixers: dict[str | None, set[str]] = {}
    for source, target, _ in fixes:
        fixers.setdefault(target, set()).add(source)
    return fixers


def _fixes(facts: Facts, bugs: list[str], fixers: dict[str | None, set[str]]) -> Sequence[str]:
    def line(bug: str) -> str:
        found = sorted(fixers.get(bug, ()))
        links = ", ".join(wikilink(facts.pages[f]) for f in found)
        shown = f"fixed by {links}" if found else "no known fix yet"
        return f"- {wikilink(facts.pages[bug])}: {shown}"

    return _Lines(bugs, line)


def _session_line(p: PageFacts) -> str:
    by = f" ({one_line(p.agent)})" if p.agent and p.agent.strip() else ""
    return f"- {p.date} {wikilink(p)}{by}"
