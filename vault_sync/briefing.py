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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

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
from vault_sync.plaintext import to_plain
from vault_sync.sanitize.rule import TOKEN_RE
from vault_sync.store import Sidecar

#: Default budget in characters: the cap one major coding agent applies to the text injected
#: at startup (issue 12; DESIGN §6).
BUDGET_CHARS = 10_000
#: The smallest budget ``brief`` accepts: the heading, one section line and the closing line.
MIN_BUDGET_CHARS = 300
#: Kinds whose active pages are standing answers (DESIGN §6).
STANDING_KINDS = ("rule", "decision", "preference", "procedure", "gotcha")
#: Most recent sessions and recently changed pages listed before "… N more".
RECENT_SESSIONS = 5
RECENT_PAGES = 10
#: Longest one-line summary, in characters, cut at a word boundary.
SUMMARY_MAX_CHARS = 160

_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])")
_SKIP_LINE = re.compile(r"\s*(?:#|\||<!--|!\[\[|---|\*\*\*|___)")


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
    pages = facts_from_rows(sidecar.fact_rows(project), sidecar.evidence_rows())
    return assemble(pages, sidecar.typed_links(LINK_TYPES))


def assemble(pages: dict[str, PageFacts], links: Iterable[Any]) -> Facts:
    """The :class:`Facts` of ``pages`` (by path: every page the briefing covers) and the
    sidecar's ``links`` of :data:`LINK_TYPES` (:meth:`Sidecar.typed_links` rows; links from
    other pages are left out)."""
    # The reference day: the newest page date or validity start (a page valid from a day
    # holds that day as a fact of the vault; an end date may lie in the future, so not those).
    days = [p.date for p in pages.values() if p.date]
    days += [d for p in pages.values() if p.valid_from and (d := day_of(p.valid_from))]
    facts = Facts(pages, day=max(days, default=None))
    edges = []
    for link in links:
        if link["source"] not in pages:
            continue
        edge = (link["source"], link["target_path"], link["target_text"])
        if link["type"] in ("supersedes", "superseded_by"):
            if link["target_path"] is not None:
                edges.append((link["source"], link["type"], link["target_path"]))
            continue
        (facts.contradicts if link["type"] == "contradicts" else facts.fixes).append(edge)
    facts.superseded = superseded_by_edges(edges, pages, facts.day)
    return facts


def wikilink(page: PageFacts) -> str:
    """``[[stem]]`` when the title is the stem, else ``[[folder/stem|title]]``; brackets and
    pipes in a title are spaced out so a link never breaks."""
    title = _safe(page.title)
    return (
        f"[[{title}]]"
        if path_stem(page.path) == page.title
        else f"[[{path_id(page.path)}|{title}]]"
    )


def _safe(text: str) -> str:
    """``text`` fit for a wikilink's target or display: a ``[REDACTED:label]`` placeholder
    becomes ``(REDACTED:label)`` (one at the end made ``…label]]]``, which ends the link
    early in Obsidian), other ``[[``, ``]]`` and ``|`` are spaced out or made ``/``."""
    if "[REDACTED:" in text:
        text = TOKEN_RE.sub(lambda m: f"({m.group()[1:-1]})", text)
    return " ".join(text.replace("[[", "[ [").replace("]]", "] ]").replace("|", "/").split())


def current(page: PageFacts, facts: Facts) -> bool:
    """Active on the vault's newest day and not superseded by an active page's edge."""
    return active(page, facts.day) and page.path not in facts.superseded


def page_confidence(page: PageFacts, facts: Facts, open_edges: dict[str, int]) -> float:
    """:func:`vault_sync.page_facts.page_confidence` aged to the vault's newest day
    (``open_edges``: unresolved ``contradicts`` edges per path, :func:`open_counts`)."""
    return facts_confidence(page, facts.day, open_edges.get(page.path, 0))


def open_counts(facts: Facts) -> dict[str, int]:
    """Unresolved ``contradicts`` edges per page path, either direction."""
    counts: dict[str, int] = {}
    for source, target, _ in facts.contradicts:
        if _open_contradiction(facts, source, target):
            for side in {source, target} - {None}:
                counts[str(side)] = counts.get(str(side), 0) + 1
    return counts


def _open_contradiction(facts: Facts, source: str, target: str | None) -> bool:
    """:func:`vault_sync.page_facts.contradiction_open` on the vault's newest day."""
    other = facts.pages.get(target) if target else None
    return contradiction_open(facts.pages.get(source), other, facts.day, facts.superseded)


def summary(page: PageFacts, body: str) -> str:
    """The ``summary`` key, else the first sentence of the first paragraph of ``body``, as
    plain text on one line, cut at a word boundary to :data:`SUMMARY_MAX_CHARS`."""
    text = page.summary
    if not text or not text.strip():
        text = _first_sentence(body)
    text = _safe(text)
    if len(text) <= SUMMARY_MAX_CHARS:
        return text
    cut = text[: SUMMARY_MAX_CHARS - 1]
    cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return cut.rstrip(" ,;:") + "…"


