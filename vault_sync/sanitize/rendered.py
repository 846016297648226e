"""The text as a reader sees it rendered, for the sanitizer (fresh-user report, issue 17).

Markdown escapes punctuation with a backslash (``ghp\\_…`` shows as ``ghp_…`` in Obsidian),
HTML entities name characters (``&#95;``, ``&lowbar;`` are ``_``), and full-width forms
(``ｇｈｐ＿…``) read as ASCII: a token written so is the same secret to anyone who reads the
page, yet no rule matched the raw text. :func:`rendered_view` gives the text with these
undone, and where each character of it came from, so findings in the view are redacted in
the raw text. Linear time; ``None`` (no view) for the common text without such forms.
Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import bisect
import html
import re
from dataclasses import dataclass

#: The forms: a CommonMark backslash escape of ASCII punctuation, an HTML character reference,
#: or a run of 8+ full-width letters, digits, ``_`` or ``-`` (U+FF01-U+FF5E read as
#: U+0021-U+007E, as NFKC reads them). CJK text is full of full-width punctuation (``，：！``),
#: which alone is no token: requiring letters keeps the view (a second scan) off nearly every
#: page.
_ESCAPE = re.compile(r"\\[!-/:-@\[-`{-~]")
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_FULL_WIDTH = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff0d\uff3f]{8,}")


def _forms(text: str) -> list[re.Match[str]]:
    """The forms of ``text`` that sit inside a would-be token, in order. Escapes and
    references are taken in runs of adjacent ones (``&#103;&#104;&#112;``): a run counts when
    its rendered text begins with, or follows, an ASCII letter or digit, and ends with, or
    precedes, one — so a token that begins or ends with a reference (``&#103;hp_…`` renders
    as ``ghp_…``) or is written wholly in them counts, and ``\\_init`` or ``&amp; so`` in prose
    does not. Each pattern starts with its own literal and runs only when that occurs, so
    ordinary text pays three substring or charset scans."""
    marked: list[re.Match[str]] = []
    for mark, pattern in (("\\", _ESCAPE), ("&", _REFERENCE)):
        if mark in text:
            marked += pattern.finditer(text)
    marked.sort(key=lambda m: m.start())
    found: list[re.Match[str]] = []
    run: list[re.Match[str]] = []
    for m in marked:
        if run and run[-1].end() != m.start():
            found += _inside_token(text, run)
            run = []
        run.append(m)
    found += _inside_token(text, run)
    if not text.isascii():
        found += list(_FULL_WIDTH.finditer(text))
    return sorted(found, key=lambda m: m.start())


def _inside_token(text: str, run: list[re.Match[str]]) -> list[re.Match[str]]:
    """``run`` (adjacent forms) when it sits inside a would-be token (:func:`_forms`), else
    ``[]``."""
    if not run:
        return []
    start, end = run[0].start(), run[-1].end()
    first, last = _form_text(run[0].group()), _form_text(run[-1].group())
    opens = (start > 0 and _ascii_alnum(text[start - 1])) or _ascii_alnum(first[:1])
    closes = (end < len(text) and _ascii_alnum(text[end])) or _ascii_alnum(last[-1:])
    # a reference spelling the operator after a name: `password&#58; …` reads `password: …`
    operator = start > 0 and _ascii_alnum(text[start - 1]) and last in (":", "=")
    return run if opens and (closes or operator) else []


def _ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@dataclass(frozen=True)
class View:
    """The rendered text and its map to the raw text, by segments.

    Attributes:
        text: the rendered text.
        segments: ``(view start, raw start, raw end, copied)`` per segment, sorted: a copied
            segment maps character for character; another is one form (its view characters
            all come from the whole raw form).
        starts: the segments' view starts, for :mod:`bisect`.
    """

    text: str
    segments: tuple[tuple[int, int, int, bool], ...]
    starts: tuple[int, ...]

    def _raw(self, at: int, *, end: bool) -> int:
        i = bisect.bisect_right(self.starts, at) - 1
        view_start, raw_start, raw_end, copied = self.segments[i]
        if copied:
            return raw_start + (at - view_start) + (1 if end else 0)
        return raw_end if end else raw_start

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The raw ``[start, end)`` of the view's ``[start, end)`` (``end > start``)."""
        return self._raw(start, end=False), self._raw(end - 1, end=True)

    def pieces(self, start: int, end: int) -> list[tuple[int, int]]:
        """The raw spans the view's ``[start, end)`` is made of, merged where they touch:
        one span unless the view dropped something inside it (markup between two halves of
        a token, a line continuation), so redacting them leaves what was dropped (``**``, a
        link's ``]]``, ``\\`` and its line break) as it was."""
        out: list[tuple[int, int]] = []
        i = bisect.bisect_right(self.starts, start) - 1
        while i < len(self.segments) and self.segments[i][0] < end:
            view_start, raw_start, raw_end, copied = self.segments[i]
            if copied:
                view_end = view_start + (raw_end - raw_start)
                lo, hi = max(start, view_start), min(end, view_end)
                piece = (raw_start + lo - view_start, raw_start + hi - view_start)
            elif i + 1 < len(self.starts) and self.starts[i + 1] == view_start:
                piece = (raw_start, raw_start)  # dropped whole (a `\` continuation): kept
            else:
                piece = (raw_start, raw_end)
            if piece[0] < piece[1]:
                if out and out[-1][1] == piece[0]:
                    out[-1] = (out[-1][0], piece[1])
                else:
                    out.append(piece)
            i += 1
        return out


#: A rewrite of the raw text: ``(start, end, replacement)``.
Edit = tuple[int, int, str]


def edited_view(text: str, edits: list[Edit]) -> View | None:
    """``text`` with each of ``edits`` applied (where two overlap, the first by start wins),
    as a :class:`View` mapped back to ``text``; ``None`` when there are none."""
    if not edits:
        return None
    out: list[str] = []
    segments: list[tuple[int, int, int, bool]] = []
    size = pos = 0
    for start, end, replacement in sorted(edits):
        if start < pos:
            continue  # overlapping rewrites: the first wins
        if pos < start:
            segments.append((size, pos, start, True))
            out.append(text[pos:start])
            size += start - pos
        segments.append((size, start, end, False))
        out.append(replacement)
        size += len(replacement)
        pos = end
    if pos < len(text):
        segments.append((size, pos, len(text), True))
        out.append(text[pos:])
    return View("".join(out), tuple(segments), tuple(s[0] for s in segments))


def _form_text(raw: str) -> str:
    if raw[0] == "\\":
        return raw[1]
    if raw[0] == "&":
        return html.unescape(raw)
    return "".join(chr(ord(ch) - 0xFEE0) for ch in raw)


def rendered_view(text: str) -> View | None:
    """``text`` with backslash escapes, character references and full-width forms undone
    where they sit inside a would-be token, or ``None`` when it holds none (the common case:
    then the raw text is the view). Linear: one regex pass, one join."""
    forms = _forms(text)
    if not forms:
        return None
    out: list[str] = []
    segments: list[tuple[int, int, int, bool]] = []
    size = pos = 0
    for m in forms:
        if pos < m.start():
            segments.append((size, pos, m.start(), True))
            out.append(text[pos : m.start()])
            size += m.start() - pos
        rendered = _form_text(m.group())
        full_width = m.group()[0] not in "\\&"
        segments.append((size, m.start(), m.end(), full_width))
        out.append(rendered)
        size += len(rendered)
        pos = m.end()
    if pos < len(text):
        segments.append((size, pos, len(text), True))
        out.append(text[pos:])
    return View("".join(out), tuple(segments), tuple(seg[0] for seg in segments))


@dataclass(frozen=True)
class Chain:
    """Views applied one after another: ``views[0]`` of the raw text, each next one of the
    text before it; ``text`` is the last one's, and :meth:`span` maps back through them all."""

    views: tuple[View, ...]

    @property
    def text(self) -> str:
        """The last view's text."""
        return self.views[-1].text

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The raw ``[start, end)`` of the last view's ``[start, end)`` (``end > start``)."""
        for view in reversed(self.views):
            start, end = view.span(start, end)
        return start, end

    def pieces(self, start: int, end: int) -> list[tuple[int, int]]:
        """The raw spans of the last view's ``[start, end)`` (:meth:`View.pieces`)."""
        spans = [(start, end)]
        for view in reversed(self.views):
            spans = [p for s, e in spans for p in view.pieces(s, e)]
        merged: list[tuple[int, int]] = []
        for s, e in spans:
            if merged and merged[-1][1] == s:
                merged[-1] = (merged[-1][0], e)
            else:
                merged.append((s, e))
        return merged
