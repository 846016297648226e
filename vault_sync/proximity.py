"""Query-term proximity beyond adjacent pairs (prototype)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import tantivy

from vault_sync.index import EN_ANALYZER, stored_text
from vault_sync.index.page_index import Row
from vault_sync.index.section_terms import decode, escape, streams
from vault_sync.passages import query_terms
from vault_sync.query_fields import BM25_K1, FieldQuery

_SEP = b"\n\n"


def proximity_scores(
    data: bytes, pattern: re.Pattern[bytes], idf: dict[bytes, float], k: float
) -> float:
    blocks = decode(data)
    if not blocks:
        return 0.0
    _lengths, text = blocks[0]
    acc: dict[bytes, float] = {}
    for stream in streams(text):
        last_tok = None
        last_at = 0
        for m in pattern.finditer(stream):
            tok = m.group(1)
            at = m.start()
            if last_tok is not None and tok != last_tok:
                d = stream.count(_SEP, last_at, at)
                if d:
                    w = 1.0 / (d * d)
                    acc[tok] = acc.get(tok, 0.0) + idf[last_tok] * w
                    acc[last_tok] = acc.get(last_tok, 0.0) + idf[tok] * w
            last_tok, last_at = tok, at
    return sum(min(1.0, idf[t]) * a * (BM25_K1 + 1) / (a + k) for t, a in acc.items())


def rerank(
    searcher: tantivy.Searcher,
    parts: Sequence[FieldQuery],
    rows: list[Row],
    weight: float,
    depth: int,
    k: float = 1.2,
) -> list[Row]:
    if not weight or len(rows) < 2:
        return rows
    terms = [
        t for t in query_terms(parts, searcher) if t.analyzer == EN_ANALYZER and len(t.tokens) == 1
    ]
    if len(terms) < 2:
        return rows
    idf = {escape(t.tokens[0]).encode(): t.idf for t in terms}
    alt = b"|".join(re.escape(x) for x in sorted(idf, key=len, reverse=True))
    pattern = re.compile(b"\n(" + alt + b")\n")
    head = []
    for score, addr, doc in rows[:depth]:
        data = doc.get_first("sections")
        prox = proximity_scores(data, pattern, idf, k) if data else 0.0
        head.append((round(score + weight * prox, 6), addr, doc))
    head.sort(key=lambda row: (-row[0], stored_text(row[2], "path")))
    return head + rows[depth:]