def _first_sentence(body: str) -> str:
    paragraph: list[str] = []
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            if paragraph:
                break
            continue
        if fenced or (not paragraph and (not line.strip() or _SKIP_LINE.match(line))):
            continue
        if not line.strip() or _SKIP_LINE.match(line):
            break
        paragraph.append(line.strip())
    plain = " ".join(to_plain(" ".join(paragraph)).text.split())
    return _SENTENCE_END.split(plain, maxsplit=1)[0].strip()


@dataclass(frozen=True)
class Section:
    """One section: its heading, its first lines in order (``total``: how many it has in
    all, when only the first are built), and the command a reader runs for the lines cut."""

    heading: str
    lines: Sequence[str]
    more: str
    total: int = -1

    @property
    def count(self) -> int:
        """How many lines the section has in all."""
        return len(self.lines) if self.total < 0 else self.total


#: The shortest line a section can have, in characters: how many standing answers (and
#: their summaries, read from the index) a budget can show at most is budget / this.
MIN_LINE_CHARS = 24


def sections(
    facts: Facts,
    bodies: Callable[[Iterable[str]], dict[str, str]],
    budget: int = BUDGET_CHARS,
) -> list[Section]:
    """The briefing's sections, in priority order (``bodies``: ``{path: body}`` of the
    standing answers, for their summaries; only as many as ``budget`` could show are built)."""
    pages = facts.pages
    standing = [p for p in pages.values() if p.kind in STANDING_KINDS and current(p, facts)]
    edges = open_counts(facts)
    scores = {p.path: page_confidence(p, facts, edges) for p in standing}
    standing.sort(key=lambda p: p.path)  # the tie-break; the stable sort below keeps it
    standing.sort(key=lambda p: (scores[p.path], p.sessions, p.newest_evidence), reverse=True)
    answers = _Answers(standing[: budget // MIN_LINE_CHARS + 1], bodies, _challengers(facts))
    return [
        Section("Standing answers", answers, 'vault-sync query "<topic>"', len(standing)),
        Section("Open contradictions", _contradictions(facts), "vault-sync lint"),
        Section("Known fixes for open bugs", _fixes(facts), 'vault-sync query "<bug>" --kind bug'),
        Section("Recent sessions", _sessions(facts), 'vault-sync query "<topic>" --kind session'),
        Section("Recently changed pages", _changed(facts), 'vault-sync query "<topic>"'),
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
    ):
        self.pages, self.bodies, self.built = pages, bodies, list[str]()
        self.challengers = challengers

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        while index >= len(self.built) and len(self.built) < len(self.pages):
            chunk = self.pages[len(self.built) : len(self.built) + self.CHUNK]
            texts = self.bodies(p.path for p in chunk)
            self.built += [
                _answer(p, summary(p, texts.get(p.path, "")), self.challengers.get(p.path, []))
                for p in chunk
            ]
        return self.built[index]


def _answer(page: PageFacts, said: str, challengers: list[PageFacts]) -> str:
    """One standing answer's line; a page with nothing to summarise ends at its count. The
    target of an open contradiction says by whom, so an agent reading only this section
    does not follow it unwarned (the pair is under "Open contradictions" too)."""
    against = "".join(f"; contradicted by {wikilink(c)}" for c in challengers)
    head = f"- {wikilink(page)} ({page.kind}, {len(page.evidence)} evidence{against})"
    return f"{head}: {said}" if said else head


def _challengers(facts: Facts) -> dict[str, list[PageFacts]]:
    """``{target path: challenger pages}`` of the open ``contradicts`` edges, each list by
    path (a page named twice counts once)."""
    out: dict[str, dict[str, PageFacts]] = {}
    for source, target, _ in facts.contradicts:
        if target is not None and _open_contradiction(facts, source, target):
            out.setdefault(target, {})[source] = facts.pages[source]
    return {path: [found[p] for p in sorted(found)] for path, found in out.items()}


def _newest_first(pages: list[PageFacts]) -> list[PageFacts]:
    """Pages by date, newest first, then by path (two stable sorts: no key per page)."""
    pages.sort(key=lambda p: p.path)
    pages.sort(key=lambda p: p.date or "", reverse=True)
    return pages


def _link_of(facts: Facts, path: str | None, text: str) -> str:
    page = facts.pages.get(path) if path else None
    return wikilink(page) if page else f"[[{_safe(text)}]]"


def _contradictions(facts: Facts) -> list[str]:
    lines, seen = [], set()
    for source, target, text in facts.contradicts:
        pair = tuple(sorted((source, target or text)))
        if pair in seen or not _open_contradiction(facts, source, target):
            continue
        seen.add(pair)
        a, b = facts.pages[source], facts.pages.get(target) if target else None
        if b is None:
            lines.append(
                f"- {wikilink(a)} contradicts {_link_of(facts, None, text)} (no such page yet)"
            )
            continue
        if a.date is None and b.date is None:  # neither side dated: no "newer" to tell
            lines.append(f"- {wikilink(a)} contradicts {wikilink(b)} (neither is dated)")
            continue
        newer = a if (a.date or "", a.path) >= (b.date or "", b.path) else b
        lines.append(
            f"- {wikilink(a)} contradicts {wikilink(b)}; newer: {wikilink(newer)} ({newer.date})"
        )
    return sorted(lines)


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


def _fixes(facts: Facts) -> Sequence[str]:
    day = facts.day
    bugs = sorted(p.path for p in facts.pages.values() if p.kind == "bug" and active(p, day))
    open_bugs = set(bugs)
    fixers: dict[str, set[str]] = {}
    for source, target, _ in facts.fixes:
        if target in open_bugs:
            fixers.setdefault(target, set()).add(source)

    def line(bug: str) -> str:
        found = sorted(fixers.get(bug, ()))
        links = ", ".join(wikilink(facts.pages[f]) for f in found)
        shown = f"fixed by {links}" if found else "no known fix yet"
        return f"- {wikilink(facts.pages[bug])}: {shown}"

    return _Lines(bugs, line)


def _session_line(p: PageFacts) -> str:
    by = f" ({_safe(p.agent)})" if p.agent and p.agent.strip() else ""
    return f"- {p.date} {wikilink(p)}{by}"


def _sessions(facts: Facts) -> Sequence[str]:
    sessions = [p for p in facts.pages.values() if p.kind == "session" and p.date]
    return _Lines(_newest_first(sessions), _session_line)


def _changed(facts: Facts) -> Sequence[str]:
    changed = [p for p in facts.pages.values() if p.kind != "session" and p.date]
    return _Lines(_newest_first(changed), lambda p: f"- {p.date} {wikilink(p)} ({p.kind})")


def render(
    parts: Sequence[Section], *, project: str | None, budget: int
) -> tuple[str, dict[str, Any]]:
    """The briefing text within ``budget`` characters, and per section ``{"shown", "total"}``.

    Sections are filled in order; a section whose lines do not all fit ends with
    ``- … N more: `COMMAND``` (the recent lists also stop at their own caps), and a section
    none of whose lines fits is still named, with that line alone (a whole section never
    vanishes silently: fresh-user report); below a budget that names every section, only the
    first sections that fit are named, without lines. The closing line is always there.
    Lines are never cut; a larger budget never shows fewer sections or lines.
    """
    scope = f" --project {project}" if project else ""
    title = "# Memory briefing" + (f": {project}" if project else "") + "\n"
    intro = "Standing answers and open questions from this vault, by vault-sync.\n"
    closing = (
        f'\nTo recall more: `vault-sync query "<what you need>"{scope}`'
        " (or the `query` tool of the vault-sync MCP server)\n"
    )
    out, used = [title, intro], len(title) + len(intro) + len(closing)
    counts: dict[str, Any] = {}
    caps = {"Recent sessions": RECENT_SESSIONS, "Recently changed pages": RECENT_PAGES}
    # What naming each section costs (its heading and "… N more" line). When every section
    # can be named, room for the names below is kept while a section fills, and priority is
    # strict: once a section runs out of room, those below are named with no lines. When not
    # all can be named, no section shows lines and the first that fit are named. Either way a
    # larger budget never shows fewer sections or lines (a property test holds it).
    signposts = [
        len(f"\n## {part.heading}\n- … {part.count} more: `{part.more}{scope}`\n")
        if part.lines
        else 0
        for part in parts
    ]
    every = used + sum(signposts) <= budget  # every section can be named
    starved = not every  # True once a section ran out of room: the ones below show no lines
    named = True  # no section above was left unnamed
    for at, part in enumerate(parts):
        counts[part.heading] = {"shown": 0, "total": part.count}
        if not part.lines:
            continue
        heading = f"\n## {part.heading}\n"
        reserve = sum(signposts[at + 1 :]) if every else 0
        cap = caps.get(part.heading, part.count)
        shown: list[str] = []
        for number, line in enumerate(part.lines):
            left = part.count - number
            more = f"- … {left - 1} more: `{part.more}{scope}`\n" if left > 1 else ""
            cost = len(heading) * (not shown) + len(line) + 1
            if number >= cap:
                break
            if starved or used + cost + len(more) + reserve > budget:
                starved = True
                break
            shown.append(line + "\n")
            used += cost
        rest = part.count - len(shown)
        marker = f"- … {rest} more: `{part.more}{scope}`\n" if rest else ""
        if not shown:  # not one line fits: the section is still named, with its count
            if not named or used + len(heading) + len(marker) + reserve > budget:
                named = False  # and no section below it is named either
                continue
            used += len(heading)
        out += [heading, *shown, marker]
        used += len(marker)
        counts[part.heading]["shown"] = len(shown)
    out.append(closing)
    return "".join(out), counts
