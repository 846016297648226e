"""The authority stage of the ranking (DESIGN §5.4; issue 10, item 5): a multiplier from a
page's kind and tags, capped by its status, by an active page that supersedes it, and by an
unresolved ``contradicts`` edge into it; clamped to ``[authority_min, authority_max]``
(0.55 to 1.50 by default). Each factor and cap is given back as a reason for ``--explain``.

Layer 4 (STYLE.md), pure: the facts come from :mod:`vault_sync.page_facts`, the constants
from :class:`vault_sync.ranking_settings.RankingSettings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from vault_sync.ranking_settings import RankingSettings


class Authority(NamedTuple):
    """The multiplier and why: ``reasons`` like ``kind decision x1.2``, ``status superseded:
    cap 0.65``, ``superseded by adr/New.md: cap 0.65``, ``contradicted by obs/X.md (open):
    cap 0.75``, ``clamped to 0.55``, in the order they were applied."""

    multiplier: float
    reasons: tuple[str, ...]


def authority(
    kind: str,
    status: str,
    tags: Iterable[str],
    settings: RankingSettings,
    *,
    superseded_by: str | None = None,
    contradicted_by: Sequence[str] = (),
    current_on: str | None = None,
    explain: bool = True,
) -> Authority:
    """The authority of one page.

    ``kind_authority[kind] * product(tag_authority[tag])``, then ``min`` with the status cap
    (``status_caps``), with ``superseded_cap`` when an active page supersedes it (an edge,
    whatever its own status says: ``superseded_by``) and with ``contradicted_cap`` while a
    ``contradicts`` edge into it is unresolved (``contradicted_by``: the challengers), then
    clamped.

    Args:
        kind, status: the page's.
        tags: its tags (compared lower-cased, without ``#``).
        settings: the constants.
        superseded_by: the path of the active page superseding it, or ``None``.
        contradicted_by: paths of the challengers whose contradiction is still open.
        current_on: the ``--as-of`` day when the page's named successors had not begun by
            then (``vault_sync.page_facts.superseded_on``): a page whose status says
            ``superseded`` was still current that day, so that status sets no cap (issue 10,
            item 7: shown as of the date it was current); ``None`` otherwise (no ``--as-of``,
            a successor had begun, or none is named: superseded by hand).
        explain: give the reasons (else none: the same multiplier, for a page that may not
            be shown).
    """
    reasons: list[str] = []
    value = settings.kind_authority.get(kind, 1.0)
    if value != 1.0 and explain:
        reasons.append(f"kind {kind} x{value:g}")
    weighed = {t.lower().lstrip("#") for t in tags} & settings.tag_authority.keys()
    for tag in sorted(weighed) if weighed else ():  # most pages: no tag with a factor
        factor = settings.tag_authority[tag]
        if factor != 1.0:
            value *= factor
            if explain:
                reasons.append(f"tag {tag} x{factor:g}")
    caps: list[tuple[float, str]] = []
    if status == "superseded" and current_on is not None:
        if explain:
            reasons.append(f"status superseded: still current on {current_on}, no cap")
    elif status in settings.status_caps:
        caps.append((settings.status_caps[status], f"status {status}" if explain else ""))
    if superseded_by is not None:
        caps.append((settings.superseded_cap, f"superseded by {superseded_by}"))
    for challenger in sorted(contradicted_by) if contradicted_by else ():
        caps.append((settings.contradicted_cap, f"contradicted by {challenger} (open)"))
    for cap, why in caps:
        if value > cap:
            value = cap
            if explain:
                reasons.append(f"{why}: cap {cap:g}")
        elif explain:
            reasons.append(f"{why}: cap {cap:g} (already below)")
    clamped = min(max(value, settings.authority_min), settings.authority_max)
    if clamped != value and explain:
        reasons.append(f"clamped to {clamped:g}")
    return Authority(round(clamped, 6), tuple(reasons))
