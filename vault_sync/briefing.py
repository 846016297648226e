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
This module makes the sections and their lines; the facts and their orders are
:mod:`vault_sync.brief_facts`', the text of the lines and the fitting to the budget
:mod:`vault_sync.brief_render`'s;
the watcher keeps what this module computes between refreshes (:mod:`vault_sync.brief_cache`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from vault_sync.brief_facts import LINK_TYPES, Facts, Lists, assemble, lists, wikilink
from vault_sync.brief_render import Section, one_line, summary
from vault_sync.brief_render import render as render
from vault_sync.page_facts import (
    PageFacts,
    facts_from_rows,
)
from vault_sync.store import Sidecar

#: Default budget in characters: the cap one major coding agent applies to the text injected
#: at startup (issue 12; DESIGN §6).
BUDGET_CHARS = 10_000
#: The smallest budget ``brief`` accepts: the heading, one section line and the closing line.
MIN_BUDGET_CHARS = 300


def gather(sidecar: Sidecar, project: str | None = None) -> Facts:
    """Read what a briefing needs from the sidecar (one project's pages, or all)."""
    pages = facts_from_rows(sidecar.fact_rows(project))
    return assemble(pages, sidecar.typed_edges(LINK_TYPES))


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
        Section(SECTIONS["standing"], answers, more("standing"), len(standing)),
        Section(SECTIONS["contradictions"], against.lines, more("contradictions")),
        Section(SECTIONS["fixes"], _fixes(facts, ordered.bugs, ordered.fixers), more("fixes")),
        Section(SECTIONS["sessions"], _Lines(ordered.sessions, _session_line), more("sessions")),
        Section(
            SECTIONS["changed"],
            _Lines(ordered.changed, lambda p: f"- {p.date} {wikilink(p)} ({p.kind})"),
            more("changed"),
        ),
    ]


#: The sections by the name ``brief --section`` (and the MCP ``brief`` tool's ``section``)
#: takes, in the briefing's order: name -> heading.
SECTIONS = {
    "standing": "Standing answers",
    "contradictions": "Open contradictions",
    "fixes": "Known fixes for open bugs",
    "sessions": "Recent sessions",
    "changed": "Recently changed pages",
}


def more(name: str) -> str:
    """The command a section's "… N more" line gives (:func:`vault_sync.brief_render.render`
    adds the briefing's ``--project``): it prints the section ``name`` of :data:`SECTIONS`
    whole (:func:`whole`), the lines shown and those cut, in the same order. Not ``query``,
    which needs words and ranks only some pages, nor ``lint``, which lists no contradictions
    (fresh-user report: the briefing told agents to run ``lint --project P``, which fails)."""
    return f"vault-sync brief --section {name}"


def whole(
    facts: Facts, bodies: Callable[[Iterable[str]], dict[str, str]], name: str
) -> tuple[str, list[str]]:
    """Section ``name`` of :data:`SECTIONS` with nothing cut: its heading and every line, in
    the briefing's order (no budget, no cap on the recent lists).

    Raises:
        KeyError: ``name`` is not in :data:`SECTIONS` (the callers check it first).
    """
    heading = SECTIONS[name]
    part = next(p for p in sections(facts, bodies, sys.maxsize) if p.heading == heading)
    return heading, list(part.lines[: part.count])


def whole_text(
    heading: str,
    lines: Sequence[str],
    *,
    name: str = "",
    project: str | None = None,
    offset: int = 0,
    limit: int | None = None,
) -> str:
    """A section printed whole (``brief --section``, the MCP ``brief`` tool's ``section``): its
    ``## heading`` line and every line, ``(none)`` when it has none.

    With ``offset`` / ``limit`` (line counts, ``limit`` None: to the end), only those lines, and
    when lines follow them, a last ``- … N more: `vault-sync brief --section NAME --offset O
    --limit L`` line that prints the next ones (a recent list can hold every dated page of the
    vault: thousands of lines are more than an agent's context should take at once).
    """
    end = len(lines) if limit is None else min(len(lines), offset + limit)
    shown = list(lines[offset:end])
    if end < len(lines):
        scope = f" --project {project}" if project else ""
        pointer = f"{more(name)} --offset {end} --limit {limit}{scope}"
        shown.append(f"- … {len(lines) - end} more: `{pointer}`")
    elif not shown and offset:
        shown = [f"(no lines past {offset}: the section has {len(lines)})"]
    return "\n".join([f"## {heading}", *(shown or ["(none)"])]) + "\n"


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
