"""The order of the candidates: the filters (:func:`keep`), the scores (:func:`score`: fusion,
authority, confidence and date multipliers) and the rank rules after them (:func:`rules`:
supersession, open contradictions, the follower of a ``next`` / ``prev`` link), together in
:func:`rank`.

Part of :mod:`vault_sync.ranking` (layer 5, STYLE.md), over the candidates
:mod:`vault_sync.ranking.candidates` gathered.
"""

from __future__ import annotations

from collections.abc import Set

from vault_sync.authority import Authority, authority
from vault_sync.graph_stream import asks, followers_below
from vault_sync.index import tag_ancestors
from vault_sync.not_yet import not_yet_factor
from vault_sync.page_facts import (
    in_window,
    page_confidence,
)
from vault_sync.ranking.candidates import Candidate, Run, follow_hops
from vault_sync.retrieve import (
    filter_terms,
)
from vault_sync.time_phrases import closeness


def unlink_as_of(run: Run, candidates: list[Candidate]) -> None:
    """``--as-of``: a page that was not yet (or no longer) valid on that day lends no link, so
    a candidate the graph brought through one loses that link (and :func:`keep` drops it
    when no other stream found it)."""
    day = run.plan.as_of
    if day is None:
        return
    for candidate in candidates:
        if candidate.graph is None:
            continue
        source = run.facts.get(candidate.graph.via.page)
        if source is not None and not in_window(source, day):
            candidate.graph = None


def tags_of(run: Run, candidate: Candidate) -> list[str]:
    """The candidate's tags: from its index document once read, else from the sidecar (the
    same tags, read with its facts: :func:`~vault_sync.page_facts.ranked_facts`)."""
    if candidate.doc is not None:
        return candidate.doc.get_all("tags")
    return run.tags.get(candidate.path, [])


def keep(run: Run, candidate: Candidate) -> bool:
    """The filters: ``--status`` and ``--as-of`` for every page, and the exact filters for
    pages the graph brought (the index applied them to the lexical stream, with the same
    terms: :func:`vault_sync.retrieve.filter_terms`, a tag matching its nested tags)."""
    plan, facts = run.plan, run.facts[candidate.path]
    if plan.status is not None and status_on(run, candidate.path) != plan.status:
        return False
    if plan.as_of is not None and not in_window(facts, plan.as_of):
        return False
    if candidate.lexical_rank is None and candidate.graph is None:
        return False  # its only link came from a page outside its window (unlink_as_of)
    if candidate.lexical_rank is not None:
        return True
    terms = filter_terms(plan.kind, plan.project, plan.tag)
    if "kind" in terms and facts.kind != terms["kind"]:
        return False
    if "project" in terms and facts.project != terms["project"]:
        return False
    if "tag_filter" in terms:
        return terms["tag_filter"] in {t.lower() for t in tag_ancestors(tags_of(run, candidate))}
    return True


def status_on(run: Run, path: str) -> str:
    """A page's status on the ``--as-of`` day, which ``--status`` filters by and the hit
    shows: a page ``superseded`` now whose named successors had not begun by that day
    (:func:`~vault_sync.page_facts.superseded_on`) was the current one then,
    ``active`` (docs/cli.md, ``--as-of``); else its status now (a page superseded by hand,
    with no successor named, among them)."""
    return run.status_then.get(path) or run.facts[path].status


def score(run: Run, candidates: list[Candidate]) -> None:
    """Stages 3-4 for each candidate: fusion, then authority, confidence, date and not-yet
    multipliers."""
    plan, settings = run.plan, run.plan.settings
    graph_on, graph_weight = "graph" in plan.stages, settings.graph_weight
    authority_on = "authority" in plan.stages
    confidence_on = "confidence" in plan.stages and settings.confidence_weight  # else 1
    for candidate in candidates:
        facts = run.facts[candidate.path]
        graph = candidate.graph.score if candidate.graph and graph_on else 0.0
        candidate.fused = candidate.lexical_norm + graph_weight * graph
        multiplier = 1.0
        if authority_on:
            candidate.authority = authority_of(run, candidate, explain=False)
            multiplier *= candidate.authority.multiplier
        if confidence_on:
            confidence_of(run, candidate)
            candidate.confidence_factor = 1 + settings.confidence_weight * (
                candidate.confidence - 0.5
            )
        if plan.spans and facts.date is not None:
            near = closeness(plan.spans, facts.date, settings.date_slack_days)
            candidate.date_factor = 1 + settings.date_weight * near
        if "not-yet" in plan.stages:
            candidate.not_yet_factor = not_yet_factor(
                facts.kind, facts.date, plan.as_of or plan.now, settings.not_yet_factors
            )
        multiplier *= candidate.confidence_factor * candidate.date_factor
        multiplier *= candidate.not_yet_factor
        candidate.final = round(candidate.fused * multiplier, 6)


