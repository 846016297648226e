"""Supersession as a graph: which page replaced which, and the cycles a vault must not hold.

DESIGN §2: ``superseded_by: [[NEW]]`` on the old page and ``supersedes: [[OLD]]`` on the new
one both say "OLD was replaced by NEW". A chain of them must end somewhere: a cycle (A by B,
B by C, C by A) leaves no current page, so the brief has no standing answer for it. The write
commands refuse an edit that would close one (:func:`path_between`); ``lint`` reports the
cycles a person made by hand (:func:`cycles`). Pure functions of ``(old, new)`` path pairs,
no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The relation keys that say a page was replaced, and which side each is written on.
SUPERSEDED_BY = "superseded_by"  # on the old page, naming the new one
SUPERSEDES = "supersedes"  # on the new page, naming the old one


def successors(rows: Iterable[tuple[str, str, str | None]]) -> dict[str, set[str]]:
    """``{old: {new, ...}}`` from link rows ``(source, type, target_path)``: a
    ``superseded_by`` row is ``source -> target``, a ``supersedes`` row ``target -> source``;
    unresolved targets (``None``), other types and self-links are left out."""
    graph: dict[str, set[str]] = {}
    for source, kind, target in rows:
        if target is None or target == source:
            continue
        if kind == SUPERSEDED_BY:
            graph.setdefault(source, set()).add(target)
        elif kind == SUPERSEDES:
            graph.setdefault(target, set()).add(source)
    return graph


def path_between(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """The shortest chain ``[start, ..., goal]`` of replacements, or ``None`` (breadth-first,
    neighbours in path order so the answer is stable)."""
    came: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for other in sorted(graph.get(node, ())):
                if other in came:
                    continue
                came[other] = node
                if other == goal:
                    chain: list[str] = []
                    at: str | None = other
                    while at is not None:
                        chain.append(at)
                        at = came[at]
                    return chain[::-1]
                nxt.append(other)
        frontier = nxt
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle ``[a, b, ..., a]`` per group of pages that replace one another in a circle
    (a strongly connected group of two or more), each starting at its smallest path; sorted."""
    found: list[list[str]] = []
    seen: set[str] = set()
    for node in sorted(graph):
        if node in seen:
            continue
        group = {node} | {
            other
            for other in _reachable(graph, node) - {node}
            if path_between(graph, other, node) is not None
        }
        seen.update(group)
        if len(group) > 1:
            first = min(group)
            inside = {k: v & group for k, v in graph.items() if k in group}
            back = min((path_between(inside, n, first) or [] for n in inside[first]), key=len)
            found.append([first, *back])
    return sorted(found)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every page a chain of replacements leads to from ``start``, ``start`` included."""
    seen, stack = {start}, [start]
    while stack:
        for other in graph.get(stack.pop(), ()):
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return seen
