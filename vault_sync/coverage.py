"""Query-word coverage: IDF-weighted coordination and coverage diversification of the top
ranks (issue 10, the ranking-quality round; docs/eval.md, "Query-word coverage").

Layer 5 (STYLE.md), beside :mod:`vault_sync.ranking`, which calls it after the scores and
before its rules. Both stages read which of the query's body words each candidate page holds,
from the page's stored analyzed sections (:mod:`vault_sync.index.section_terms`, a byte search
per word and page: no analyzer runs at query time), each word weighted by its BM25 idf
(:func:`vault_sync.passages.query_terms`):

- **coordination** (switch ``no-coordination``): a page's score is multiplied by
  ``1 - w + w * share``, ``share`` the idf-weighted share of the query's words it holds
  (the coordination factor of Salton's extended Boolean model and of Lucene's classic
  ``coord``, weighted by idf as in Salton, Fox & Wu 1983);
- **coverage** (switch ``no-coverage``): ranks 2 to :attr:`depth` are chosen again one by
  one, each time the page maximising ``(1 - w) * score / best score + w * novelty``,
  ``novelty`` the idf-weighted share of the query's words that no page placed above it holds
  (xQuAD, Santos, Macdonald & Ounis 2010, with the query's words as its aspects, as in
  PM-2's term-level diversification, Dang & Croft 2013); rank 1 never moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import tantivy

from vault_sync.index.section_terms import needle
from vault_sync.passages import query_terms
from vault_sync.query_fields import FieldQuery


class _Ranked(Protocol):
    """What these stages read and set on a :class:`vault_sync.ranking.Candidate`."""

    doc: tantivy.Document | None
    final: float
    coverage: float | None
    path: str


@dataclass(frozen=True)
class Words:
    """The query's body words as the stages look for them.

    Attributes:
        needles: each word as a stored stream holds it
            (:func:`~vault_sync.index.section_terms.needle`).
        weights: each word's idf over the sum of them (they sum to 1).
    """

    needles: tuple[bytes, ...]
    weights: tuple[float, ...]


def query_words(parts: Sequence[FieldQuery], searcher: tantivy.Searcher) -> Words | None:
    """The :class:`Words` of a query plan's field queries; ``None`` when it has fewer than
    two body words (one word: every candidate holds it, nothing to cover)."""
    terms = query_terms(parts, searcher)
    total = sum(t.idf for t in terms)
    if len(terms) < 2 or total <= 0:
        return None
    return Words(
        tuple(needle(t.tokens)[0] for t in terms),
        tuple(t.idf / total for t in terms),
    )


def rarest(words: Words, count: int) -> Words:
    """The ``count`` words of highest idf (all for 0), weights summing to 1 again."""
    if not count or count >= len(words.needles):
        return words
    best = sorted(range(len(words.needles)), key=lambda i: -words.weights[i])[:count]
    total = sum(words.weights[i] for i in best)
    return Words(
        tuple(words.needles[i] for i in best), tuple(words.weights[i] / total for i in best)
    )


def held(doc: tantivy.Document | None, words: Words) -> tuple[bool, ...] | None:
    """Which of ``words`` a stored page holds (in any analyzer's block of its ``sections``);
    ``None`` for a page without them (brought by the graph, or of an older index)."""
    data = doc.get_first("sections") if doc is not None else None
    if not data:
        return None
    return tuple(n in data for n in words.needles)


def _share(holds: tuple[bool, ...], weights: tuple[float, ...]) -> float:
    return sum(w for h, w in zip(holds, weights, strict=True) if h)


def coordinate(order: list[Any], words: Words, weight: float) -> None:
    """Multiply each candidate's ``final`` by ``1 - weight + weight * share`` (its
    idf-weighted share of the words held; pages without stored sections are left alone),
    record the factor in its ``coordination`` and sort ``order`` again by
    ``(-final, path)``. ``weight`` in [0, 1]."""
    for candidate in order:
        holds = held(candidate.doc, words)
        if holds is None:
            continue
        factor = 1 - weight + weight * _share(holds, words.weights)
        candidate.coordination = round(factor, 6)
        candidate.final = round(candidate.final * factor, 6)
    order.sort(key=lambda c: (-c.final, c.path))


def diversify(order: list[Any], words: Words, weight: float, depth: int) -> None:
    """Choose ranks 2..``depth`` of ``order`` (sorted best first) again, greedily, by
    ``(1 - weight) * final / best final + weight * novelty`` (see the module docstring);
    each moved candidate's ``coverage`` is set to its novelty when chosen. Ranks below
    ``depth`` and rank 1 keep their places; ties keep the score order."""
    top = order[:depth]
    if len(top) < 3 or weight <= 0:
        return
    best = top[0].final if top[0].final > 0 else 1.0
    holds = [held(c.doc, words) for c in top]
    uncovered = list(words.weights)
    first = holds[0]
    if first is not None:
        uncovered = [0.0 if h else w for h, w in zip(first, uncovered, strict=True)]
    chosen, rest = [top[0]], list(range(1, len(top)))
    while rest:
        gains = []
        for i in rest:
            own = holds[i]
            novelty = _share(own, tuple(uncovered)) if own is not None else 0.0
            gains.append(((1 - weight) * top[i].final / best + weight * novelty, novelty, i))
        value, novelty, i = max(gains, key=lambda g: (g[0], -g[2]))
        del value
        rest.remove(i)
        candidate = top[i]
        candidate.coverage = round(novelty, 6)
        chosen.append(candidate)
        own = holds[i]
        if own is not None:
            uncovered = [0.0 if h else w for h, w in zip(own, uncovered, strict=True)]
    order[:depth] = chosen
