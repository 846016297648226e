"""Retrieval: user text -> a query plan -> ranked hits with snippets and explain.

Layer 4 (STYLE.md), a package of three modules: :mod:`~vault_sync.retrieve.query` (user text
-> a plan), :mod:`~vault_sync.retrieve.hits` (hits, snippets, explain) and
:mod:`~vault_sync.retrieve.run` (running a plan, the switches). Above the index
(:mod:`vault_sync.index`, storage and raw search), on the fast-starting ``query`` path, so it
imports nothing heavier than ``tantivy``.

A query is built apart from running it (sqlite-utils' ``search_sql`` / ``search``):
:func:`build_query` is the one place user text is interpreted (its clauses read by
:func:`vault_sync.query_text.read_clauses`) and returns a plain
:class:`QueryPlan`; :func:`run_query` runs a plan against an index; :func:`search` does both.
User text never reaches tantivy's query-string parser, so ``:``, ``(`` or ``*`` are plain
punctuation, not syntax. Ranking is BM25 with field boosts (the constants below, to be tuned
by ``eval``).
"""

from vault_sync.query_fields import FIELD_BOOSTS
from vault_sync.retrieve.hits import (
    Hit,
    Snippets,
    hit_of,
    lexical_explain,
    snippet_generator,
    snippet_of,
)
from vault_sync.retrieve.query import (
    QUERY_MAX_CHARS,
    QUERY_MAX_WORDS,
    QUOTED_MAX_CHARS,
    build_query,
    check_query_size,
    filter_terms,
)
from vault_sync.retrieve.run import (
    SWITCHES,
    lexical_plans,
    lexical_rows,
    query_reading,
    run_query,
    search,
)

__all__ = [
    "FIELD_BOOSTS",
    "QUERY_MAX_CHARS",
    "QUERY_MAX_WORDS",
    "QUOTED_MAX_CHARS",
    "SWITCHES",
    "Hit",
    "Snippets",
    "build_query",
    "check_query_size",
    "filter_terms",
    "hit_of",
    "lexical_explain",
    "lexical_plans",
    "lexical_rows",
    "query_reading",
    "run_query",
    "search",
    "snippet_generator",
    "snippet_of",
]
