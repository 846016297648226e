"""Running a built plan against both stores, as one generation: :func:`run_plan` (the stages,
then the hits with their snippets and ``--explain``) and :func:`search` (build, then run).

Part of :mod:`vault_sync.ranking` (layer 5, STYLE.md): gathers with
:mod:`vault_sync.ranking.candidates`, orders with :mod:`vault_sync.ranking.order`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import tantivy

from vault_sync.index import PageIndex
from vault_sync.paired_read import Pairing, paired
from vault_sync.rank_explain import explain_of
from vault_sync.rank_plan import RankPlan, build_plan
from vault_sync.ranking.candidates import (
    Candidate,
    Run,
    exclude_stage,
    graph_stage,
    lexical_stage,
    read_facts,
)
from vault_sync.ranking.order import authority_of, confidence_of, rank, status_on
from vault_sync.retrieve import (
    Hit,
    hit_of,
    lexical_explain,
    snippet_generator,
    snippet_of,
)
from vault_sync.snippets import Snippet
from vault_sync.store import Sidecar


def run_plan(
    index: PageIndex,
    sidecar: Sidecar,
    plan: RankPlan,
    *,
    explain: bool = False,
    snippets: bool = True,
) -> list[Hit]:
    """Run a built plan against both stores.

    Args:
        index: the opened index.
        sidecar: an open sidecar of the same set.
        plan: from :func:`build_plan`.
        explain: attach every stage's part to :attr:`Hit.explain`.
        snippets: cut snippets (``eval`` reads only the ranking).

    Returns:
        Up to ``plan.limit`` hits, by final score (ties by path), then the rules.

    Both stores are read as one generation (:func:`vault_sync.paired_read.paired`): a page
    the index and the sidecar hold under different paths (a batch moving it is between its
    two commits) runs the plan again once the lagging store has caught up.

    Raises:
        IndexCorruptError: the index could not be read.
        sqlite3.DatabaseError: the sidecar could not be read (the engine's damage path).
    """
    return paired(
        index,
        sidecar,
        lambda pairing: _run_plan(index, sidecar, plan, pairing, explain, snippets),
    )


def _run_plan(
    index: PageIndex,
    sidecar: Sidecar,
    plan: RankPlan,
    pairing: Pairing,
    explain: bool,
    snippets: bool,
) -> list[Hit]:
    with index.searching() as searcher:
        run = Run(plan, sidecar, *lexical_stage(index, searcher, plan), pairing=pairing)
        run.documents = lambda paths: index.documents(searcher, paths)
        if not run.candidates:
            return []
        if "graph" in plan.stages:
            graph_stage(run)
            exclude_stage(run, index, searcher)
        read_facts(run)
        chosen = rank(run, list(run.candidates.values()))
        # Index documents only for the pages returned that the lexical stream did not read
        # (their tags came from the sidecar): most of the graph's pages are never shown.
        unread = [c.path for c in chosen if c.doc is None]
        docs = index.documents(searcher, unread)
        for path, doc in docs.items():
            run.candidates[path].doc = doc
        if len(docs) < len(unread):  # the index lacks a page the sidecar holds (the stores
            # disagree for a moment): rank again only the pages the index holds, as read
            pairing.lacking_documents(p for p in unread if p not in docs)
            rest = [p for p, c in run.candidates.items() if c.doc is None and p not in unread]
            for path, doc in index.documents(searcher, rest).items():
                run.candidates[path].doc = doc
            for candidate in run.candidates.values():
                candidate.rules = []
            chosen = rank(run, [c for c in run.candidates.values() if c.doc is not None])
        for candidate in chosen:
            confidence_of(run, candidate)
        return _hits(run, searcher, chosen, explain=explain, snippets=snippets)


def _hits(
    run: Run, searcher: tantivy.Searcher, chosen: list[Candidate], *, explain: bool, snippets: bool
) -> list[Hit]:
    plan, lexical = run.plan, run.lexical
    generator = snippet_generator(searcher, lexical) if snippets else None
    hits = []
    for candidate in chosen:
        doc = candidate.doc
        assert doc is not None  # kept only with a document
        snippet = snippet_of(generator, doc, lexical) if generator else Snippet("", ())
        details = None
        if explain:
            if candidate.authority is not None:
                candidate.authority = authority_of(run, candidate, explain=True)
            words = (
                lexical_explain(lexical, searcher, candidate.addr, candidate.lexical_score or 0.0)
                if candidate.addr is not None
                else None
            )
            details = explain_of(candidate, run.facts[candidate.path], plan, words)
            # the quoted phrases found no page: their words were searched (lexical_plans)
            details["lexical"]["phrases_as_words"] = lexical is not plan.lexical
        hit = hit_of(doc, candidate.final, snippet, details, candidate.confidence)
        if (status := status_on(run, candidate.path)) != hit.status:
            hit = replace(hit, status=status)
        hits.append(hit)
    return hits


def search(
    index: PageIndex,
    sidecar: Sidecar,
    text: str,
    *,
    explain: bool = False,
    snippets: bool = True,
    **options: Any,
) -> list[Hit]:
    """Search the vault: :func:`build_plan` (``options``: its keywords) then
    :func:`run_plan`.

    Raises:
        QuerySyntaxError, ValueError: see :func:`build_plan`.
        IndexCorruptError, sqlite3.DatabaseError: see :func:`run_plan`.
    """
    plan = build_plan(text, **options)
    return run_plan(index, sidecar, plan, explain=explain, snippets=snippets)
