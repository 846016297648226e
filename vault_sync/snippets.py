"""Snippets a person can read (DESIGN §5.7, issue 16 item 4): plain text, highlights as offsets.

tantivy's snippet generator chooses the passage (the fragment with the most query terms) on
the stored Markdown body; this module turns that passage into plain text
(:func:`vault_sync.plaintext.to_plain`: no ``**``, ``##``, fences, callout markers, comments or
``${…}``), moves the highlights onto it, and cuts it to :data:`SNIPPET_MAX_CHARS`. Highlights
are character offsets into the snippet text, so no output has to mark them inside the text,
where they collided with the page's own markup (``****Global** **Query****``); a
``[REDACTED:label]`` token is never cut or highlighted inside. Only the lines around the
passage are converted when that gives the same snippet as converting the whole window
(:func:`_part`; issue 10's query speed). Layer 2: text only.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vault_sync.plaintext import Plain, to_plain
from vault_sync.stopwords import CJK_STOP_WORDS

#: Longest snippet in characters (about two lines of a terminal).
SNIPPET_MAX_CHARS = 160
#: Marks a snippet that starts after the body's start or ends before its end (case S1): only
#: when the text left out holds a letter or digit, not just punctuation or blanks.
ELLIPSIS = "…"
#: Source characters converted around the chosen passage: enough for any passage and the
#: markup around it, without converting a whole long page for every hit.
_CONTEXT_CHARS = 2048
#: How far a cut looks for a word boundary before cutting inside a word (CJK has none).
_WORD_SLACK = 24

_LETTER = re.compile(r"[^\W_]")
#: A run of blanks, shown as one space (``\s`` is what ``str.isspace`` calls a blank).
_BLANKS = re.compile(r"\s+")

#: Whether a converted part of the window stops short of the window's start and end.
_Edges = tuple[int, int]
#: Source characters converted before the matched words and after them (:func:`_part`),
#: then to whole lines: enough for a cut, its word-boundary slack and a highlight's
#: relocation, so the part usually answers and the whole window is converted only when it
#: did not (~1% of the hits of 300 queries at 10k generated pages; 160 / 360: 0.1%, 3%
#: slower; 64 / 192: 3%).
_PART_BEFORE = 96
_PART_AFTER = 224
#: Characters that can start markup spanning a line break (a comment or an HTML tag,
#: ``<``; a terminal sequence, ESC and the C1 controls): with none of them in the window,
#: every construct :func:`~vault_sync.plaintext.to_plain` rewrites lies within one line.
_MULTILINE_START = re.compile("[<\x1b\x80-\x9f]")


@dataclass(frozen=True)
class Snippet:
    """A snippet and its highlights.

    Attributes:
        text: plain text, blanks collapsed, at most :data:`SNIPPET_MAX_CHARS` plus the
            :data:`ELLIPSIS` marks.
        highlights: ``(start, end)`` character offsets into ``text`` of the matched words,
            sorted, not overlapping.
    """

    text: str
    highlights: tuple[tuple[int, int], ...]

    def marked(self, before: str = "**", after: str = "**") -> str:
        """The text with ``before`` / ``after`` around each highlight (for a terminal)."""
        out, pos = [], 0
        for start, end in self.highlights:
            out += [self.text[pos:start], before, self.text[start:end], after]
            pos = end
        return "".join([*out, self.text[pos:]])


def _char_offset(body_bytes: bytes, byte_offset: int) -> int:
    return len(body_bytes[:byte_offset].decode("utf-8", errors="ignore"))


def _window(body: str, start: int, end: int) -> tuple[int, int]:
    """Source bounds around ``[start, end)`` to convert: whole lines, about ±2 kB."""
    lo = body.rfind("\n", 0, max(0, start - _CONTEXT_CHARS)) + 1
    hi = body.find("\n", min(len(body), end + _CONTEXT_CHARS))
    return lo, len(body) if hi < 0 else hi


def _boundary(text: str, at: int, step: int) -> int:
    """Move a cut at ``at`` off a word's middle, by up to :data:`_WORD_SLACK` characters."""
    for i in range(_WORD_SLACK):
        j = at + i * step
        if j <= 0 or j >= len(text):
            return max(0, min(len(text), j))
        if not (text[j - 1].isalnum() and text[j].isalnum()):
            return j
    return at


