"""``query --explain``: what each ranking stage gave one hit (issue 10, item 8), as the JSON
shape docs/cli.md documents and a test pins (fields are added, never renamed).

Layer 4 (STYLE.md), pure: reads a :class:`vault_sync.ranking.Candidate` (passed in, not
imported: the pipeline imports this module), the page's facts and the plan.
"""

from __future__ import annotations

from typing import Any

from vault_sync.page_facts import PageFacts
from vault_sync.query_fields import BM25_B, BM25_K1, PHRASE_BOOST, TIE_BREAKER


def explain_of(
    candidate: Any, facts: PageFacts, plan: Any, words: dict[str, Any] | None
) -> dict[str, Any]:
    """The explain object of one hit.

    Keys: ``score`` (final), ``lexical`` (``rank``, ``score`` BM25, ``normalised``; nulls
    when only the graph found it), ``graph`` (``score``, ``weight``) or ``null``,
    ``graph_via`` (``from``, ``type``, ``direction``, ``depth``) or ``null``, ``fusion``
    (``method``, ``lexical``, ``graph``, ``fused``), ``authority`` (``multiplier``,
    ``reasons``) or ``null`` when switched off, ``evidence`` (entries), ``sessions``
    (distinct), ``confidence``, ``confidence_factor``, ``date_factor``, ``not_yet_factor``
    (:mod:`vault_sync.not_yet`), ``dates`` (``day``:
    the page's day or ``null``; ``spans``: each time phrase of the query with the ``start``
    and ``end`` days it names), ``rules``; and the
    lexical stream's ``bm25``, ``field_boosts``, ``phrase_boost``, ``tie_breaker``,
    ``matches`` (per matched field: clause, field, terms, boost, score; empty for a page only
    the graph found).
    """
    settings = plan.settings
    graph = candidate.graph if "graph" in plan.stages else None
    graph_part = settings.graph_weight * graph.score if graph else 0.0
    out: dict[str, Any] = {
        "score": candidate.final,
        "lexical": {
            "rank": candidate.lexical_rank,
            "score": candidate.lexical_score,
            "normalised": round(candidate.lexical_norm, 6),
        },
        "graph": {"score": graph.score, "weight": settings.graph_weight} if graph else None,
        "graph_via": (
            {
                "from": graph.via.page,
                "type": graph.via.type,
                "direction": graph.via.direction,
                "depth": graph.via.depth,
            }
            if graph
            else None
        ),
        "fusion": {
            "method": "linear",
            "lexical": round(candidate.lexical_norm, 6),
            "graph": round(graph_part, 6),
            "fused": round(candidate.fused, 6),
        },
        "authority": (
            {
                "multiplier": candidate.authority.multiplier,
                "reasons": list(candidate.authority.reasons),
            }
            if candidate.authority is not None
            else None
        ),
        "evidence": facts.evidence_count,
        "sessions": facts.sessions,
        "confidence": candidate.confidence,
        "confidence_factor": round(candidate.confidence_factor, 6),
        "date_factor": round(candidate.date_factor, 6),
        "not_yet_factor": round(candidate.not_yet_factor, 6),
        "dates": {
            "day": facts.date,
            "spans": [{"phrase": s.phrase, "start": s.start, "end": s.end} for s in plan.spans],
        },
        "rules": list(candidate.rules),
    }
    lexical = words or {}
    out["bm25"] = lexical.get("bm25", {"k1": BM25_K1, "b": BM25_B})
    out["field_boosts"] = lexical.get("field_boosts", dict(plan.lexical.boosts))
    out["phrase_boost"] = lexical.get("phrase_boost", PHRASE_BOOST)
    out["tie_breaker"] = lexical.get("tie_breaker", TIE_BREAKER)
    out["matches"] = lexical.get("matches", [])
    return out
