"""The retrieval pipeline (DESIGN §5; issue 10): lexical stream, graph stream, linear fusion,
authority, confidence, and the rules a careful colleague ranks by — then filters, snippets and
``--explain``.

Layer 5 (STYLE.md): above the lexical stream (:mod:`vault_sync.retrieve`, which reads only the
index) and the sidecar (:mod:`vault_sync.store`, through :mod:`vault_sync.page_facts`). It
runs a :class:`~vault_sync.rank_plan.RankPlan`, built apart from running it
(:mod:`vault_sync.rank_plan`), and every constant is a
:class:`~vault_sync.ranking_settings.RankingSettings` field, settable under ``[ranking]``.

The stages, in order (each a function below naming its source):

1. lexical: BM25F over the index's fields (``retrieve``), the best ``lexical_depth`` pages,
   scores normalised by the best one;
2. graph: neighbours of the best ``graph_seeds`` through resolved links
   (:mod:`vault_sync.graph_stream`);
3. fusion: ``lexical + graph_weight * graph`` (weighted linear fusion of normalised scores:
   equal-weight RRF with k = 60 over a weaker second stream lowered MRR below BM25 alone,
   DESIGN §5.3);
4. authority (:mod:`vault_sync.authority`), confidence (weight 0 unless ``eval`` shows it
   helps) and the date stage, as multipliers;
5. rules, after the scores: a page that supersedes another is placed directly above it, and
   the challenger of an unresolved contradiction directly above its target (issue 10,
   item 6), and (``follow_depth``) the page that follows a best hit through a ``next`` /
   ``prev`` link directly below it, each shown in ``--explain``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field, replace
from typing import Any

import tantivy

from vault_sync.authority import Authority, authority
from vault_sync.graph_stream import GraphHit, asks, followers_below, graph_scores
from vault_sync.index import PageIndex, stored_text, tag_ancestors
from vault_sync.page_facts import (
    PageFacts,
    contradiction_open,
    in_window,
    kept_facts,
    page_confidence,
    ranked_facts,
    read_by_rules,
    superseded_by_edges,
    superseded_on,
)
from vault_sync.paired_read import LENIENT, Pairing, paired
from vault_sync.query_fields import QueryPlan
from vault_sync.rank_explain import explain_of
from vault_sync.rank_plan import RankPlan, build_plan
from vault_sync.retrieve import (
    Hit,
    filter_terms,
    hit_of,
    lexical_explain,
    lexical_rows,
    snippet_generator,
    snippet_of,
)
from vault_sync.snippets import Snippet
from vault_sync.store import Sidecar
from vault_sync.time_phrases import closeness

#: Untyped edges (DESIGN §2): they lift a page the lexical stream found, never bring in one
#: it did not (a page that links to a hit, or that it links to, is no answer by itself).
UNTYPED = frozenset({"references", "embeds"})


@dataclass
class Candidate:
    """One page on its way through the stages (what ``--explain`` reports).

    Attributes:
        path: the page.
        doc: its stored index document, once fetched.
        addr: its address in the searcher, when the lexical stream found it.
        lexical_rank, lexical_score, lexical_norm: its lexical place (1-based), BM25 score and
            score over the best one; ``None`` / 0 when only the graph found it.
        graph: its graph stream score and way in, or ``None``.
        fused: the fused score.
        authority: the authority stage's multiplier (with its reasons for the hits
            ``--explain`` shows), or ``None`` when off.
        confidence: from its evidence (:func:`_confidence`: for the hits returned, and for
            every candidate when the score reads it); ``confidence_factor`` its multiplier.
        date_factor: the date stage's multiplier.
        final: the score the hits are sorted by.
        rules: why the rules moved it (``placed directly above X: supersedes it``).
    """

    path: str
    doc: tantivy.Document | None = None
    addr: tantivy.DocAddress | None = None
    lexical_rank: int | None = None
    lexical_score: float | None = None
    lexical_norm: float = 0.0
    graph: GraphHit | None = None
    fused: float = 0.0
    authority: Authority | None = None
    confidence: float = 0.0
    confidence_factor: float = 1.0
    date_factor: float = 1.0
    final: float = 0.0
    rules: list[str] = field(default_factory=list)


@dataclass
class _Run:
    """The state of one run: the plan, the stores, the candidates and what was read."""

    plan: RankPlan
    sidecar: Sidecar
    lexical: QueryPlan
    candidates: dict[str, Candidate]
    edges: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    facts: dict[str, PageFacts] = field(default_factory=dict)
    tags: dict[str, list[str]] = field(default_factory=dict)
    superseded: dict[str, str] = field(default_factory=dict)
    status_then: dict[str, str] = field(default_factory=dict)
    open_against: dict[str, list[str]] = field(default_factory=dict)
    open_edges: dict[str, int] = field(default_factory=dict)
    pairing: Pairing = LENIENT
    documents: Callable[[list[str]], dict[str, tantivy.Document]] = lambda paths: {}

    def body(self, candidate: Candidate) -> str:
        """A candidate's stored body, its index document read first when only the graph
        found it (``""`` when the index lacks it)."""
        if candidate.doc is None:
            candidate.doc = self.documents([candidate.path]).get(candidate.path)
        return stored_text(candidate.doc, "body") if candidate.doc is not None else ""

    def edges_of(self, paths: Iterable[str]) -> list[tuple[str, str, str]]:
        """Resolved links touching ``paths`` (read once per path), sorted."""
        wanted = set(paths)
        missing = wanted - self.edges.keys()
        for path in missing:
            self.edges[path] = []
        read = self.sidecar.resolved_links_touching(sorted(missing))
        for edge in read:
            for end in (edge[0], edge[2]):
                if end in missing:
                    self.edges[end].append(edge)
        if len(missing) == len(wanted):  # all read now (the first hop): sorted, each once
            return read
        return sorted({e for p in wanted for e in self.edges[p]})


def _lexical(
    index: PageIndex, searcher: tantivy.Searcher, plan: RankPlan
) -> tuple[QueryPlan, dict[str, Candidate]]:
    """Stage 1: the best ``depth`` pages by BM25F, normalised by the best score (the words
    of the quoted phrases when the phrases find nothing), and the lexical plan used."""
    used = plan.lexical
    rows = lexical_rows(index, searcher, used, plan.depth)
    if not rows and plan.fallback is not None:
        used = plan.fallback()
        rows = lexical_rows(index, searcher, used, plan.depth)
    top = rows[0][0] if rows and rows[0][0] > 0 else 1.0
    out = {}
    for rank, (score, addr, doc) in enumerate(rows, 1):
        path = stored_text(doc, "path")
        out[path] = Candidate(path, doc, addr, rank, score, score / top)
    return used, out


def _graph(run: _Run) -> None:
    """Stage 2: neighbours of the best ``graph_seeds`` lexical pages (DESIGN §5.2)."""
    settings = run.plan.settings
    seeds = [(c.path, c.lexical_norm) for c in run.candidates.values()]
    candidates = run.candidates
    found = graph_scores(
        seeds[: settings.graph_seeds],
        run.edges_of,
        settings,
        chain="chain" in run.plan.stages,
        follow=_follow_hops(run.plan) > 1,
        lifts_only=UNTYPED,  # a plain link only lifts a page the words found; brings none in
        found=candidates,
    )
    for path, hit in found.items():
        if path in candidates:
            candidates[path].graph = hit
        else:
            candidates[path] = Candidate(path, graph=hit)


def _exclude(run: _Run, index: PageIndex, searcher: tantivy.Searcher) -> None:
    """The graph's pages that hold an excluded word or phrase (``-storm``) leave: the
    lexical stream's query already left out its own (a fresh user saw ``retry -storm``
    bring back pages holding "storm" through their links)."""
    exclude = run.lexical.exclude
    if exclude is None:
        return
    brought = [p for p, c in run.candidates.items() if c.doc is None]
    for path in index.documents(searcher, brought, where=exclude):
        del run.candidates[path]


def _read_facts(run: _Run) -> None:
    """The facts of every candidate and of the far ends of their rule edges that the rules
    read (:func:`~vault_sync.page_facts.read_by_rules`); a candidate the sidecar does not
    hold (the stores disagree for a moment) is dropped, once :mod:`vault_sync.paired_read`
    has brought the lagging store forward (see :func:`run_plan`)."""
    unread = [path for path, candidate in run.candidates.items() if candidate.doc is None]
    run.facts, rule_edges, run.tags = ranked_facts(run.sidecar, run.candidates, unread)
    ends = read_by_rules(rule_edges) - run.candidates.keys()
    if ends:
        run.facts.update(kept_facts(run.sidecar, ends))
    lacking = [p for p in run.candidates if p not in run.facts]
    run.pairing.lacking_facts(d for p in lacking if (d := run.candidates[p].doc) is not None)
    for path in lacking:
        del run.candidates[path]
    plan = run.plan
    if "supersession" in plan.stages:
        run.superseded = superseded_by_edges(rule_edges, run.facts, plan.as_of)
    if plan.as_of is not None:  # replaced by a named successor, not yet on that day
        replaced_then = superseded_on(rule_edges, run.facts, plan.as_of)
        for path in superseded_on(rule_edges, run.facts, None) - replaced_then:
            if (facts := run.facts.get(path)) is not None and facts.status == "superseded":
                run.status_then[path] = "active"
    day = plan.as_of or plan.now
    for source, edge_type, target in rule_edges:
        if edge_type == "contradicts" and contradiction_open(
            run.facts.get(source), run.facts.get(target), day, run.superseded
        ):
            run.open_against.setdefault(target, []).append(source)
            for side in {source, target}:
                run.open_edges[side] = run.open_edges.get(side, 0) + 1


def _unlink_as_of(run: _Run, candidates: list[Candidate]) -> None:
    """``--as-of``: a page that was not yet (or no longer) valid on that day lends no link, so
    a candidate the graph brought through one loses that link (and :func:`_keep` drops it
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


def _tags(run: _Run, candidate: Candidate) -> list[str]:
    """The candidate's tags: from its index document once read, else from the sidecar (the
    same tags, read with its facts: :func:`~vault_sync.page_facts.ranked_facts`)."""
    if candidate.doc is not None:
        return candidate.doc.get_all("tags")
    return run.tags.get(candidate.path, [])


def _keep(run: _Run, candidate: Candidate) -> bool:
    """The filters: ``--status`` and ``--as-of`` for every page, and the exact filters for
    pages the graph brought (the index applied them to the lexical stream, with the same
    terms: :func:`vault_sync.retrieve.filter_terms`, a tag matching its nested tags)."""
    plan, facts = run.plan, run.facts[candidate.path]
    if plan.status is not None and _status_on(run, candidate.path) != plan.status:
        return False
    if plan.as_of is not None and not in_window(facts, plan.as_of):
        return False
    if candidate.lexical_rank is None and candidate.graph is None:
        return False  # its only link came from a page outside its window (_unlink_as_of)
    if candidate.lexical_rank is not None:
        return True
    terms = filter_terms(plan.kind, plan.project, plan.tag)
    if "kind" in terms and facts.kind != terms["kind"]:
        return False
    if "project" in terms and facts.project != terms["project"]:
        return False
    if "tag_filter" in terms:
        return terms["tag_filter"] in {t.lower() for t in tag_ancestors(_tags(run, candidate))}
    return True


def _status_on(run: _Run, path: str) -> str:
    """A page's status on the ``--as-of`` day, which ``--status`` filters by and the hit
    shows: a page ``superseded`` now whose named successors had not begun by that day
    (:func:`~vault_sync.page_facts.superseded_on`) was the current one then,
    ``active`` (docs/cli.md, ``--as-of``); else its status now (a page superseded by hand,
    with no successor named, among them)."""
    return run.status_then.get(path) or run.facts[path].status


def _score(run: _Run, candidates: list[Candidate]) -> None:
    """Stages 3-4 for each candidate: fusion, then authority, confidence and date
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
            candidate.authority = _authority(run, candidate, explain=False)
            multiplier *= candidate.authority.multiplier
        if confidence_on:
            _confidence(run, candidate)
            candidate.confidence_factor = 1 + settings.confidence_weight * (
                candidate.confidence - 0.5
            )
        if plan.spans and facts.date is not None:
            near = closeness(plan.spans, facts.date, settings.date_slack_days)
            candidate.date_factor = 1 + settings.date_weight * near
        multiplier *= candidate.confidence_factor * candidate.date_factor
        candidate.final = round(candidate.fused * multiplier, 6)


def _authority(run: _Run, candidate: Candidate, *, explain: bool) -> Authority:
    """The authority stage's multiplier of a candidate, and its reasons when ``explain``
    (asked again for the hits ``--explain`` shows: the same multiplier)."""
    path, facts = candidate.path, run.facts[candidate.path]
    return authority(
        facts.kind,
        facts.status,
        _tags(run, candidate),
        run.plan.settings,
        superseded_by=run.superseded.get(path),
        contradicted_by=run.open_against.get(path, ()),
        current_on=run.plan.as_of if run.status_then.get(path) == "active" else None,
        explain=explain,
    )


def _confidence(run: _Run, candidate: Candidate) -> None:
    """The candidate's confidence from its evidence and open contradictions (reported for
    every hit; read by the score only when ``confidence_weight`` is not 0)."""
    opened = run.open_edges.get(candidate.path, 0)
    candidate.confidence = page_confidence(run.facts[candidate.path], run.plan.now, opened)


def _place(order: list[Candidate], present: Set[str], winner: str, loser: str, why: str) -> None:
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


def _rules(run: _Run, order: list[Candidate]) -> None:
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
        _place(order, rank.keys(), winner, loser, why)
    if {"graph", "follow"} <= run.plan.stages and run.plan.settings.follow_depth:
        by_path = {c.path: c for c in order}
        paths, moved = followers_below([(c.path, c.graph) for c in order],
                                       run.plan.settings.follow_depth,
                                       _follow_hops(run.plan),
                                       lambda path: asks(run.body(by_path[path])))  # fmt: skip
        order[:] = [by_path[path] for path in paths]
        for follower, (source, hop) in moved.items():
            why = "follows it" if hop == 1 else "answers the question it asks"
            by_path[follower].rules.append(f"placed directly below {source}: {why}")


def _follow_hops(plan: RankPlan) -> int:
    """How many ``next`` / ``prev`` hops the follower rule walks from a best hit
    (``follow_hops``; 1 with ``no-second-hop``; 0 with the rule off)."""
    if not {"graph", "follow"} <= plan.stages or not plan.settings.follow_depth:
        return 0
    return plan.settings.follow_hops if "second-hop" in plan.stages else 1


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
        run = _Run(plan, sidecar, *_lexical(index, searcher, plan), pairing=pairing)
        run.documents = lambda paths: index.documents(searcher, paths)
        if not run.candidates:
            return []
        if "graph" in plan.stages:
            _graph(run)
            _exclude(run, index, searcher)
        _read_facts(run)
        chosen = _rank(run, list(run.candidates.values()))
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
            chosen = _rank(run, [c for c in run.candidates.values() if c.doc is not None])
        for candidate in chosen:
            _confidence(run, candidate)
        return _hits(run, searcher, chosen, explain=explain, snippets=snippets)


def _rank(run: _Run, found: list[Candidate]) -> list[Candidate]:
    """The filters, the scores, their order and the rules over the candidates ``found``;
    the best ``limit`` of them."""
    _unlink_as_of(run, found)
    kept = [c for c in found if _keep(run, c)]
    _score(run, kept)
    kept.sort(key=lambda c: (-c.final, c.path))
    _rules(run, kept)
    return kept[: run.plan.limit]


def _hits(
    run: _Run, searcher: tantivy.Searcher, chosen: list[Candidate], *, explain: bool, snippets: bool
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
                candidate.authority = _authority(run, candidate, explain=True)
            words = (
                lexical_explain(lexical, searcher, candidate.addr, candidate.lexical_score or 0.0)
                if candidate.addr is not None
                else None
            )
            details = explain_of(candidate, run.facts[candidate.path], plan, words)
            # the quoted phrases found no page: their words were searched (lexical_plans)
            details["lexical"]["phrases_as_words"] = lexical is not plan.lexical
        hit = hit_of(doc, candidate.final, snippet, details, candidate.confidence)
        if (status := _status_on(run, candidate.path)) != hit.status:
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
