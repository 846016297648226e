"""The graph stream of the ranking (DESIGN §5.2; issue 10, item 3): pages one link away from
the top lexical hits, through the links table, both directions, each edge type and direction
with its own weight (:data:`vault_sync.ranking_settings.EDGE_WEIGHTS`); with ``chain``, one
more hop along ``fixes`` / ``causes`` edges, and with ``follow``, one more forward sequence
hop (never past depth 2). And the rule the sequence edges (``next`` / ``prev``) give the final
order: the page that follows a best hit goes directly below it, and the page after that below
it when the follower asks a question (:func:`followers_below`).

Layer 4 (STYLE.md), pure: the edges come in as ``(source, type, target_path)`` rows of
resolved links only (:meth:`vault_sync.store.Sidecar.resolved_links_touching`), so a deleted
or unresolved target never comes back through the graph (the pipeline drops, too, any page
the sidecar does not hold).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from typing import NamedTuple

from vault_sync.ranking_settings import RankingSettings

#: Edge types a ``chain`` walks past the first hop (DESIGN §5.2: a bounded fixes/causes chain).
CHAIN_TYPES = frozenset({"fixes", "causes"})
#: The deepest hop the stream ever makes (issue 10, item 3: depth <= 2).
MAX_CHAIN_DEPTH = 2

#: Sequence edges (Obsidian Breadcrumbs' ``next`` / ``prev`` keys, docs/page-format.md) walked
#: forward, as ``(type, direction)``: to the page that follows (a reply follows its question).
FOLLOWING = frozenset({("next", "out"), ("prev", "in")})

Edge = tuple[str, str, str]  # (source, type, target_path)
EdgesOf = Callable[[Sequence[str]], Iterable[Edge]]


class Via(NamedTuple):
    """How the graph stream reached a page: from ``page`` (a top lexical hit, or at depth 2
    the page reached at depth 1) over an edge of ``type``, ``direction`` ``out`` (``page``
    links to it) or ``in`` (it links to ``page``), at ``depth`` hops."""

    page: str
    type: str
    direction: str
    depth: int


class GraphHit(NamedTuple):
    """A page the graph stream scored: ``score`` = the seed's normalised lexical score times
    the edge weight (times ``chain_decay`` and the second edge's weight at depth 2), the best
    over every way in; ``via`` that best way (ties: the earlier seed, then type, path)."""

    score: float
    via: Via


def _steps(edges: Iterable[Edge], frontier: set[str]) -> list[tuple[str, str, str, str]]:
    """``(from, type, direction, to)`` for each edge with one end in ``frontier``."""
    out = []
    for source, edge_type, target in edges:
        if source in frontier:
            out.append((source, edge_type, "out", target))
        if target in frontier:
            out.append((target, edge_type, "in", source))
    return out


def graph_scores(
    seeds: Sequence[tuple[str, float]],
    edges_of: EdgesOf,
    settings: RankingSettings,
    *,
    chain: bool = False,
    follow: bool = False,
    lifts_only: Container[str] = (),
    found: Container[str] = (),
) -> dict[str, GraphHit]:
    """Score the neighbours of ``seeds``.

    Args:
        seeds: ``(path, normalised lexical score in [0, 1])``, best first.
        edges_of: resolved edges touching the given paths.
        settings: edge weights, ``chain_decay``.
        chain: also walk one more ``fixes`` / ``causes`` hop from pages reached by one.
        follow: also walk one more forward sequence hop (:data:`FOLLOWING`) from the pages
            that follow a seed: the turn after the reply (scored as a chain's second hop).
        lifts_only, found: edge types that only lift a page already ``found`` (the
            ranking's untyped links): a page not in ``found`` whose best way in is one of
            them is left out.

    Returns:
        ``{path: GraphHit}`` for every page reached with a positive score (a seed can be
        reached from another seed; never from itself).
    """
    strength = dict(seeds)
    order = {path: n for n, (path, _) in enumerate(seeds)}
    weights: dict[tuple[str, str], float] = {}

    def weight(edge_type: str, direction: str) -> float:
        key = (edge_type, direction)
        if key not in weights:
            weights[key] = settings.edge_weight(edge_type, direction)
        return weights[key]

    # {path: (key, score, way in)}: the objects built at the end, once per page kept
    ways: dict[str, tuple[tuple[float, int, str], float, tuple[str, str, str, int]]] = {}

    def offer(path: str, score: float, via: tuple[str, str, str, int], rank: int) -> None:
        key = (-score, rank, via[1])
        if score > 0 and (path not in ways or key < ways[path][0]):
            ways[path] = (key, score, via)

    first = _steps(edges_of(list(strength)), set(strength))
    # pages a second hop walks on from: {path: (score, -seed rank)}, by the kind of hop
    reached: dict[str, tuple[float, int]] = {}
    followed: dict[str, tuple[float, int]] = {}
    for origin, edge_type, direction, to in sorted(first):
        if to == origin:
            continue
        score = strength[origin] * weight(edge_type, direction)
        offer(to, score, (origin, edge_type, direction, 1), order[origin])
        if to in strength:
            continue
        if chain and edge_type in CHAIN_TYPES:
            reached[to] = max(reached.get(to, (0.0, 0)), (score, -order[origin]))
        if follow and (edge_type, direction) in FOLLOWING:
            followed[to] = max(followed.get(to, (0.0, 0)), (score, -order[origin]))
    if reached or followed:
        frontier = reached.keys() | followed.keys()
        second = _steps(edges_of(sorted(frontier)), frontier)
        for origin, edge_type, direction, to in sorted(second):
            if to == origin or to in strength:
                continue
            if edge_type in CHAIN_TYPES and origin in reached:
                base, rank = reached[origin]
            elif (edge_type, direction) in FOLLOWING and origin in followed:
                base, rank = followed[origin]
            else:
                continue
            score = base * settings.chain_decay * weight(edge_type, direction)
            offer(to, score, (origin, edge_type, direction, MAX_CHAIN_DEPTH), -rank)
    return {
        path: GraphHit(round(score, 6), Via(*via))
        for path, (_, score, via) in ways.items()
        if path in found or via[1] not in lifts_only
    }


#: What marks a page that asks (ASCII and full-width question marks): the page after it is
#: its answer, so the follower rule walks on past it (``follow_hops`` 2).
QUESTION_MARKS = ("?", "\uff1f")


def asks(text: str) -> bool:
    """Whether ``text`` asks a question (holds one of :data:`QUESTION_MARKS`)."""
    return any(mark in text for mark in QUESTION_MARKS)


def followers_below(
    ranked: Sequence[tuple[str, GraphHit | None]],
    depth: int,
    hops: int = 1,
    asking: Callable[[str], bool] = lambda path: False,
) -> tuple[list[str], dict[str, tuple[str, int]]]:
    """The ranking with each page the graph reached from one of the best ``depth`` pages
    through a forward sequence edge (:data:`FOLLOWING`) placed directly below that page,
    when it ranked lower (a rank rule like supersession's; docs/eval.md, "Turn level").

    Args:
        ranked: ``(path, the graph stream's hit or None)``, best first.
        depth: how many of the best pages pull their follower up; 0 moves nothing.
        hops: 2 also places the page that follows a follower directly below it when the
            follower asks a question (``asking``): the answer to a question put back about
            the best hit ("Are you going to invite your tournament friends?"); 1 only the
            follower.
        asking: whether a page asks a question (read only for followers, at ``hops`` 2).

    Returns:
        The paths in their new order, and ``{page moved: (the page it now follows, hop)}``.
        Sources are taken best first; a later move never lifts a page above one placed
        before it.
    """
    order = [path for path, _ in ranked]
    after: dict[str, list[str]] = {}
    for path, hit in ranked:
        if hit is not None and (hit.via.type, hit.via.direction) in FOLLOWING:
            after.setdefault(hit.via.page, []).append(path)
    moved: dict[str, tuple[str, int]] = {}
    for top in order[:depth]:
        sources = [top]
        for hop in range(1, hops + 1):
            pulled = []
            for source in sources:
                if hop > 1 and not asking(source):
                    continue
                for follower in after.get(source, ()):
                    at = order.index(source)
                    if order.index(follower) > at + 1:
                        order.remove(follower)
                        order.insert(at + 1, follower)
                        moved[follower] = (source, hop)
                    pulled.append(follower)
            sources = pulled
    return order, moved
