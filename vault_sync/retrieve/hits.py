"""Hits of the lexical stream: :class:`Hit` (what every front end shows), its snippet
(:func:`snippet_generator`, :func:`snippet_of`) and ``--explain``'s per-field scores
(:func:`lexical_explain`).

Part of :mod:`vault_sync.retrieve` (layer 4, STYLE.md); the snippet's passage is chosen by
:mod:`vault_sync.fragments` and :mod:`vault_sync.passages`, shown by :mod:`vault_sync.snippets`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import tantivy

from vault_sync import fragments, passages
from vault_sync.index import (
    schema,
    stored_text,
)
from vault_sync.query_fields import (
    BM25_B,
    BM25_K1,
    PHRASE_BOOST,
    TIE_BREAKER,
    QueryPlan,
)
from vault_sync.snippets import SNIPPET_MAX_CHARS, Snippet, make_snippet


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        path, id, title, kind, project, status, tags: the page's stored fields.
        score: BM25 with field boosts, rounded to 6 decimals.
        snippet: an extract of the body as plain text (:mod:`vault_sync.snippets`); ``…``
            marks a cut end.
        highlights: ``(start, end)`` character offsets of the matched words in ``snippet``.
        explain: per matched field, its terms and score, with the boosts used (and, from
            :mod:`vault_sync.ranking`, every stage's part); ``None`` unless asked for.
        confidence: the page's confidence from its evidence (:mod:`vault_sync.page_facts`),
            in ``[0, 0.99]``; ``None`` from the lexical stream alone.
    """

    path: str
    id: str
    title: str
    kind: str
    project: str | None
    status: str
    tags: tuple[str, ...]
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...] = ()
    explain: dict[str, Any] | None = None
    confidence: float | None = None

    def marked_snippet(self, before: str = "**", after: str = "**") -> str:
        """The snippet with ``before`` / ``after`` around each highlight."""
        return Snippet(self.snippet, self.highlights).marked(before, after)


def hit_of(
    doc: tantivy.Document,
    score: float,
    snippet: Snippet,
    explain: dict[str, Any] | None,
    confidence: float | None = None,
) -> Hit:
    """The :class:`Hit` of a stored document, with its score, snippet and explain."""
    return Hit(
        path=stored_text(doc, "path"),
        id=stored_text(doc, "id"),
        title=stored_text(doc, "title"),
        kind=stored_text(doc, "kind"),
        project=doc.get_first("project"),
        status=stored_text(doc, "status"),
        tags=tuple(doc.get_all("tags")),
        score=score,
        snippet=snippet.text,
        highlights=snippet.highlights,
        explain=explain,
        confidence=confidence,
    )


@dataclass(frozen=True)
class Snippets:
    """What cutting a query's snippets needs: tantivy's generator for the plan's query over
    ``body``, the query's body words with their idf (:func:`vault_sync.passages.query_terms`,
    empty when the plan has no passage weight) to find a long page's answering section, and
    the generator's term scores to choose its passage without it
    (:func:`vault_sync.fragments.term_scores`; ``None`` with an excluded word)."""

    generator: tantivy.SnippetGenerator
    terms: tuple[Any, ...]
    scores: dict[bytes, float] | None = None


def snippet_generator(searcher: tantivy.Searcher, plan: QueryPlan) -> Snippets:
    """The :class:`Snippets` of a plan."""
    generator = tantivy.SnippetGenerator.create(searcher, plan.query, schema(), "body")
    generator.set_max_num_chars(SNIPPET_MAX_CHARS)
    terms = passages.query_terms(plan.parts, searcher) if plan.passage_weight else []
    scores = None
    if plan.body_terms is not None:
        scores = fragments.term_scores({t: searcher.doc_freq("body", t) for t in plan.body_terms})
    return Snippets(generator, tuple(terms), scores)


def snippet_of(snippets: Snippets, doc: tantivy.Document, plan: QueryPlan) -> Snippet:
    """The hit's snippet: tantivy's passage (:func:`vault_sync.fragments.passage`), inside
    the section of a long page that scores best for the query
    (:func:`vault_sync.passages.best_section`) when it has one; :mod:`vault_sync.snippets`
    shows it."""
    body = stored_text(doc, "body")
    section = passages.best_section(snippets.terms, doc)
    if plan.body_terms is not None and not passages.holds_any(doc, plan.body_terms):
        wheres: list[tuple[int, tuple[int, int]] | None] = []  # tantivy would highlight none
    else:
        wheres = [section, None] if section else [None]
    for where in wheres:
        start = 0 if where is None else len(body[: where[1][0]].encode())
        (first, last), marks = fragments.passage(
            snippets.generator, snippets.scores, doc, body, where
        )
        if marks:
            spans = [(start + a, start + b) for a, b in marks]
            return make_snippet(body, (start + first, start + last), spans, plan.literals)
    # tantivy highlights no CJK word of the section (its body copy is English-analyzed)
    return make_snippet(body, None, [], plan.literals, near=section[1][0] if section else 0)


_TERM_CONTEXT = re.compile(r'^Term=Term\(field=\d+, type=Str, "(.*)"\)$')


def _matched_terms(node: dict[str, Any], found: list[str]) -> None:
    for ctx in node.get("context", []):
        m = _TERM_CONTEXT.match(ctx)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    for child in node.get("details", []):
        _matched_terms(child, found)


def lexical_explain(
    plan: QueryPlan, searcher: tantivy.Searcher, addr: tantivy.DocAddress, score: float
) -> dict[str, Any]:
    """Per matched field: its clause, matched terms, boost and boosted BM25 score.

    A clause's score is ``max(fields) + TIE_BREAKER * sum(other fields)`` over its ranked
    fields, plus its :data:`BONUS_FIELDS` scores; the hit's score is the sum over clauses.
    """
    matches: list[dict[str, Any]] = []
    for part in plan.parts:
        try:
            tree = json.loads(part.query.explain(searcher, addr).to_json())
        except ValueError:  # "Document #(n) does not match"
            continue
        terms: list[str] = []
        _matched_terms(tree, terms)
        matches.append(
            {
                "clause": part.clause,
                "field": part.field,
                "terms": terms or list(part.tokens),
                "boost": part.boost,
                "score": round(float(tree["value"]), 6),
            }
        )
    return {
        "score": score,
        "bm25": {"k1": BM25_K1, "b": BM25_B},
        "field_boosts": dict(plan.boosts),
        "phrase_boost": PHRASE_BOOST,
        "tie_breaker": TIE_BREAKER,
        "matches": matches,
    }
