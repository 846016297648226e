"""A page's sections as the passage scorer reads them, analyzed once, at sync (issue 10).

Part of :mod:`vault_sync.index` (layer 3), first in its package: it imports no other module
of it (:mod:`vault_sync.index.schema` hands it the analyzers). The best-passage stage
(:mod:`vault_sync.passages`) scores each section of ~50 candidate pages per query by BM25
over the section's tokens. Running tantivy's analyzers over those sections at query time cost
~13 ms of CPU per query on pages not seen before (10k generated pages, varied queries), so
:func:`encode` runs them when the page is indexed and the index stores the result, per page,
in the stored-only bytes field ``sections``; a query counts its few words in that text
(:func:`occurrences`, C-speed ``str.count``) and never analyzes a section. The English tokens
also give the body's word pairs (:mod:`vault_sync.index.word_pairs`).

The stored text (UTF-8), one block per analyzer, in the order given to :func:`encode` (the
English analyzer; then the CJK one, only for a body with CJK text), blocks ended by
:data:`BLOCK_END`; a block is the sections' lengths in tokens (decimal, comma-separated,
ended by :data:`LENGTHS_END`), then one stream per section (:func:`section_spans`), each
ended by :data:`SECTION_END`. A stream is the section's tokens in order, each between
newlines, two newlines apart (``"\\na\\n\\nb\\n"``), so ``count("\\na\\n")`` is the
token's count and ``count("\\na\\n\\nb\\n")`` the count of the adjacent pair; a
section of no token is ``""``. A token holding ``\\\\``, a newline or an end mark (only
the CJK analyzer's separator runs can) is escaped (:func:`escape`), and so is a query word
before it is counted, so every count is exact. Tokenizing section by section is what the
scorer did at query time before, so the counts are the same ones.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import tantivy

#: Ends a section's stream inside a block.
SECTION_END = "\x1e"
#: Ends the lengths at the start of a block.
LENGTHS_END = "\x1f"
#: Ends one analyzer's block.
BLOCK_END = "\x1d"
#: A newline before a heading line: ends where a heading starts (the newline's search is a
#: fast scan, where ``^#`` tried every position: 13 -> 2 us a 2 kB body).
_HEADING = re.compile(r"\n(?=#{1,6}\s)")
#: A character ``str.strip`` keeps (re's ``\S`` is ``not str.isspace``).
_NOT_BLANK = re.compile(r"\S")
_ESCAPED = re.compile(r"[\\\n\x1d-\x1f]")
#: Joins tokens before they are escaped (no escape makes or changes it).
_JOIN = "\x1c"
_ESCAPES = {  # "\\" first: the replaces in _stream run in this order
    "\\": "\\\\",
    "\n": "\\n",
    BLOCK_END: "\\d",
    SECTION_END: "\\e",
    LENGTHS_END: "\\f",
}
#: One analyzer's block, read: each section's length in tokens, and the streams, each ended
#: by :data:`SECTION_END` (:func:`streams` cuts them apart), as the stored UTF-8: counting
#: needs no decoding (a needle starts and ends with a newline, so its matches fall on
#: character boundaries), which took ~7 us a CJK page, ~50 of them a query.
Block = tuple[list[int], bytes]


def section_spans(body: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of each section of ``body``: cut before each
    Markdown heading line; the text before the first heading is a section of its own unless
    blank."""
    starts = [0, *(m.end() for m in _HEADING.finditer(body))]
    cut = itertools.pairwise([*starts, len(body)])
    return [(a, b) for a, b in cut if _NOT_BLANK.search(body, a, b)]


def escape(token: str) -> str:
    """``token`` with ``\\``, newlines and the end marks escaped (one-to-one, so two tokens
    are equal exactly when their escapes are)."""
    return _ESCAPED.sub(lambda m: _ESCAPES[m.group()], token)


def _stream(tokens: Sequence[str]) -> str:
    """One section's stream (see the module docstring): the tokens escaped and joined, by
    C-speed joins and replaces on the whole text rather than a Python step per token (a CJK
    section is one token per character, its separator runs hold newlines)."""
    if not tokens:
        return ""
    text = _JOIN.join(tokens)
    if text.count(_JOIN) != len(tokens) - 1:  # a token holds the join mark itself
        return "\n" + "\n\n".join(map(escape, tokens)) + "\n"
    if _ESCAPED.search(text):  # as escape() does to each token: "\\" first
        for char, escaped in _ESCAPES.items():
            text = text.replace(char, escaped)
    return "\n" + text.replace(_JOIN, "\n\n") + "\n"


def _block(analyzed: Sequence[Sequence[str]]) -> str:
    """One analyzer's block of the sections' tokens ``analyzed``."""
    lengths = ",".join(str(len(tokens)) for tokens in analyzed)
    streams = "".join(_stream(tokens) + SECTION_END for tokens in analyzed)
    return lengths + LENGTHS_END + streams + BLOCK_END


#: A page's sections analyzed: per analyzer, each section's tokens.
Analyzed = list[list[list[str]]]


def analyze(body: str, analyzers: Sequence[tantivy.TextAnalyzer]) -> Analyzed:
    """Each section of ``body`` (:func:`section_spans`) analyzed by each of ``analyzers``:
    the sections' tokens of one analyzer, in order, are the tokens of the whole body (a
    section starts at a line start, and a blank section has none)."""
    texts = [body[a:b] for a, b in section_spans(body)]
    return [[one.analyze(text) for text in texts] for one in analyzers]


def encode(body: str, analyzers: Sequence[tantivy.TextAnalyzer]) -> bytes:
    """The stored ``sections`` value of a page: each section of ``body`` analyzed by each
    of ``analyzers`` (the English one, and the CJK one for a body with CJK text)."""
    return encoded(analyze(body, analyzers))


def encoded(analyzed: Analyzed) -> bytes:
    """The stored ``sections`` value of a page's :func:`analyze`."""
    return "".join(_block(sections) for sections in analyzed).encode()


_BLOCK_END = BLOCK_END.encode()
_LENGTHS_END = LENGTHS_END.encode()
_SECTION_END = SECTION_END.encode()


def decode(data: bytes) -> list[Block]:
    """The blocks of a stored value of :func:`encode`, one per analyzer it was given.

    Raises:
        ValueError: ``data`` is not a value :func:`encode` wrote.
    """
    out: list[Block] = []
    for block in data.split(_BLOCK_END)[:-1]:
        lengths, _, text = block.partition(_LENGTHS_END)
        out.append(([int(n) for n in lengths.split(b",")] if lengths else [], text))
    return out


def streams(text: bytes) -> list[bytes]:
    """The section streams of a :data:`Block`'s text, in order."""
    return text.split(_SECTION_END)[:-1]


def needle(tokens: Sequence[str]) -> tuple[bytes, int]:
    """What :func:`occurrences` looks for: ``tokens`` (one token, or adjacent ones) as a
    stream holds them (UTF-8), and the step in bytes from one match to where the next may
    start (0: matches never overlap; they can only when a token repeats, as ``(哈, 哈)`` in
    ``哈哈哈``)."""
    text = "\n" + "\n\n".join(map(escape, tokens)) + "\n"
    step = len(escape(tokens[0]).encode()) + 1 if len(set(tokens)) < len(tokens) else 0
    return text.encode(), step


def occurrences(stream: bytes, wanted: tuple[bytes, int]) -> int:
    """How many times a :func:`needle` occurs in a section's stream (overlaps counted)."""
    text, step = wanted
    if not step:
        return stream.count(text)
    found, at = 0, stream.find(text)
    while at >= 0:
        found += 1
        at = stream.find(text, at + step)
    return found
