"""A query's plan, built apart from running it (issue 10, item 1): :class:`RankPlan` and
:func:`build_plan`, the one place a query's options are read, and the switches ``eval
--ablate`` knows (:data:`SWITCHES`).

Layer 5 (STYLE.md), below :mod:`vault_sync.ranking`, which runs a plan; above the lexical
stream's own plan (:mod:`vault_sync.retrieve`, :mod:`vault_sync.query_fields`).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from vault_sync.errors import QuerySyntaxError
from vault_sync.page_dates import ISO_DATE_SAID, iso_day
from vault_sync.query_fields import QueryPlan
from vault_sync.ranking_settings import RankingSettings
from vault_sync.retrieve import SWITCHES as LEXICAL_SWITCHES
from vault_sync.retrieve import lexical_plans
from vault_sync.time_phrases import TimeSpan, time_spans

#: The pipeline's own switches for ``eval --ablate`` (each turns a stage off, or ``chain``
#: on); with the lexical stream's (:data:`vault_sync.retrieve.SWITCHES`) in :data:`SWITCHES`.
STAGE_SWITCHES: dict[str, str] = {
    "no-graph": "no graph stream: only pages the words find, none through links",
    "no-authority": "no authority multiplier (kind, tags, status and contradiction caps) and"
    " no challenger-above-target rule",
    "no-supersession": "no successor-above-superseded rule and no cap by a supersedes edge",
    "no-confidence": "confidence leaves the score alone (confidence_weight 0)",
    "no-dates": 'time phrases in the query ("two weeks ago", "in May 2023") leave page dates alone',
    "no-follow": "no follower-below-its-source rule for next / prev links (follow_depth 0)",
    "no-not-yet": "sessions dated after --now / --as-of keep their score (not_yet_factors 1)",
    "no-second-hop": "the follower rule walks one next / prev hop, not follow_hops",
    "chain": "also walk a second fixes / causes hop (depth 2)",
}
#: Every switch ``search(switches=...)`` and ``eval --ablate`` know, by name.
SWITCHES: dict[str, str] = {**LEXICAL_SWITCHES, **STAGE_SWITCHES}
#: How many times deeper the lexical stream reads when a filter the index cannot apply
#: (``--status``, ``--as-of``) may leave pages out after it.
FILTERED_DEPTH_FACTOR = 4


@dataclass(frozen=True)
class RankPlan:
    """A query, built and not yet run.

    Attributes:
        lexical: the lexical stream's plan; ``fallback`` builds the one to ask when its
            required phrases find nothing (:func:`vault_sync.retrieve.lexical_plans`).
        limit: most hits to return.
        kind, project, tag: exact filters (applied by the index to the lexical stream, and
            here to pages the graph brings).
        status: only pages of this status, or ``None``.
        as_of: ISO day: pages outside their validity window on it are left out, and a page is
            superseded only by a successor that had started by then; or ``None``.
        now: ISO day of reference for relative time phrases and the age of evidence.
        stages: the stages switched on (``graph``, ``authority``, ``supersession``,
            ``confidence``, ``dates``, ``follow``, ``second-hop``, ``not-yet``,
            ``chain``).
        settings: the ``[ranking]`` constants.
        spans: the days the query's time phrases name (:func:`vault_sync.time_phrases.
            time_spans`, counted back from ``now``); empty with the date stage off.
    """

    lexical: QueryPlan
    fallback: Callable[[], QueryPlan] | None
    limit: int
    kind: str | None
    project: str | None
    tag: str | None
    status: str | None
    as_of: str | None
    now: str
    stages: frozenset[str]
    settings: RankingSettings
    spans: tuple[TimeSpan, ...] = ()

    @property
    def depth(self) -> int:
        """Pages the lexical stream reads."""
        depth = max(self.settings.lexical_depth, self.limit)
        if self.status is not None or self.as_of is not None:
            depth *= FILTERED_DEPTH_FACTOR
        return depth


def build_plan(
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    project: str | None = None,
    tag: str | None = None,
    status: str | None = None,
    as_of: str | None = None,
    now: str | None = None,
    switches: frozenset[str] = frozenset(),
    boosts: Mapping[str, float] | None = None,
    settings: RankingSettings | None = None,
) -> RankPlan:
    """Build the plan of a query: the one place its options are read.

    Args:
        text: the query as typed (grammar: :func:`vault_sync.retrieve.build_query`).
        limit: most hits (>= 1).
        kind, project, tag, status: exact filters, or ``None``.
        as_of, now: ISO 8601 dates (a datetime's day is used), or ``None`` (``now``: today).
        switches: names of :data:`SWITCHES` to flip.
        boosts: field boosts for the lexical stream.
        settings: the ``[ranking]`` constants (default: their defaults).

    Raises:
        QuerySyntaxError: the text cannot be read as a query, or a date is not ISO 8601.
        ValueError: ``limit`` < 1, an unknown switch, or a field in ``boosts`` the index
            lacks.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    if unknown := switches - SWITCHES.keys():
        raise ValueError(f"unknown ranking switches: {sorted(unknown)}")
    lexical, fallback = lexical_plans(
        text,
        kind=kind,
        project=project,
        tag=tag,
        switches=switches & LEXICAL_SWITCHES.keys(),
        boosts=boosts,
    )
    on = {"graph", "authority", "supersession", "confidence", "dates", "follow", "second-hop"}
    on.add("not-yet")
    on -= {name.removeprefix("no-") for name in switches if name.startswith("no-")}
    if "chain" in switches:
        on.add("chain")
    settings = settings or RankingSettings()
    day = _day(now, "now") or datetime.date.today().isoformat()
    spans = time_spans(text, day) if "dates" in on and settings.date_weight > 0 else []
    return RankPlan(
        lexical, fallback, limit, kind, project, tag, status, _day(as_of, "as_of"), day,
        frozenset(on), settings, tuple(spans),
    )  # fmt: skip


def _day(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    day = iso_day(value)
    if day is None:
        raise QuerySyntaxError(f"{name}: {ISO_DATE_SAID} (got {value!r})")
    return day
