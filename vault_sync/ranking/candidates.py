"""The candidates of a ranked query and how they are gathered: :class:`Candidate` (one page on
its way through the stages), :class:`Run` (the state of one run), the lexical stream
(:func:`lexical_stage`), the graph stream (:func:`graph_stage`, :func:`exclude_stage`) and the
sidecar's facts the later stages read (:func:`read_facts`).

Part of :mod:`vault_sync.ranking` (layer 5, STYLE.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import tantivy

from vault_sync.authority import Authority
from vault_sync.graph_stream import GraphHit, graph_scores
from vault_sync.index import PageIndex, stored_text
from vault_sync.page_facts import (
    PageFacts,
    contradiction_open,
    kept_facts,
    ranked_facts,
    read_by_rules,
    superseded_by_edges,
    superseded_on,
)
from vault_sync.paired_read import LENIENT, Pairing
from vault_sync.query_fields import QueryPlan
from vault_sync.rank_plan import RankPlan
from vault_sync.retrieve import (
    lexical_rows,
)
from vault_sync.store import Sidecar

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
        confidence: from its evidence (:func:`confidence_of`: for the hits returned, and for
            every candidate when the score reads it); ``confidence_factor`` its multiplier.
        date_factor: the date stage's multiplier.
        not_yet_factor: the not-yet stage's multiplier (:mod:`vault_sync.not_yet`).
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
    not_yet_factor: float = 1.0
    final: float = 0.0
    rules: list[str] = field(default_factory=list)


@dataclass
class Run:
    """The state of one run: the plan, the stores, the candidates and what was read;
    ``documents`` reads index documents by path (from the run's searcher)."""

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


def lexical_stage(
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


def follow_hops(plan: RankPlan) -> int:
    """How many ``next`` / ``prev`` hops the follower rule walks from a best hit
    (``follow_hops``; 1 with ``no-second-hop``; 0 with the rule off)."""
    if not {"graph", "follow"} <= plan.stages or not plan.settings.follow_depth:
        return 0
    return plan.settings.follow_hops if "second-hop" in plan.stages else 1


def graph_stage(run: Run) -> None:
    """Stage 2: neighbours of the best ``graph_seeds`` lexical pages (DESIGN §5.2)."""
    settings = run.plan.settings
    seeds = [(c.path, c.lexical_norm) for c in run.candidates.values()]
    candidates = run.candidates
    found = graph_scores(
        seeds[: settings.graph_seeds],
        run.edges_of,
        settings,
        chain="chain" in run.plan.stages,
        follow=follow_hops(run.plan) > 1,
        lifts_only=UNTYPED,  # a plain link only lifts a page the words found; brings none in
        found=candidates,
    )
    for path, hit in found.items():
        if path in candidates:
            candidates[path].graph = hit
        else:
            candidates[path] = Candidate(path, graph=hit)


def exclude_stage(run: Run, index: PageIndex, searcher: tantivy.Searcher) -> None:
    """The graph's pages that hold an excluded word or phrase (``-storm``) leave: the
    lexical stream's query already left out its own (a fresh user saw ``retry -storm``
    bring back pages holding "storm" through their links)."""
    exclude = run.lexical.exclude
    if exclude is None:
        return
    brought = [p for p, c in run.candidates.items() if c.doc is None]
    for path in index.documents(searcher, brought, where=exclude):
        del run.candidates[path]


def read_facts(run: Run) -> None:
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
