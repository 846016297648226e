"""Project-scoped idf (prototype)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import tantivy

from vault_sync.index import EN_ANALYZER, schema, stored_text
from vault_sync.index.page_index import Row
from vault_sync.index.section_terms import decode, needle
from vault_sync.passages import query_terms
from vault_sync.query_fields import BM25_B, BM25_K1, FieldQuery


def _count(searcher: tantivy.Searcher, query: tantivy.Query) -> int:
    found = searcher.search(query, limit=1, count=True)
    return int(getattr(found, "count", 0) or 0)  # the stub lacks SearchResult.count


def rerank(
    searcher: tantivy.Searcher,
    parts: Sequence[FieldQuery],
    rows: list[Row],
    project: str | None,
    weight: float,
) -> list[Row]:
    if not weight or project is None or len(rows) < 2:
        return rows
    terms = [
        t for t in query_terms(parts, searcher) if t.analyzer == EN_ANALYZER and len(t.tokens) == 1
    ]
    if not terms:
        return rows
    fields = schema()
    in_project = tantivy.Query.term_query(fields, "project", project)
    total = _count(searcher, in_project) or 1
    delta = []
    for t in terms:
        q = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, in_project),
                (tantivy.Occur.Must, tantivy.Query.term_query(fields, "body", t.tokens[0])),
            ]
        )
        df = _count(searcher, q)
        local = math.log(1 + (total - df + 0.5) / (df + 0.5))
        delta.append((needle(t.tokens)[0], local - t.idf))
    pages = []
    for _s, _a, doc in rows:
        data = doc.get_first("sections")
        blocks = decode(data) if data else []
        pages.append(blocks[0] if blocks else ([], b""))
    lengths = [sum(p[0]) for p in pages]
    avg = max(sum(lengths) / len(lengths), 1.0)
    out = []
    for (score, addr, doc), (_lens, text), n in zip(rows, pages, lengths, strict=True):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * n / avg)
        extra = 0.0
        for nd, d in delta:
            tf = text.count(nd)
            if tf:
                extra += d * tf * (BM25_K1 + 1) / (tf + norm)
        out.append((round(score + weight * extra, 6), addr, doc))
    out.sort(key=lambda row: (-row[0], stored_text(row[2], "path")))
    return out
