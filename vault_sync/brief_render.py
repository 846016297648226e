"""A briefing's text: one-line summaries, and sections fitted to a budget of characters
(issue 12, Build 2; DESIGN §6).

:func:`render` lays out the sections (:class:`Section`) :mod:`vault_sync.briefing` makes:
filled in priority order, cut at line boundaries with an explicit "… N more" line, never
mid-line or mid-link; the closing "to recall more" line always there. Text only: Layer 2
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