def authority_of(run: Run, candidate: Candidate, *, explain: bool) -> Authority:
    """The authority stage's multiplier of a candidate, and its reasons when ``explain``
    (asked again for the hits ``--explain`` shows: the same multiplier)."""
    path, facts = candidate.path, run.facts[candidate.path]
    return authority(
        facts.kind,
        facts.status,
        tags_of(run, candidate),
        run.plan.settings,
        superseded_by=run.superseded.get(path),
        contradicted_by=run.open_against.get(path, ()),
        current_on=run.plan.as_of if run.status_then.get(path) == "active" else None,
        explain=explain,
    )


def confidence_of(run: Run, candidate: Candidate) -> None:
    """The candidate's confidence from its evidence and open contradictions (reported for
    every hit; read by the score only when ``confidence_weight`` is not 0)."""
    opened = run.open_edges.get(candidate.path, 0)
    candidate.confidence = page_confidence(run.facts[candidate.path], run.plan.now, opened)


def place(order: list[Candidate], present: Set[str], winner: str, loser: str, why: str) -> None:
    """Move ``winner`` directly above ``loser`` when it is below it (``present``: the paths
    in ``order``, which moves do not change; most pairs have an end outside it)."""
    if winner not in present or loser not in present:
        return
    at = {c.path: n for n, c in enumerate(order)}
    if at[winner] < at[loser]:
        return
    moved = order.pop(at[winner])
    order.insert(at[loser], moved)
    moved.rules.append(f"placed directly above {loser}: {why}")


def rules(run: Run, order: list[Candidate]) -> None:
    """Stage 5: a successor directly above the page it supersedes (a fresh correction
    always wins over a popular old belief), a challenger directly above the target of an
    open contradiction; one pass, in the order of the pages moved below (ties by path)."""
    pairs = []
    if "supersession" in run.plan.stages:
        pairs += [(new, old, "supersedes it") for old, new in run.superseded.items()]
    if "authority" in run.plan.stages:
        pairs += [
            (challenger, target, "contradicts it (unresolved)")
            for target, challengers in run.open_against.items()
            for challenger in challengers
        ]
    rank = {c.path: n for n, c in enumerate(order)}
    for winner, loser, why in sorted(pairs, key=lambda p: (rank.get(p[1], 1 << 30), p)):
        place(order, rank.keys(), winner, loser, why)
    if {"graph", "follow"} <= run.plan.stages and run.plan.settings.follow_depth:
        by_path = {c.path: c for c in order}
        paths, moved = followers_below([(c.path, c.graph) for c in order],
                                       run.plan.settings.follow_depth,
                                       follow_hops(run.plan),
                                       lambda path: asks(run.body(by_path[path])))  # fmt: skip
        order[:] = [by_path[path] for path in paths]
        for follower, (source, hop) in moved.items():
            why = "follows it" if hop == 1 else "answers the question it asks"
            by_path[follower].rules.append(f"placed directly below {source}: {why}")


def rank(run: Run, found: list[Candidate]) -> list[Candidate]:
    """The filters, the scores, their order and the rules over the candidates ``found``;
    the best ``limit`` of them."""
    unlink_as_of(run, found)
    kept = [c for c in found if keep(run, c)]
    score(run, kept)
    kept.sort(key=lambda c: (-c.final, c.path))
    rules(run, kept)
    return kept[: run.plan.limit]