def _cut(
    plain: Plain, start: int, end: int, marks: list[tuple[int, int]], cut_off: _Edges = (0, 0)
) -> Snippet | None:
    """Cut ``plain`` around ``[start, end)``, keep the highlights inside, collapse blanks.

    ``cut_off``: whether ``plain`` converts only part of the window on the left and on the
    right (:func:`_part`); ``None`` when no letter is left of the cut (right of it) inside
    that part, as the ellipsis needs to know whether the rest of the window has one. This
    also covers a cut that reaches such an edge, where the whole window's text goes on: a
    cut clamped to an edge of ``plain`` has no text beyond it."""
    text = plain.text
    end = min(len(text), max(end, start + SNIPPET_MAX_CHARS))
    start = max(0, min(start, end - SNIPPET_MAX_CHARS))
    start, end = _boundary(text, start, -1), _boundary(text, end, 1)
    if end - start > SNIPPET_MAX_CHARS + _WORD_SLACK:
        end = start + SNIPPET_MAX_CHARS
    for lo, hi in plain.protected:  # never cut a [REDACTED:label] token
        if lo < start < hi:
            start = lo
        if lo < end < hi:
            end = hi
    keep = [(a, b) for a, b in sorted(marks) if start <= a < b <= end]
    if plain.protected:
        keep = [(a, b) for a, b in keep if not any(lo < b and a < hi for lo, hi in plain.protected)]
    segment = text[start:end]
    lead = 1 if segment[:1].isspace() else 0  # a leading blank run is dropped

    # each blank run collapses to one blank: `gone[i]`, the characters the first i drop
    runs = [m.span() for m in _BLANKS.finditer(segment)]
    starts = [a for a, _ in runs]
    gone = list(itertools.accumulate((b - a - 1 for a, b in runs), initial=0))

    def where(k: int) -> int:  # offset in the collapsed text of segment[k] (a run that
        i = bisect.bisect_left(starts, k)  # holds k counts only up to k)
        cut = gone[i - 1] + k - starts[i - 1] - 1 if i and runs[i - 1][1] > k else gone[i]
        return k - cut - (lead if k else 0)

    body = _BLANKS.sub(" ", segment)[lead:].rstrip()
    head = ELLIPSIS if _LETTER.search(text, 0, start) else ""
    tail = ELLIPSIS if _LETTER.search(text, end) else ""
    if (cut_off[0] and not head) or (cut_off[1] and not tail):
        return None  # the letters may be in the part of the window not converted
    spans: list[tuple[int, int]] = []
    for a, b in keep:
        x, y = where(a - start) + len(head), min(where(b - start), len(body)) + len(head)
        if x < y and not (spans and x < spans[-1][1]):
            spans.append((x, y))
    return Snippet(f"{head}{body}{tail}", tuple(spans))


#: A run of two or more CJK characters (Han, Kana, Hangul): where a question's bigrams are.
#: Compiled on first use (its charset costs ~1.5 ms to compile): an ASCII literal has none.
_CJK_RUN = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}"


def _bigram_spans(body: str, literals: Sequence[str], near: int = 0) -> list[tuple[int, int]]:
    """Where the CJK bigrams of ``literals`` occur in ``body`` (from offset ``near``) near the
    first of them: the spans a CJK question's bigrams matched (no literal is found whole),
    merged, in order."""
    bigrams = {
        run[i : i + 2]
        for literal in literals
        if not literal.isascii()
        for run in re.findall(_CJK_RUN, literal)
        for i in range(len(run) - 1)
    }
    bigrams -= CJK_STOP_WORDS
    if not bigrams:
        return []
    pattern = re.compile("|".join(map(re.escape, sorted(bigrams))))
    first = pattern.search(body, near)
    if first is None:
        return []
    hits = pattern.finditer(body, first.start(), first.start() + 4 * SNIPPET_MAX_CHARS)
    merged: list[tuple[int, int]] = []
    for m in hits:
        if merged and m.start() <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], m.end()))
        else:
            merged.append((m.start(), m.end()))
    return merged


#: How far from where it mapped a highlight's word is looked for, in plain-text characters,
#: when the source position was inside markup the plain text rewrites (a link's target).
_RELOCATE_CHARS = 64


