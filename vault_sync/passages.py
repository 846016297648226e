"""Best-passage scoring: a long page is also judged by its best section (issue 16).

Part of the retrieval layer (4), beside :mod:`vault_sync.retrieve` (whose ``lexical_rows``
calls :func:`rerank` on the lexical stream's best pages). tantivy scores a page's ``body`` as
one field, and BM25's length normalisation (``b`` 0.75, fixed by tantivy) lets a short page
that mentions a question's words once outscore the long page whose section answers it (an
SRD spell above the combat rules' "Opportunity Attacks" section). Here each candidate's body
is cut into its sections (:func:`sections`), each section is scored by BM25 over the query's
body words with the candidates' sections as the documents, and the best section's score is
added to the page's, weighted :data:`PASSAGE_WEIGHT` (the max-passage evidence of passage
retrieval: Callan 1994; Kaszkiel & Zobel 1997). Only the lexical stream's best pages are
looked at, and nothing is added when none of them has two sections (conversation sessions,
LoCoMo and LongMemEval pages, rank as before). :func:`best_section` also places a long
page's snippet in the section that answers (``retrieve.snippet_of``). The sections come
analyzed from the index (its stored ``sections`` field, :mod:`vault_sync.index.section_terms`):
a query counts its words there and runs no analyzer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import tantivy

from vault_sync.index import CJK_ANALYZER, EN_ANALYZER, schema, stored_text
from vault_sync.index.page_index import Row
from vault_sync.index.section_terms import (
    Block,
    decode,
    needle,
    occurrences,
    section_spans,
    streams,
)
from vault_sync.query_fields import BM25_B, BM25_K1, FieldQuery

#: Weight of the best section's score beside the page's own (0 turns the stage off; switch
#: ``no-passages``). Dev splits of benchmarks/queries (docs/eval.md, "Best passage"): 0.5,
#: 1.0, 1.5 and 2.0 measured; 1.0 best on the SRD (dev MRR 0.854 -> 0.884, new dev questions
#: hit@5 0.737 -> 0.947) without a loss on the two English vaults' dev split.
PASSAGE_WEIGHT = 1.0
#: The fields whose words are looked for in sections, by the analyzer that cuts a section.
_PASSAGE_FIELDS = {"body": EN_ANALYZER, "body_cjk": CJK_ANALYZER}
#: The analyzers of the stored ``sections`` blocks, in their order (``index.schema``).
_BLOCKS = (EN_ANALYZER, CJK_ANALYZER)

#: A query word as a stream holds it (:func:`~vault_sync.index.section_terms.needle`), and
#: its idf.
_Wanted = tuple[tuple[bytes, int], float]
#: The query's words by analyzer name: ``(single tokens, adjacent pairs)``.
_Lookup = dict[str, tuple[list[_Wanted], list[_Wanted]]]


@dataclass(frozen=True)
class _Term:
    """One query word as a section looks for it: a token, or two adjacent CJK tokens."""

    analyzer: str
    tokens: tuple[str, ...]
    idf: float


def sections(body: str) -> list[str]:
    """The text of each of :func:`section_spans`."""
    return [body[a:b] for a, b in section_spans(body)]


def _wanted(parts: Sequence[FieldQuery]) -> list[tuple[str, tuple[str, ...]]]:
    """The query's body words, ``(field, tokens)``: each single English token, each CJK
    unigram or bigram, once."""
    wanted: dict[tuple[str, tuple[str, ...]], None] = {}
    for part in parts:
        most = 2 if part.field == "body_cjk" else 1
        if part.field in _PASSAGE_FIELDS and 1 <= len(part.tokens) <= most:
            wanted[(part.field, part.tokens)] = None
    return list(wanted)


#: The last :func:`query_terms` asked, ``(searcher, parts, terms)``: a query asks twice with
#: the same searcher and parts (:func:`rerank`, then its snippets), and a CJK bigram's
#: document frequency is a phrase search (~0.1 ms at 10k pages). Only the same two objects
#: answer from it, so a later query (another searcher) never does.
_LAST: list[tuple[Any, Any, tuple[_Term, ...]]] = [(None, None, ())]


def query_terms(parts: Sequence[FieldQuery], searcher: tantivy.Searcher) -> list[_Term]:
    """The query's body words (:func:`_wanted`) with their idf over the pages (tantivy's
    BM25 idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``)."""
    last = _LAST[0]  # read once: another thread may replace it
    if last[0] is searcher and last[1] is parts:
        return list(last[2])
    terms = _query_terms(parts, searcher)
    _LAST[0] = (searcher, parts, tuple(terms))
    return terms


def _query_terms(parts: Sequence[FieldQuery], searcher: tantivy.Searcher) -> list[_Term]:
    total = max(searcher.num_docs, 1)
    wanted = _wanted(parts)
    out = []
    for field, tokens in wanted:
        if len(tokens) == 1:
            df = searcher.doc_freq(field, tokens[0])
        else:
            phrase = tantivy.Query.phrase_query(schema(), field, list(tokens))
            found = searcher.search(phrase, limit=1, count=True)
            df = int(getattr(found, "count", 0) or 0)  # the stub lacks SearchResult.count
        if df:
            idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
            out.append(_Term(_PASSAGE_FIELDS[field], tokens, idf))
    return out


def _blocks(doc: tantivy.Document) -> dict[str, Block]:
    """A stored page's analyzed sections by analyzer name (a document without the field, of
    no index this version writes, has no section)."""
    data = doc.get_first("sections")
    return dict(zip(_BLOCKS, decode(data) if data else [], strict=False))


def _best(page: dict[str, Block], terms: _Lookup, avg: dict[str, float]) -> list[float]:
    """BM25 of each section of a page (by its blocks), sections as the documents; ``[]``
    when no section holds a query word (each section would score 0)."""
    scores: list[float] = []
    for name, (singles, pairs) in terms.items():
        if name not in page:
            continue
        lengths, text = page[name]
        wanted = [w for w in singles + pairs if w[0][0] in text]
        if not wanted:
            continue
        scores = scores or [0.0] * len(lengths)
        parts, mean = streams(text), avg[name]
        norms = [BM25_K1 * (1 - BM25_B + BM25_B * length / mean) for length in lengths]
        for word, idf in wanted:  # a section's sum over the words, in the same order
            found = [p.count(word[0]) for p in parts] if not word[1] else None
            for i, stream in enumerate(parts):
                if tf := found[i] if found is not None else occurrences(stream, word):
                    scores[i] += idf * tf * (BM25_K1 + 1) / (tf + norms[i])
    return scores


def _lookup(terms: Sequence[_Term]) -> _Lookup:
    """The terms by analyzer name, single tokens apart from pairs, each with its idf."""
    lookup: _Lookup = {}
    for term in terms:
        singles, pairs = lookup.setdefault(term.analyzer, ([], []))
        (singles if len(term.tokens) == 1 else pairs).append((needle(term.tokens), term.idf))
    return lookup


def _average(pages: Sequence[dict[str, Block]], names: Iterable[str]) -> dict[str, float]:
    """Mean section length by analyzer over ``pages`` (at least 1.0; 1.0 for none)."""
    avg = {}
    for name in names:
        lengths = [n for page in pages if name in page for n in page[name][0]]
        avg[name] = max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0
    return avg


def holds_any(doc: tantivy.Document, tokens: Iterable[str]) -> bool:
    """Whether a stored page's body holds one of the English-analyzed ``tokens`` (a word the
    body field indexed: the words tantivy's snippet generator can highlight), by its stored
    sections (:func:`~vault_sync.index.section_terms.needle`, looked for in every block: a
    superset of the English one); ``True`` for a document without them."""
    data = doc.get_first("sections")
    if not data:
        return True
    return any(needle((token,))[0] in data for token in tokens)


def best_section(
    terms: Sequence[_Term], doc: tantivy.Document
) -> tuple[int, tuple[int, int]] | None:
    """The best-scoring section of a stored page for the query's :func:`query_terms` (BM25,
    the page's sections as the documents: the snippet's place), as its number among
    :func:`~vault_sync.index.section_terms.section_spans` and its ``(start, end)`` character
    offsets; ``None`` for a page of one section or none matching."""
    if not terms:
        return None
    spans = section_spans(stored_text(doc, "body"))
    if len(spans) < 2:
        return None
    lookup = _lookup(terms)
    page = _blocks(doc)
    scores = _best(page, lookup, _average([page], lookup))
    if not scores:
        return None
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    return (best, spans[best]) if scores[best] > 0 else None


def rerank(
    searcher: tantivy.Searcher, parts: Sequence[FieldQuery], rows: list[Row], weight: float
) -> list[Row]:
    """``rows`` rescored ``score + weight * best section score`` and sorted by
    ``(-score, path)`` (scores rounded to 6 decimals, as the index's); unchanged when
    ``weight`` is 0, no row has two sections or the query has no body word.

    Args:
        searcher: the searcher the rows came from (for document frequencies).
        parts: the query plan's positive field queries (``QueryPlan.parts``).
        rows: the lexical stream's best pages, ``(score, address, document)``.
        weight: :data:`PASSAGE_WEIGHT` or an override.
    """
    if not weight or not _wanted(parts):
        return rows
    pages = [_blocks(doc) for _s, _a, doc in rows]
    if not any(len(page[EN_ANALYZER][0]) > 1 for page in pages if EN_ANALYZER in page):
        return rows
    terms = query_terms(parts, searcher)
    if not terms:
        return rows
    lookup = _lookup(terms)
    avg = _average(pages, lookup)
    out = [
        (round(score + weight * max(_best(page, lookup, avg), default=0.0), 6), addr, doc)
        for (score, addr, doc), page in zip(rows, pages, strict=True)
    ]
    out.sort(key=lambda row: (-row[0], stored_text(row[2], "path")))
    return out
