"""tantivy's snippet passage, chosen again from the stored sections (issue 10's query speed).

Part of the retrieval layer (4), beside :mod:`vault_sync.passages`. A hit's snippet starts from
the passage tantivy's ``SnippetGenerator`` chooses (``retrieve.snippet_of``): it runs the
``body`` field's analyzer over the whole text (a regex tokenizer, ~45 ms per MB: ~0.1 ms a
2 kB page, the largest part of a phrase query's ten snippets), cuts the tokens into fragments
and keeps the best one. For a page of ASCII text without our redaction token, the same choice
is made here from what the index already stored, without analyzing anything (a text whose
only other characters are punctuation and spaces, ``’ — …``, counts as ASCII: their UTF-8
bytes are blanks between tokens):

- the tokens' places: the analyzer's tokens of such a text are its runs of ``[A-Za-z0-9]``
  (``index.analyzers``' English pattern on ASCII), found by C-speed scans of a copy of the text
  with every letter or digit as ``a`` and every other byte as a blank;
- which tokens are query terms: the page's analyzed tokens, in order, are its stored sections
  (:mod:`vault_sync.index.section_terms`), where a term's token number is the count of
  newlines before it, halved; the text's count of runs must equal the stored count, or
  nothing is replayed (a token over the length limit, which the analyzer drops).

The rules replayed are tantivy's (``src/snippet/mod.rs``, ``search_fragments`` and
``select_best_fragment_combination``): a fragment starts at offset 0; a token whose end lies
more than ``max_num_chars`` bytes past the fragment's start begins a new fragment at its own
start; a fragment's score is the sum, in ``f32`` and token order, of its terms' scores
``1 / (1 + doc_freq)`` (``f32``); the best score wins, ties to the earliest fragment; the
fragment runs from its start to its last token's end, and its highlights are its terms'
tokens. The generator's terms are the query's terms on ``body`` with a document frequency
(``QueryPlan.body_terms``: without an excluded word, whose terms it also highlights). Anything
else (other non-ASCII text, our token, leading blanks, which tantivy-py trims) returns ``None``: the
caller asks tantivy. ``tests/test_fragments.py`` compares both on every hit of varied queries.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping

import tantivy

from vault_sync.index.section_terms import decode, needle, streams
from vault_sync.snippets import SNIPPET_MAX_CHARS

#: Every ASCII letter or digit as ``a``, every other byte as a blank (``bytes.translate``).
_RUNS = bytes(b"a"[0] if chr(i).isascii() and chr(i).isalnum() else b" "[0] for i in range(256))
#: One token of a :func:`replayable` text's UTF-8 (the English analyzer's regex on ASCII,
#: our token aside).
_TOKEN = re.compile(rb"[A-Za-z0-9]+")
#: A character that may be part of a word: anything but ASCII, the no-break space and
#: Unicode's General Punctuation block (U+2000-U+206F: dashes, curly quotes, ellipsis,
#: bullets, spaces, format characters; categories P*, Z*, Sm, Cf and unassigned, none of
#: them alphabetic or numeric for the analyzer).
_MAYBE_WORD = re.compile("[^\x00-\x7f\u00a0\u2000-\u206f]")

#: A chosen passage: the fragment's ``(start, end)`` and each term token's ``(start, end)`` in
#: it, UTF-8 byte offsets into the text (tantivy's ``fragment_range`` and highlights, made
#: absolute); no highlight when no fragment holds a term (tantivy's empty snippet).
Passage = tuple[tuple[int, int], list[tuple[int, int]]]
#: What tantivy returns when no fragment holds a term.
NO_PASSAGE: Passage = ((0, 0), [])


def passage(
    generator: tantivy.SnippetGenerator,
    scores: Mapping[bytes, float] | None,
    doc: tantivy.Document,
    body: str,
    section: tuple[int, tuple[int, int]] | None = None,
) -> Passage:
    """The passage tantivy's ``generator`` chooses in a stored page's ``body``, or in one of
    its sections (``(number, (start, end))``, character offsets: ``passages.best_section``),
    as UTF-8 byte offsets into that text: replayed by :func:`choose` when the text allows
    (:func:`replayable`, ``scores`` given: :func:`term_scores`), else asked of ``generator``
    (set to :data:`~vault_sync.snippets.SNIPPET_MAX_CHARS`)."""
    text = body if section is None else body[section[1][0] : section[1][1]]
    data = doc.get_first("sections")
    if scores is not None and data and replayable(text):
        block = decode(data)[0][1]  # the English analyzer's, first (index.schema)
        stream = block if section is None else streams(block)[section[0]]
        chosen = choose(text, stream, scores, SNIPPET_MAX_CHARS)
        if chosen is not None:
            return chosen
    target = doc if section is None else tantivy.Document(body=[text])
    snippet = generator.snippet_from_doc(target)
    if not (marks := snippet.highlighted()):
        return NO_PASSAGE
    frag = snippet.fragment_range()
    return (frag.start, frag.end), [(frag.start + r.start, frag.start + r.end) for r in marks]


def f32(value: float, box: memoryview[float] | None = None) -> float:
    """``value`` rounded to the nearest ``f32`` (as tantivy's scores are), through ``box``
    (a one-``f32`` view: :func:`_f32_box`, one per caller, so threads share none), without
    importing ``struct``."""
    box = box if box is not None else _f32_box()
    box[0] = value
    return float(box[0])


def _f32_box() -> memoryview[float]:
    return memoryview(bytearray(4)).cast("f")


def term_scores(doc_freqs: Mapping[str, int]) -> dict[bytes, float]:
    """tantivy's generator's term scores, ``f32(1 / (1 + doc_freq))`` for each term with a
    document frequency, keyed by the term's :func:`~vault_sync.index.section_terms.needle`."""
    return {needle((term,))[0]: f32(1.0 / (1.0 + df)) for term, df in doc_freqs.items() if df}


def replayable(text: str) -> bool:
    """Whether :func:`choose` can stand in for tantivy's generator on ``text``: ASCII but for
    characters that are never part of a word (:data:`_MAYBE_WORD`: its UTF-8 bytes are then
    all blanks between tokens), not starting with a blank (tantivy-py trims the text: offsets
    would move), without our redaction token (one token of the analyzer)."""
    return (
        (text.isascii() or not _MAYBE_WORD.search(text))
        and not text[:1].isspace()
        and "[REDACTED:" not in text
    )


def choose(
    text: str, stream: bytes, terms: Mapping[bytes, float], max_chars: int
) -> Passage | None:
    """The passage tantivy's snippet generator chooses in ``text`` (see the module docstring).

    Args:
        text: a :func:`replayable` text (a page's body, or one of its sections).
        stream: its analyzed tokens as the stored sections hold them (one section's stream,
            or the English block's streams of the whole body: newlines frame each token).
        terms: :func:`term_scores` of the query.
        max_chars: the generator's ``max_num_chars`` (bytes).

    Returns:
        The :data:`Passage` (:data:`NO_PASSAGE` when no fragment holds a term), or ``None``
        when ``text``'s runs of letters and digits are not ``stream``'s tokens one for one
        (by count: a token over the analyzer's length limit is dropped): ask tantivy.
    """
    data = text.encode()
    runs = data.translate(_RUNS)
    starts = _fragment_starts(runs, max_chars)
    before, total = [], 0  # tokens ahead of each fragment, counted piece by piece
    for at, stop in zip(starts, [*starts[1:], len(runs)], strict=True):
        before.append(total)
        total += runs.count(b" a", max(at - 1, 0), stop) + int(not at and runs[:1] == b"a")
    if total != stream.count(b"\n") // 2:
        return None
    found: list[tuple[int, float]] = []  # each term token's number (in token order), score
    for word, score in terms.items():
        at, seen, newlines = stream.find(word), 0, 0
        while at >= 0:
            newlines += stream.count(b"\n", seen, at)
            found.append((newlines // 2, score))
            seen, at = at, stream.find(word, at + len(word))
    if not found:
        return NO_PASSAGE
    found.sort()
    scores, box = [0.0] * len(starts), _f32_box()
    for number, score in found:
        j = bisect.bisect_right(before, number) - 1
        scores[j] = f32(scores[j] + score, box)
    best, best_score = -1, 0.0
    for j, score in enumerate(scores):
        if score > best_score:  # ties: the earliest fragment
            best, best_score = j, score
    if best < 0:
        return NO_PASSAGE
    start = starts[best]
    stop = starts[best + 1] if best + 1 < len(starts) else len(runs)
    wanted = {number - before[best] for number, _ in found}
    tokens = [m.span() for m in _TOKEN.finditer(data, start, stop)]
    return (start, tokens[-1][1]), [span for n, span in enumerate(tokens) if n in wanted]


def _fragment_starts(runs: bytes, max_chars: int) -> list[int]:
    """Where each fragment starts: 0, then the start of each token whose end lies more than
    ``max_chars`` past its fragment's start (the first such token after the fragment's
    first one)."""
    starts, start, end = [0], 0, len(runs)
    while True:
        at = start + max_chars  # the next fragment begins with the first token ending after it
        if at >= end:
            return starts
        if runs[at] == 97:  # inside a token: the one that holds it, unless it began the fragment
            begin = runs.rfind(b" ", 0, at) + 1
            if begin <= start:
                after = runs.find(b" ", at)
                begin = -1 if after < 0 else runs.find(b"a", after)
        else:
            begin = runs.find(b"a", at)
        if begin < 0:
            return starts
        starts.append(begin)
        start = begin
