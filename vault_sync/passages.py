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
page's snippet in the section that answers (``retrieve.snippet_of``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import tantivy

from vault_sync.index import CJK_ANALYZER, EN_ANALYZER, analyzer, has_cjk, schema, stored_text
from vault_sync.index.page_index import Row
from vault_sync.query_fields import BM25_B, BM25_K1, FieldQuery

#: Weight of the best section's score beside the page's own (0 turns the stage off; switch
#: ``no-passages``). Dev splits of benchmarks/queries (docs/eval.md, "Best passage"): 0.5,
#: 1.0, 1.5 and 2.0 measured; 1.0 best on the SRD (dev MRR 0.854 -> 0.884, new dev questions
#: hit@5 0.737 -> 0.947) without a loss on the two English vaults' dev split.
PASSAGE_WEIGHT = 1.0
#: The fields whose words are looked for in sections, by the analyzer that cuts a section.
_PASSAGE_FIELDS = {"body": EN_ANALYZER, "body_cjk": CJK_ANALYZER}
_HEADING = re.compile(r"^#{1,6}\s", re.MULTILINE)
#: Pages cut and counted, by ``(path, hash of the body text, analyzer)``: a long-lived process
#: (the MCP server, ``eval``) asks about the same pages again. At most :data:`_CACHED` entries.
_CACHED = 4096

#: One section as an analyzer sees it: its token counts, adjacent-pair counts and length.
_Counts = tuple[dict[str, int], dict[tuple[str, ...], int], int]
#: The query's words by analyzer name: ``({token: idf}, {(token, token): idf})``.
_Lookup = dict[str, tuple[dict[str, float], dict[tuple[str, ...], float]]]
_CACHE: OrderedDict[tuple[str, int, str], list[_Counts]] = OrderedDict()


@dataclass(frozen=True)
class _Term:
    """One query word as a section looks for it: a token, or two adjacent CJK tokens."""

    analyzer: str
    tokens: tuple[str, ...]
    idf: float


def section_spans(body: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of each section of ``body``: cut before each
    Markdown heading line; the text before the first heading is a section of its own unless
    blank."""
    starts = [0, *(m.start() for m in _HEADING.finditer(body) if m.start())]
    cut = itertools.pairwise([*starts, len(body)])
    return [(a, b) for a, b in cut if body[a:b].strip()]


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


def query_terms(parts: Sequence[FieldQuery], searcher: tantivy.Searcher) -> list[_Term]:
    """The query's body words (:func:`_wanted`) with their idf over the pages (tantivy's
    BM25 idf, ``ln(1 + (N - df + 0.5) / (df + 0.5))``)."""
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


def _counts(text: str, name: str) -> _Counts:
    tokens = analyzer(name).analyze(text)
    return dict(Counter(tokens)), dict(Counter(itertools.pairwise(tokens))), len(tokens)


def _cached(doc: tantivy.Document, name: str) -> list[_Counts]:
    """Each section of a stored page counted by analyzer ``name``; for ``name`` ``""``, up to
    two empty entries (only how many sections there are, which is cheap)."""
    body = stored_text(doc, "body")
    key = (stored_text(doc, "path"), hash(body), name)
    if (hit := _CACHE.get(key)) is not None:
        _CACHE.move_to_end(key)
        return hit
    cut = sections(body)
    empty: _Counts = ({}, {}, 0)
    counts = [_counts(text, name) for text in cut] if name else [empty] * min(len(cut), 2)
    _CACHE[key] = counts
    if len(_CACHE) > _CACHED:
        _CACHE.popitem(last=False)
    return counts


def _score(section: dict[str, _Counts], terms: _Lookup, avg: dict[str, float]) -> float:
    """BM25 of one section (its counts by analyzer name), sections as the documents."""
    score = 0.0
    for name, (singles, pairs) in terms.items():
        if name not in section:
            continue
        unigrams, bigrams, length = section[name]
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / avg[name])
        # a keys view & a keys view walks the smaller side in C: most sections match no word
        for key in singles.keys() & unigrams.keys():
            tf = unigrams[key]
            score += singles[key] * tf * (BM25_K1 + 1) / (tf + norm)
        for pair in pairs.keys() & bigrams.keys():
            tf = bigrams[pair]
            score += pairs[pair] * tf * (BM25_K1 + 1) / (tf + norm)
    return score


def _lookup(terms: Sequence[_Term]) -> _Lookup:
    """The terms by analyzer name, single tokens apart from pairs, each with its idf."""
    lookup: _Lookup = {}
    for term in terms:
        singles, pairs = lookup.setdefault(term.analyzer, ({}, {}))
        if len(term.tokens) == 1:
            singles[term.tokens[0]] = term.idf
        else:
            pairs[term.tokens] = term.idf
    return lookup


def best_section(terms: Sequence[_Term], doc: tantivy.Document) -> tuple[int, int] | None:
    """``(start, end)`` character offsets of the best-scoring section of a stored page for
    the query's :func:`query_terms` (BM25, the page's sections as the documents: the
    snippet's place), or ``None`` for a page of one section or none matching."""
    body = stored_text(doc, "body")
    spans = section_spans(body)
    if len(spans) < 2 or not terms:
        return None
    cjk = has_cjk(body)
    page: list[dict[str, _Counts]] = [{} for _ in spans]
    for name in {t.analyzer for t in terms if t.analyzer != CJK_ANALYZER or cjk}:
        for section, count in zip(page, _cached(doc, name), strict=True):
            section[name] = count
    names = {name for section in page for name in section}
    avg = {n: max(sum(s[n][2] for s in page) / len(page), 1.0) for n in names}
    lookup = _lookup(terms)
    scores = [_score(section, lookup, avg) for section in page]
    best = max(range(len(spans)), key=lambda i: (scores[i], -i))
    return spans[best] if scores[best] > 0 else None


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
    if not weight or not any(len(_cached(doc, "")) > 1 for _s, _a, doc in rows):
        return rows
    terms = query_terms(parts, searcher)
    if not terms:
        return rows
    names = {t.analyzer for t in terms}
    pages: list[list[dict[str, _Counts]]] = []
    lengths: dict[str, list[int]] = {name: [] for name in names}
    for _s, _a, doc in rows:
        cjk = has_cjk(stored_text(doc, "body"))
        by_name = {n: _cached(doc, n) for n in names if n != CJK_ANALYZER or cjk}
        page: list[dict[str, _Counts]] = [{} for _ in next(iter(by_name.values()), [])]
        for name, counts in by_name.items():
            for section, count in zip(page, counts, strict=True):
                section[name] = count
                lengths[name].append(count[2])
        pages.append(page)
    avg = {name: max(sum(v) / len(v), 1.0) if v else 1.0 for name, v in lengths.items()}
    lookup = _lookup(terms)
    out = [
        (round(score + weight * max((_score(s, lookup, avg) for s in page), default=0.0), 6),
         addr, doc)
        for (score, addr, doc), page in zip(rows, pages, strict=True)
    ]  # fmt: skip
    out.sort(key=lambda row: (-row[0], stored_text(row[2], "path")))
    return out
