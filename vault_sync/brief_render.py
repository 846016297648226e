"""A briefing's text: one-line summaries, and sections fitted to a budget of characters
(issue 12, Build 2; DESIGN §6).

:func:`render` lays out the sections (:class:`Section`) :mod:`vault_sync.briefing` makes:
the budget shared by turns in priority order, cut at line boundaries with an explicit
"… N more" line, never mid-line or mid-link, every line left out counted; the closing "to
recall more" line always there. Text only: Layer 2
(STYLE.md), no store, no page facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vault_sync.plaintext import to_plain

#: Longest one-line summary, in characters, cut at a word boundary.
SUMMARY_MAX_CHARS = 160

_SENTENCE_END = re.compile(r"(?<=[.!?])\s|(?<=[。！？])")
_SKIP_LINE = re.compile(r"\s*(?:#|\||<!--|!\[\[|---|\*\*\*|___)")

#: Most recent sessions and recently changed pages listed before "… N more".
RECENT_SESSIONS = 5
RECENT_PAGES = 10


def one_line(text: str) -> str:
    """``text`` on one line, its whitespace runs made one space, with brackets and pipes
    spaced out (``[[`` -> ``[ [``, ``]]`` -> ``] ]``, ``|`` -> ``/``) so no link breaks."""
    return " ".join(text.replace("[[", "[ [").replace("]]", "] ]").replace("|", "/").split())


def summary(given: str | None, body: str) -> str:
    """A page's ``summary`` key (``given``), else the first sentence of the first paragraph
    of ``body``, as plain text on one line, cut at a word boundary to
    :data:`SUMMARY_MAX_CHARS`."""
    text = given
    if not text or not text.strip():
        text = _first_sentence(body)
    text = one_line(text)
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


def render(
    parts: Sequence[Section], *, project: str | None, budget: int
) -> tuple[str, dict[str, Any]]:
    """The briefing text within ``budget`` characters, and per section ``{"shown", "total"}``.

    The budget is shared by turns: each section, in priority order, takes its next line, one
    section after another, until a line does not fit; there filling stops (no later, shorter
    line is squeezed in: a larger budget never shows fewer lines of any section). The recent
    lists also stop at their own caps. A section is shown only with at least one line, and
    ends with ``- … N more: `COMMAND``` when lines of it are left out; the sections not shown
    at all are counted on one line, ``… N more in K sections not shown: `COMMAND`, …`` (with
    their headings when they fit), so nothing vanishes silently and each part left out can be
    fetched as written (fresh-user reports). Lines are never cut;
    the closing line is always there.
    """
    scope = f" --project {project}" if project else ""
    title = "# Memory briefing" + (f": {project}" if project else "") + "\n"
    intro = "Standing answers and open questions from this vault, by vault-sync.\n"
    closing = (
        f'\nTo recall more: `vault-sync query "<what you need>"{scope}`'
        " (or the `query` tool of the vault-sync MCP server)\n"
    )
    live = [part for part in parts if part.lines]
    caps = {"Recent sessions": RECENT_SESSIONS, "Recently changed pages": RECENT_PAGES}
    # A section built only in part (the standing answers: as many as budget / 24 characters
    # could show) runs out of room before it runs out of lines, so the order of turns up to
    # where filling stops is the same at every larger budget.
    limits = [min(caps.get(p.heading, p.count), len(p.lines), p.count) for p in live]
    fill = _Fill(live, scope, len(title) + len(intro) + len(closing), budget)
    for turn in range(max(limits, default=0)):
        if not all(fill.add(at, turn) for at in range(len(live)) if turn < limits[at]):
            break
    out = [title, intro]
    counts: dict[str, Any] = {p.heading: {"shown": 0, "total": p.count} for p in parts}
    for at, part in enumerate(live):
        if fill.lines[at]:
            out += [f"\n## {part.heading}\n", *(line + "\n" for line in fill.lines[at])]
            out.append(fill.marker(at))
            counts[part.heading]["shown"] = len(fill.lines[at])
    out += [fill.dropped(final=True), closing]
    return "".join(out), counts


class _Fill:
    """The lines taken so far from each section, and the exact length of the text they make:
    headings, lines, "… N more" lines and the line counting the sections not shown."""

    def __init__(self, parts: Sequence[Section], scope: str, fixed: int, budget: int) -> None:
        self.parts, self.scope, self.fixed, self.budget = parts, scope, fixed, budget
        self.lines: list[list[str]] = [[] for _ in parts]
        self.chars = [0] * len(parts)  # each section's heading and lines, as shown

    def add(self, at: int, number: int) -> bool:
        """Take line ``number`` of section ``at`` if the briefing then stays within the
        budget; whether it did."""
        line = self.parts[at].lines[number]
        heading = 0 if self.lines[at] else len(f"\n## {self.parts[at].heading}\n")
        self.lines[at].append(line)
        self.chars[at] += heading + len(line) + 1
        if self.length() <= self.budget:
            return True
        self.lines[at].pop()
        self.chars[at] -= heading + len(line) + 1
        return False

    def length(self) -> int:
        """The briefing's length as filled so far, in characters (the line counting the
        sections not shown in its bare form)."""
        markers = sum(len(self.marker(at)) for at in range(len(self.parts)))
        return self.fixed + sum(self.chars) + markers + len(self.dropped())

    def marker(self, at: int) -> str:
        """Section ``at``'s "… N more" line ("" when it is not shown, or shown whole)."""
        part, rest = self.parts[at], self.parts[at].count - len(self.lines[at])
        return f"- … {rest} more: `{part.more}{self.scope}`\n" if rest and self.lines[at] else ""

    def dropped(self, final: bool = False) -> str:
        """The line counting the sections not shown and their lines ("" when every section
        is shown). Filling counts it bare; ``final``: the richest form that still fits the
        budget, of: each section's heading, count and the command that prints it
        (``vault-sync brief --section NAME``, runnable as written, so an agent can fetch what
        a small budget left out); the commands alone; one command with ``NAME`` and the
        names; bare."""
        missing = [p for p, lines in zip(self.parts, self.lines, strict=True) if not lines]
        if not missing:
            return ""
        sections = "section" if len(missing) == 1 else "sections"
        short = f"\n… {sum(p.count for p in missing)} more in {len(missing)} {sections} not shown"
        if not final:
            return short + "\n"
        room = self.budget - self.length() + len(short)
        names = [p.more.rsplit(" ", 1)[-1] for p in missing]
        forms = (
            ", ".join(f"{p.heading} ({p.count}) `{p.more}{self.scope}`" for p in missing),
            ", ".join(f"`{p.more}{self.scope}`" for p in missing),
            f"`vault-sync brief --section NAME{self.scope}`, NAME: {', '.join(names)}",
        )
        for form in forms:
            if len(short) + 2 + len(form) <= room:
                return f"{short}: {form}\n"
        return short + "\n"
