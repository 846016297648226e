"""A page's typed neighbourhood: what fixes it, what it causes, what contradicts it, what it
supersedes — through the links table, both directions (issue 10, item 9: ``vault-sync
related``; the MCP ``related`` tool).

A breadth-first walk from the page over resolved links only (an unresolved or deleted target
never comes back), each neighbour once, at its smallest depth; ``depth`` is capped at
:data:`MAX_DEPTH`. Ordered by depth, then the link type's order in
:data:`vault_sync.page.RELATION_TYPES` (then custom types, ``references``, ``embeds``), then
direction (out first), then path: the same answer every time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vault_sync.page import EMBEDS, REFERENCES, RELATION_TYPES
from vault_sync.report import find_page
from vault_sync.store import Sidecar

#: The deepest walk ``related`` makes (the ranking issue's ``fixes`` / ``causes`` chain bound).
MAX_DEPTH = 3


def _type_order(edge: str) -> tuple[int, str]:
    if edge in RELATION_TYPES:
        return RELATION_TYPES.index(edge), edge
    if edge == REFERENCES:
        return len(RELATION_TYPES) + 1, edge
    if edge == EMBEDS:
        return len(RELATION_TYPES) + 2, edge
    return len(RELATION_TYPES), edge  # a custom type, before plain references


def related(
    sidecar: Sidecar,
    reference: str,
    *,
    types: Iterable[str] = (),
    depth: int = 1,
    vault: Any = None,
) -> dict[str, Any]:
    """``{"path", "title", "neighbours": [{"path", "title", "kind", "status", "type",
    "direction" ("out": this side links to it; "in": it links here), "depth", "via"}]}``.

    Args:
        sidecar: an open sidecar.
        reference: the page, as ``show`` takes it.
        types: only links of these types (all when empty).
        depth: hops, 1 to :data:`MAX_DEPTH`.
        vault: the vault root, for absolute-path references.

    Raises:
        PageNotFoundError, AmbiguousPageError: see :func:`vault_sync.report.find_page`.
        ValueError: ``depth`` outside 1 .. MAX_DEPTH.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be 1 to {MAX_DEPTH}")
    wanted = set(types)
    start = find_page(sidecar, reference, vault)
    seen = {start}
    frontier = [start]
    found: list[dict[str, Any]] = []
    for level in range(1, depth + 1):
        step: list[tuple[str, str, str, str]] = []  # (path, type, direction, via)
        for path in frontier:
            for row in sidecar.links_from(path):
                step.append((row["target_path"], row["type"], "out", path))
            for row in sidecar.links_into(path):
                step.append((row["source"], row["type"], "in", path))
        step = [s for s in step if s[0] and (not wanted or s[1] in wanted)]
        step.sort(key=lambda s: (_type_order(s[1]), s[2] != "out", s[0], s[3]))
        frontier = []
        for path, edge, direction, via in step:
            if path in seen:
                continue
            seen.add(path)
            frontier.append(path)
            found.append(
                {"path": path, "type": edge, "direction": direction, "depth": level, "via": via}
            )
    for item in found:
        row = sidecar.page_row(item["path"])
        item.update(title=row["title"], kind=row["kind"], status=row["status"])
    return {"path": start, "title": sidecar.page_row(start)["title"], "neighbours": found}
