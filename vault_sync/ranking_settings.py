"""Every constant of the ranking pipeline, named, with its default and its source; each is
settable under ``[ranking]`` in ``vault-sync.toml`` (issue 10, item 1; docs/eval.md).

Layer 0 (STYLE.md): a plain value and its reader, imported by the config (which reads the
table) and by the pipeline (:mod:`vault_sync.ranking`, which reads the value). The defaults
are the ones ``eval`` chose (docs/eval.md, "Ranking stages"); where no benchmark can move a
constant yet, the docstring says it was chosen, not tuned.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from vault_sync.errors import ConfigError

#: Graph edge weights by ``type.direction``: ``in`` is a page linking *to* a top hit (the fix
#: of a bug found by its symptoms, the successor of an old decision, the challenger of a
#: rule), ``out`` a page a top hit links to. DESIGN §5.2: ``fixes`` / ``causes`` highest,
#: typed edges above ``references`` and ``embeds``; the direction that answers "what is the
#: current answer to this" weighs most. Chosen on ``eval typed`` dev (docs/eval.md).
#: ``next`` / ``prev`` (Obsidian Breadcrumbs' sequence keys, docs/page-format.md): the page
#: that follows a hit (``next.out``, ``prev.in``: the reply to a question) above the page
#: before it; tuned on LoCoMo ``--unit turn`` dev (docs/eval.md, "Turn level").
EDGE_WEIGHTS: Mapping[str, float] = dict(
    {
        "fixes.in": 0.9,
        "fixes.out": 0.5,
        "causes.in": 0.8,
        "causes.out": 0.6,
        "supersedes.in": 0.9,
        "supersedes.out": 0.3,
        "superseded_by.out": 0.9,
        "superseded_by.in": 0.3,
        "contradicts.in": 0.6,
        "contradicts.out": 0.4,
        "related.in": 0.4,
        "related.out": 0.4,
        "next.out": 0.45,
        "next.in": 0.3,
        "prev.in": 0.45,
        "prev.out": 0.3,
        "custom.in": 0.35,
        "custom.out": 0.35,
        "references.in": 0.2,
        "references.out": 0.25,
        "embeds.in": 0.15,
        "embeds.out": 0.2,
    }
)

#: Authority by kind (DESIGN §5.4: rule / decision / procedure up, session and note neutral
#: or lower). A kind not listed weighs 1.
KIND_AUTHORITY: Mapping[str, float] = dict(
    {
        "rule": 1.2,
        "decision": 1.2,
        "procedure": 1.15,
        "preference": 1.1,
        "gotcha": 1.1,
        "bug": 1.0,
        "note": 1.0,
        "observation": 1.0,
        "session": 0.9,
    }
)

#: Authority by tag (lower-cased, without ``#``): a page its owner marked as the reference.
TAG_AUTHORITY: Mapping[str, float] = dict({"canonical": 1.25})

#: Status caps on authority (DESIGN §5.4): a superseded page at most 0.65, an archived or
#: historical one at most 0.80.
STATUS_CAPS: Mapping[str, float] = dict({"superseded": 0.65, "archived": 0.8, "historical": 0.8})

#: The not-yet stage (:mod:`vault_sync.not_yet`): kind -> multiplier of a page of that kind
#: dated after the day the query is asked for (a conversation that had not happened then).
#: 0.1: on the LongMemEval dev split 0, 0.1 and 0.3 scored alike and 0.6 lower; above 0 the
#: demoted pages keep their order (docs/eval.md, "The not-yet stage").
NOT_YET_FACTORS: Mapping[str, float] = dict({"session": 0.1})


@dataclass(frozen=True)
class RankingSettings:
    """The ``[ranking]`` table; every field has a default (docs/eval.md, "Ranking stages").
    Plain dicts, not mapping proxies: the configuration is pickled to sync's worker
    processes.

    Attributes:
        lexical_depth: BM25 hits read before the later stages (pages).
        graph_seeds: top lexical hits whose neighbours the graph stream reads (pages).
        graph_weight: the graph stream's weight in the linear fusion (lexical weighs 1).
        chain_decay: a second ``fixes`` / ``causes`` hop's factor (``--chain``).
        edge_weights: ``type.direction`` -> weight (:data:`EDGE_WEIGHTS`; ``custom.*`` for
            relation types the model does not name).
        kind_authority, tag_authority, status_caps: the authority stage's factors
            (:data:`KIND_AUTHORITY`, :data:`TAG_AUTHORITY`, :data:`STATUS_CAPS`).
        authority_min, authority_max: the clamp of the authority multiplier (DESIGN §5.4).
        contradicted_cap: authority cap of the target of an unresolved ``contradicts`` edge.
        superseded_cap: authority cap of a page an active page supersedes (by edge, whatever
            its own status says).
        confidence_weight: how much confidence moves the score: the fused score is multiplied
            by ``1 + confidence_weight * (confidence - 0.5)``; 0 leaves it out (DESIGN §5.5:
            starts at 0, raised only where ``eval`` shows it helps). 0.1: on the ``eval
            typed`` dev split MRR 0.530 -> 0.545 (0.2 and 0.4 scored higher there but cost
            the example-vault dev questions 0.04 MRR); LoCoMo and LongMemEval unchanged
            (docs/eval.md, "Confidence in the score").
        date_weight: the date stage's weight: a page's score is multiplied by
            ``1 + date_weight * closeness`` of its day to the days the query's time phrases
            name (:func:`vault_sync.time_phrases.closeness`); 0 leaves it out. Tuned on the
            LoCoMo and LongMemEval dev splits (docs/eval.md, "The date stage").
        date_slack_days: how far outside a named span (days) a page's day still counts as
            near it, falling to 0 (at least; a span reaches half its own length).
        follow_depth: how many of the best hits pull up the page that follows them through a
            ``next`` / ``prev`` link, to the rank directly below them
            (:func:`vault_sync.graph_stream.followers_below`); 0 leaves the order alone.
            2: LoCoMo ``--unit turn`` dev R@10 and MRR above 0 and 1 (docs/eval.md,
            "Turn level").
        not_yet_factors: the not-yet stage's multiplier by kind (:data:`NOT_YET_FACTORS`;
            a kind not listed is left alone; ``session = 1`` switches the stage off).
        follow_hops: 2: the rule also places the page after a follower directly below it
            when the follower asks a question (the answer to a question put back), and the
            graph stream walks that second hop; 1: the follower only (at most
            :data:`MAX_FOLLOW_HOPS`). 2: LoCoMo ``--unit turn`` dev R@10 69.2 -> 71.3, MRR
            0.519 -> 0.523 (docs/eval.md, "Turn level").
    """

    lexical_depth: int = 50
    graph_seeds: int = 10
    graph_weight: float = 0.6
    chain_decay: float = 0.5
    edge_weights: Mapping[str, float] = field(default_factory=lambda: dict(EDGE_WEIGHTS))
    kind_authority: Mapping[str, float] = field(default_factory=lambda: dict(KIND_AUTHORITY))
    tag_authority: Mapping[str, float] = field(default_factory=lambda: dict(TAG_AUTHORITY))
    status_caps: Mapping[str, float] = field(default_factory=lambda: dict(STATUS_CAPS))
    authority_min: float = 0.55
    authority_max: float = 1.5
    contradicted_cap: float = 0.75
    superseded_cap: float = 0.65
    confidence_weight: float = 0.1
    date_weight: float = 0.5
    date_slack_days: float = 3.0
    follow_depth: int = 2
    not_yet_factors: Mapping[str, float] = field(default_factory=lambda: dict(NOT_YET_FACTORS))
    follow_hops: int = 2

    def edge_weight(self, edge_type: str, direction: str) -> float:
        """The weight of an edge of ``edge_type`` walked in ``direction`` (``in``/``out``);
        a type the table does not hold weighs as ``custom``."""
        weights = self.edge_weights
        key = f"{edge_type}.{direction}"
        return weights.get(key, weights.get(f"custom.{direction}", 0.0))


#: The most ``next`` / ``prev`` hops the follower rule walks (issue 10, item 3: depth <= 2).
MAX_FOLLOW_HOPS = 2

_TABLES = {"edge_weights", "kind_authority", "tag_authority", "status_caps", "not_yet_factors"}
_INTS = {"lexical_depth", "graph_seeds", "follow_hops"}
_COUNTS = {"follow_depth"}  # whole numbers where 0 switches the stage off


def read_ranking(table: Any, where: str) -> RankingSettings:
    """The settings of a ``[ranking]`` table: each key overrides its default; a table key
    (``[ranking.edge_weights]``, ...) overrides only the entries it names.

    Args:
        table: the parsed TOML table (a dict).
        where: the file, for messages.

    Raises:
        ConfigError: an unknown key, a value of the wrong type, a negative number, an
            integer setting below 1 (``follow_depth``: below 0), ``follow_hops`` above
            :data:`MAX_FOLLOW_HOPS`, or ``authority_min`` above
            ``authority_max`` (the message names the file and key).
    """
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: key 'ranking' must be a table")
    defaults = RankingSettings()
    known = {f.name for f in fields(RankingSettings)}
    changes: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key 'ranking.{key}'; known: {sorted(known)}")
        if key in _TABLES:
            changes[key] = _weights(getattr(defaults, key), value, f"ranking.{key}", where)
        else:
            whole, least = key in _INTS or key in _COUNTS, key in _INTS
            changes[key] = _number(value, f"ranking.{key}", where, integer=whole, least=least)
    settings = replace(defaults, **changes)
    if settings.follow_hops > MAX_FOLLOW_HOPS:
        raise ConfigError(f"{where}: ranking.follow_hops must be 1 or {MAX_FOLLOW_HOPS}")
    if settings.authority_min > settings.authority_max:
        raise ConfigError(f"{where}: ranking.authority_min is above ranking.authority_max")
    return settings


def _number(value: Any, key: str, where: str, *, integer: bool = False, least: bool = True) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}: key {key!r} must be a number, got {type(value).__name__}")
    if integer and (not isinstance(value, int) or value < int(least)):
        at_least = "at least 1" if least else "at least 0"
        raise ConfigError(f"{where}: key {key!r} must be a whole number of {at_least}")
    if value < 0:
        raise ConfigError(f"{where}: key {key!r} must not be negative")
    return value if integer else float(value)


def _weights(base: Mapping[str, float], value: Any, key: str, where: str) -> Mapping[str, float]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: key {key!r} must be a table")
    out = dict(base)
    for name, weight in value.items():
        out[str(name)] = _number(weight, f"{key}.{name}", where)
    return out
