"""Markdown as the plain text a person reads, with a map back to the source (DESIGN §5.7).

Snippets are cut from this text, so they show what the rendered page shows: a link its
display text, no emphasis markers (a lone one, with no partner in its paragraph, is no
emphasis and stays), heading marks, code fences, callout markers, block ids, HTML tags or
comments, Obsidian ``%%…%%`` comments (its reading view hides them; an unclosed one hides
the rest, as an unclosed HTML comment does), no SilverBullet ``${…}`` expressions, and no
terminal control sequences or control characters (see :mod:`vault_sync.terminal`).
:func:`to_plain` also returns where each kept run of characters came from, so highlights
found in the source can be moved onto the plain text. One regex pass, linear in the text
(each alternative is bounded or a run of one class), as every scan of page text must be
(issue 14).

Layer 1: above :mod:`vault_sync.terminal`.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from vault_sync.terminal import SEQUENCE_PATTERN

#: Our redaction token (``[REDACTED:label]``, :data:`vault_sync.sanitize.rule.TOKEN_RE` and
#: wider): one unit in plain text, and no words of the user's in a query.
REDACTED_PATTERN = r"\[REDACTED:[a-z0-9_]{1,64}\]"
#: The markup removed or replaced, in one alternation (first match wins at a position).
#: Groups named ``keep*`` hold text that stays (a link's display text, code's content).
#: A link's target and text stop at ``[`` (as CommonMark, the innermost brackets make the
#: link; Obsidian refuses ``[`` in a link target) and an expression at ``$``: else each
#: opener of ``'[[' * 10000`` scanned its whole window, ~280x the cost of page text.
MARKUP_ALTERNATIVES = (
    rf"(?P<ctl>{SEQUENCE_PATTERN}|[\x00-\x08\x0b-\x1f\x7f])"
    r"|(?P<comment><!--.*?(?:-->|\Z)|%%.*?(?:%%|\Z))"
    r"|(?P<expr>\$\{[^}\n$]{0,4096}\})"
    r"|(?P<fence>^[ \t]{0,3}(?:`{3,}|~{3,})[^\n]{0,256}$)"
    r"|(?P<heading>^[ \t]{0,3}#{1,6}(?:[ \t]+|$))"
    r"|(?P<quote>^(?:[ \t]{0,3}>[ \t]?)+(?:\[![\w-]{1,64}\][+-]?[ \t]*)?)"
    r"|(?P<item>^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)"
    r"|(?P<rule>^[ \t]{0,3}(?:[-*_][ \t]*){3,}$)"
    r"|!?\[\[(?P<wtarget>[^\[\]\|\n]{0,512})(?:\|(?P<keepw>[^\[\]\n]{0,512}))?\]\]"
    r"|!?\[(?P<keepl>[^\[\]\n]{0,512})\]\([^)\n]{0,2048}\)"
    r"|(?P<html></?[A-Za-z][\w-]{0,32}(?:\s[^<>\n]{0,512})?/?>)"
    r"|(?P<block>[ \t]\^[\w-]{1,64}$)"
    r"|`(?P<keepc>[^`\n]{1,1024})`"
    rf"|(?P<redacted>{REDACTED_PATTERN})"
    r"|(?P<emph>\*{1,3}(?=\S)|(?<=\S)\*{1,3}|(?<!\w)_{1,3}(?=\w)|(?<=\w)_{1,3}(?!\w)|~~|==)"
    r"|(?P<pipe>\|)"
)
#: Where an alternative can start: a character some alternative begins with (a control
#: character, one of ``<$`~#>-*+_![=|%``, a digit), a line start (block marks, which may be
#: indented), or a blank before ``^`` (a block id). At any other position no alternative
#: matches, and this test rejects it at once instead of trying each alternative in turn: the
#: same matches, ~5x faster on page text (a snippet converts ~4 kB per hit; issue 10's query
#: speed). ``tests/test_plaintext.py`` checks the matches equal the bare alternation's.
MARKUP_STARTS = r"(?:(?=[\x00-\x08\x0b-\x1f\x7f-\x9f<$`~#>\-*+\d_!\[=|%])|^|(?=[ \t]\^))"
_MARKUP = re.compile(f"{MARKUP_STARTS}(?:{MARKUP_ALTERNATIVES})", re.MULTILINE | re.DOTALL)


#: A blank line: emphasis pairs within a paragraph, never across one.
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


class _Partners:
    """Whether an emphasis marker (``*``, ``_``, ``~~``, ``==``) has a partner: another of its
    character in its paragraph. A lone one cannot be emphasis and stays as text
    (``Kd2&fG6*hJ0l`` keeps its ``*``; CommonMark and Obsidian show it too). Judged by
    count, not by pairing, so a lone marker is lone in every part of its paragraph a caller
    converts (a snippet's lines, a briefing's joined paragraph) and the sanitizer's view
    (:mod:`vault_sync.sanitize.markup`), built from the whole page, never drops one that an
    output keeps. Linear: each paragraph's count of a character is taken once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0, *(m.end() for m in _BLANK_LINE.finditer(source))]
        self.counts: dict[tuple[int, str], int] = {}

    def lone(self, start: int, end: int) -> bool:
        """Whether the marker run ``source[start:end]`` is the only one of its character in
        its paragraph."""
        char = self.source[start]
        index = bisect.bisect_right(self.starts, start) - 1
        count = self.counts.get((index, char))
        if count is None:
            stop = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.source)
            count = self.counts[(index, char)] = self.source.count(char, self.starts[index], stop)
        return count == end - start