def _moved(
    plain: Plain, body: str, lo: int, spans: Sequence[tuple[int, int]], cut_off: _Edges = (0, 0)
) -> list[tuple[int, int]] | None:
    """The source ``spans`` (character offsets into ``body``; ``plain`` converts ``body[lo:]``)
    as plain-text spans that show the same word. A word inside markup the plain text rewrites
    (the target of ``[[Recurring Tasks#Order|new task]]``, an anchor shown after ``›``) maps
    to no copied character: it is looked for within :data:`_RELOCATE_CHARS` of where it
    landed, nearest first, else left out, rather than highlighting other letters
    (``Ta**sks**``). ``None`` when that search would reach past a ``cut_off`` edge
    (see :func:`_cut`)."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        word = body[a:b]
        x, y = plain.to_plain(a - lo), plain.to_plain(b - lo)
        if plain.text[x:y].lower() == word.lower():
            out.append((x, y))
            continue
        if (cut_off[0] and x < _RELOCATE_CHARS) or (
            cut_off[1] and x + _RELOCATE_CHARS + len(word) > len(plain.text)
        ):
            return None
        pattern = re.compile(re.escape(word), re.IGNORECASE)
        first = max(0, x - _RELOCATE_CHARS)
        found = pattern.finditer(plain.text, first, x + _RELOCATE_CHARS + len(word))
        taken = set(out)
        near = sorted((abs(m.start() - x), m.span()) for m in found if m.span() not in taken)
        if word and near:
            out.append(near[0][1])
    return out


def make_snippet(
    body: str,
    fragment: tuple[int, int] | None,
    marks: Sequence[tuple[int, int]],
    literals: Sequence[str],
    near: int = 0,
) -> Snippet:
    """The snippet of one hit.

    Args:
        body: the page's stored body (sanitized Markdown).
        fragment: tantivy's chosen passage as UTF-8 byte offsets into ``body``, or ``None``
            when its highlights found nothing (CJK phrases, a match only in a title).
        marks: the matched words as UTF-8 byte offsets into ``body`` (absolute).
        literals: the query's words and phrases as typed: without a fragment, the first one
            found in the body (case-insensitively) centres the snippet, else the body's start.
        near: without a fragment, look for the literals from this character offset on (the
            section of a long page that answers), and from the start when none is there.

    Returns:
        The snippet (see :class:`Snippet`).
    """
    if fragment is not None and marks and body.isascii():  # a byte is a character
        (start, end), spans = fragment, list(marks)
    elif fragment is not None and marks:
        encoded = body.encode()
        start, end = (_char_offset(encoded, b) for b in fragment)
        spans = [(_char_offset(encoded, a), _char_offset(encoded, b)) for a, b in marks]
    else:
        spans = []
        for origin in dict.fromkeys((near, 0)):
            for literal in literals:
                found = re.compile(re.escape(literal), re.IGNORECASE) if literal else None
                m = found.search(body, origin) if found else None
                if m and (not spans or m.start() < spans[0][0]):
                    spans = [(m.start(), m.end())]
            if not spans:  # a CJK question matched by its bigrams (query_fields.cjk_words)
                spans = _bigram_spans(body, literals, origin)
            if spans:
                break
        start, end = spans[0] if spans else (0, 0)
    lo, hi = _window(body, start, end)
    part = _part(
        body, lo, hi, min([start, *(a for a, _ in spans)]), max([end, *(b for _, b in spans)])
    )
    cut = _snippet_in(body, part, start, end, spans, fragment is None)
    if cut is None:  # the part converted was too short: the whole window, as before
        cut = _snippet_in(body, (lo, hi, (0, 0)), start, end, spans, fragment is None)
        assert cut is not None  # nothing is cut off
    if lo > 0 and not cut.text.startswith(ELLIPSIS) and _LETTER.search(body, 0, lo):
        cut = Snippet(ELLIPSIS + cut.text, tuple((a + 1, b + 1) for a, b in cut.highlights))
    if hi < len(body) and not cut.text.endswith(ELLIPSIS) and _LETTER.search(body, hi):
        cut = Snippet(cut.text + ELLIPSIS, cut.highlights)
    return cut


def _part(body: str, lo: int, hi: int, start: int, end: int) -> tuple[int, int, _Edges]:
    """The whole lines of the window ``[lo, hi)`` around ``[start, end)`` to convert, and
    which of its edges they stop short of: the plain text of whole lines is the same slice
    of the window's plain text when no markup spans a line break (:data:`_MULTILINE_START`;
    every other construct is matched within a line, and a line start looks the same to it
    either way), so the snippet cut from it is the same when the cut stays inside
    (:func:`_cut` and :func:`_moved` say when it does not). Without that guarantee, the
    whole window."""
    if _MULTILINE_START.search(body, lo, hi):
        return lo, hi, (0, 0)
    first = (
        body.rfind("\n", lo, max(lo, start - _PART_BEFORE)) + 1 if start - _PART_BEFORE > lo else lo
    )
    last = body.find("\n", min(hi, end + _PART_AFTER), hi) if end + _PART_AFTER < hi else -1
    last = hi if last < 0 else last
    return max(first, lo), last, (int(first > lo), int(last < hi))


def _snippet_in(
    body: str,
    part: tuple[int, int, _Edges],
    start: int,
    end: int,
    spans: Sequence[tuple[int, int]],
    centred: bool,
) -> Snippet | None:
    """The snippet cut from the plain text of ``body[part[0]:part[1]]`` (see :func:`_part`),
    or ``None`` when it would read past an edge the part stops short of; ``centred``: the
    first span is centred (no passage was chosen)."""
    lo, hi, cut_off = part
    plain = to_plain(body[lo:hi])
    moved = _moved(plain, body, lo, spans, cut_off)
    if moved is None:
        return None
    centre = (plain.to_plain(start - lo), plain.to_plain(end - lo))
    if spans and centred:  # centre the first literal (or bigram) found
        width = centre[1] - centre[0]
        first = max(0, centre[0] - (SNIPPET_MAX_CHARS - width) // 2)
        centre = (first, first + SNIPPET_MAX_CHARS)
    return _cut(plain, centre[0], centre[1], moved, cut_off)
