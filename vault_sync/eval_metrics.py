"""Retrieval metrics of ``vault-sync eval``: per question, then macro-averaged (issue 9, item 4).

A ranking is the list of unit ids a configuration returned, best first (at most
:data:`DEPTH`); the gold is the set of unit ids that answer the question (never empty: a
question without gold is skipped by its loader). Every metric is in [0, 1]:

- ``R@k``: gold units in the top k / gold units (recall);
- ``hit@k``: 1 if any gold unit is in the top k (LongMemEval's ``recall_any@k``);
- ``all@k``: 1 if every gold unit is in the top k (LongMemEval's ``recall_all@k``);
- ``MRR``: 1 / rank of the first gold unit, 0 if none is in the top :data:`DEPTH`;
- ``NDCG@10``: binary relevance, ``DCG = sum(1 / log2(rank + 1))`` over gold units in the top
  10, divided by the DCG of the ideal ranking (all gold first).

:func:`random_expectation` gives the exact expectation of each metric for a ranking drawn
uniformly at random from the question's pool (not a sampled estimate), for scale.

Own code rather than ``ranx`` or ``ir-measures`` (both on PyPI): ranx pulls numba, llvmlite,
numpy and pandas (about 100 MB) and ir-measures pulls trec_eval bindings, for a dozen lines of
arithmetic; neither gives the exact random expectation, and ``all@k`` is not a TREC measure.
The hand-computed rankings of ``tests/test_eval_metrics.py`` pin every formula.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

#: Ranks looked at: MRR counts a first gold unit down to this rank; rankings are cut here.
DEPTH = 50
#: NDCG's cut-off rank.
NDCG_K = 10


def metric_names(ks: Sequence[int]) -> list[str]:
    """The metric names for cut-offs ``ks``, in table order (``R@5``, ..., ``MRR``, ``NDCG@10``)."""
    names = [f"R@{k}" for k in ks] + [f"hit@{k}" for k in ks] + [f"all@{k}" for k in ks]
    return [*names, "MRR", "NDCG@10"]


def _ideal_dcg(gold_count: int) -> float:
    return sum(1.0 / math.log2(rank + 1) for rank in range(1, min(gold_count, NDCG_K) + 1))


def score(ranking: Sequence[str], gold: frozenset[str], ks: Sequence[int]) -> dict[str, float]:
    """The metrics of one question.

    Args:
        ranking: unit ids, best first (only the first :data:`DEPTH` count; repeats are ignored).
        gold: the unit ids that answer the question (non-empty).
        ks: the cut-offs of ``R@k``, ``hit@k``, ``all@k``.

    Returns:
        ``{metric name: value in [0, 1]}`` with the names of :func:`metric_names`.

    Raises:
        ValueError: ``gold`` is empty.
    """
    if not gold:
        raise ValueError("a question needs at least one gold unit")
    ranks = {}
    for rank, unit in enumerate(ranking[:DEPTH], 1):
        if unit in gold and unit not in ranks:
            ranks[unit] = rank
    found = {k: sum(1 for rank in ranks.values() if rank <= k) for k in ks}
    out = {f"R@{k}": found[k] / len(gold) for k in ks}
    out.update({f"hit@{k}": float(found[k] > 0) for k in ks})
    out.update({f"all@{k}": float(found[k] == len(gold)) for k in ks})
    out["MRR"] = 1.0 / min(ranks.values()) if ranks else 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank in ranks.values() if rank <= NDCG_K)
    out["NDCG@10"] = dcg / _ideal_dcg(len(gold))
    return out


def random_expectation(pool: int, gold_count: int, ks: Sequence[int]) -> dict[str, float]:
    """The exact expected metrics of a uniformly random ranking of ``pool`` units.

    With ``g`` gold units among ``N``: ``E[R@k] = min(k, N) / N``; ``E[hit@k] = 1 -
    C(N-g, k) / C(N, k)``; ``E[all@k] = C(N-g, k-g) / C(N, k)``; the first gold unit is at
    rank ``r`` with probability ``C(N-r, g-1) / C(N, g)``, which gives ``E[MRR]`` (cut at
    :data:`DEPTH`); each rank holds a gold unit with probability ``g / N``, which gives
    ``E[DCG@10]``, divided by the ideal DCG.

    Args:
        pool: units the question ranks (its conversation's pages, the whole vault, ...), >= 1.
        gold_count: gold units among them, 1..pool.
        ks: the cut-offs.

    Raises:
        ValueError: ``gold_count`` is not within 1..pool.
    """
    n, g = pool, gold_count
    if not 1 <= g <= n:
        raise ValueError(f"gold count {g} not within 1..{n}")
    out: dict[str, float] = {}
    for k in ks:
        out[f"R@{k}"] = min(k, n) / n
    for k in ks:
        kk = min(k, n)
        out[f"hit@{k}"] = 1.0 - math.comb(n - g, kk) / math.comb(n, kk)
    for k in ks:
        kk = min(k, n)
        out[f"all@{k}"] = math.comb(n - g, kk - g) / math.comb(n, kk) if kk >= g else 0.0
    total = math.comb(n, g)
    out["MRR"] = sum(
        math.comb(n - r, g - 1) / total / r for r in range(1, min(DEPTH, n - g + 1) + 1)
    )
    dcg = sum((g / n) / math.log2(rank + 1) for rank in range(1, min(NDCG_K, n) + 1))
    out["NDCG@10"] = dcg / _ideal_dcg(g)
    return out


def mean(rows: Iterable[Mapping[str, float]], names: Sequence[str]) -> dict[str, float]:
    """Macro average of per-question metric rows (``{}`` of zeros for no rows)."""
    rows = list(rows)
    if not rows:
        return dict.fromkeys(names, 0.0)
    return {name: sum(row[name] for row in rows) / len(rows) for name in names}