@dataclass(frozen=True)
class Plain:
    """Plain text and where it came from.

    Attributes:
        text: the plain text.
        runs: ``(plain offset, source offset)`` at the start of each run of characters copied
            unchanged, sorted; a source offset inside removed markup maps to the next run.
        protected: ``(start, end)`` plain-text spans that are one unit: a highlight never
            falls inside them (``[REDACTED:label]`` tokens).
        inserted: ``(plain start, plain end, source start, source end)`` of each text put in
            for markup (a wikilink's page name, a space for a table pipe), sorted: with
            ``runs``, every plain character's source (the sanitizer's view,
            :mod:`vault_sync.sanitize.markup`).
    """

    text: str
    runs: tuple[tuple[int, int], ...]
    protected: tuple[tuple[int, int], ...]
    inserted: tuple[tuple[int, int, int, int], ...] = ()

    @functools.cached_property
    def _sources(self) -> list[int]:
        """The source offsets of :attr:`runs`, for :meth:`to_plain`'s search (built once: a
        snippet maps ~20 offsets)."""
        return [s for _, s in self.runs]

    def to_plain(self, source_offset: int) -> int:
        """The plain-text offset of a source offset (character index)."""
        i = bisect.bisect_right(self._sources, source_offset) - 1
        if i < 0:
            return 0
        plain, source = self.runs[i]
        nxt = self.runs[i + 1][0] if i + 1 < len(self.runs) else len(self.text)
        return min(plain + (source_offset - source), nxt)


def _wikilink_text(target: str, display: str | None) -> str:
    if display is not None:
        return display
    page, _, anchor = target.partition("#")
    anchor = anchor.lstrip("^")
    return f"{page} › {anchor}" if page and anchor else (page or anchor)


def to_plain(source: str) -> Plain:
    """``source`` Markdown as plain text (see the module docstring), with its source map.

    Blank runs are kept as written (callers collapse them when they show a snippet).
    Linear time.
    """
    out: list[str] = []
    runs: list[tuple[int, int]] = []
    protected: list[tuple[int, int]] = []
    inserted: list[tuple[int, int, int, int]] = []
    size = 0
    pos = 0

    def copy(start: int, end: int) -> None:
        nonlocal size
        if start < end:
            runs.append((size, start))
            out.append(source[start:end])
            size += end - start

    def insert(text: str, m: re.Match[str]) -> None:
        nonlocal size
        inserted.append((size, size + len(text), m.start(), m.end()))
        out.append(text)
        size += len(text)

    partners: _Partners | None = None
    for m in _MARKUP.finditer(source):
        copy(pos, m.start())
        pos = m.end()
        kind = m.lastgroup
        if kind == "emph":
            partners = partners or _Partners(source)
            if partners.lone(m.start(), m.end()):
                copy(m.start(), m.end())
        elif kind in ("keepl", "keepc"):
            copy(m.start(kind), m.end(kind))
        elif kind in ("wtarget", "keepw"):
            if m.group("keepw") is not None:
                copy(m.start("keepw"), m.end("keepw"))
            else:
                insert(_wikilink_text(m.group("wtarget"), None), m)
        elif kind == "redacted":
            protected.append((size, size + (m.end() - m.start())))
            copy(m.start(), m.end())
        elif kind in ("pipe", "fence", "rule"):
            insert(" ", m)
    copy(pos, len(source))
    return Plain("".join(out), tuple(runs), tuple(protected), tuple(inserted))
