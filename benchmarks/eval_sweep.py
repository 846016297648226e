"""`vault-sync eval` over a grid of ``[ranking]`` values, for tuning on the dev split.

    .venv/bin/python benchmarks/eval_sweep.py BENCH [--split dev] [--ablate a,b] KEY=V1,V2 ...

``BENCH``: ``locomo`` (session pages), ``turn`` (LoCoMo, a page per turn), ``longmemeval``
(the pooled oracle file) or ``typed``; the corpora are read from ``../shared/corpora`` (or
``--corpora DIR``). Each ``KEY`` is a field of
:class:`vault_sync.ranking_settings.RankingSettings` (what ``[ranking]`` in
``vault-sync.toml`` sets), or ``TABLE.ENTRY`` for one entry of a table field
(``edge_weights.prev.in=0.3,0.6``); every combination of the values is one run of the eval harness
(:func:`vault_sync.eval_run.run_benchmark`, the engine's own sync and search), printing the
headline group's R@5, R@10, hit@5, all@5, MRR and NDCG@10 per configuration, plus LoCoMo's
cat 1 (multi-hop) R@5 and all@5. ``eval`` writes each benchmark vault into a temporary folder
with no ``vault-sync.toml``, so a ``[ranking]`` value cannot reach it from the command line:
this script gives it to the config the harness loads (docs/eval.md, "Tuning").
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from pathlib import Path
from typing import Any

from vault_sync import eval_run
from vault_sync.app import Engine
from vault_sync.config import Config
from vault_sync.eval_run import configurations, run_benchmark
from vault_sync.rank_plan import SWITCHES
from vault_sync.ranking_settings import RankingSettings

#: Each benchmark's headline group (docs/eval.md).
HEADLINE = {"locomo": "cat 1-4", "turn": "cat 1-4", "longmemeval": "all", "typed": "all"}
METRICS = ("R@5", "R@10", "hit@5", "all@5", "MRR", "NDCG@10")


def load(name: str, corpora: Path) -> Any:
    """The benchmark ``name`` (a key of :data:`HEADLINE`)."""
    if name in ("locomo", "turn"):
        from vault_sync.eval_locomo import load_locomo

        return load_locomo(corpora / "locomo", unit="turn" if name == "turn" else "session")
    if name == "longmemeval":
        from vault_sync.eval_longmemeval import load_longmemeval

        return load_longmemeval(corpora / "longmemeval" / "longmemeval_oracle.json")
    from vault_sync.eval_typed import load_typed

    return load_typed()


def grid(pairs: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every combination of ``KEY=V1,V2`` values (typed as the setting's default is): its
    label (``KEY=V ...``) and the ``RankingSettings`` fields it changes."""
    defaults = RankingSettings()
    axes = []
    for pair in pairs:
        key, _, values = pair.partition("=")
        table, _, entry = key.partition(".")
        if not hasattr(defaults, table):
            raise SystemExit(f"unknown [ranking] key {key!r}")
        if entry:  # one entry of a table: edge_weights.prev.in=0.3,0.6
            axes.append([(key, float(v)) for v in values.split(",")])
            continue
        kind = type(getattr(defaults, key))
        axes.append([(key, kind(v)) for v in values.split(",")])
    out = []
    for combo in itertools.product(*axes):
        changes: dict[str, Any] = {}
        for key, value in combo:
            table, _, entry = key.partition(".")
            if entry:
                merged = dict(changes.get(table, getattr(defaults, table)))
                changes[table] = {**merged, entry: value}
            else:
                changes[key] = value
        out.append((" ".join(f"{k}={v}" for k, v in combo), changes))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bench", choices=sorted(HEADLINE))
    parser.add_argument("values", nargs="*", help="KEY=V1,V2 ([ranking] keys)")
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    parser.add_argument("--ablate", default="", help="switches, as eval --ablate")
    parser.add_argument("--corpora", type=Path, default=Path("../shared/corpora"))
    args = parser.parse_args()
    bench = load(args.bench, args.corpora)
    configs = [c for c in configurations(args.ablate.split(",") if args.ablate else [], SWITCHES)]
    loader = eval_run.load_config
    for label, changes in grid(args.values) or [("defaults", {})]:

        def with_ranking(folder: Path, changes: dict[str, Any] = changes) -> Config:
            config = loader(folder)
            ranking = dataclasses.replace(config.ranking, **changes)
            return dataclasses.replace(config, ranking=ranking)

        eval_run.load_config = with_ranking  # type: ignore[assignment]
        result = run_benchmark(
            bench,
            split=args.split,
            configs=configs,
            sync=lambda config: Engine(config).sync(),
            search=lambda config, text, **options: Engine(config).search(text, **options),
        )
        table = result.table()
        for config in (c for c in configs if c != "random"):
            row = table[HEADLINE[args.bench]][config]
            cells = [f"{m} {row[m]:.4f}" if m in ("MRR", "NDCG@10") else f"{m} {row[m] * 100:.1f}"
                     for m in METRICS if m in row]  # fmt: skip
            if "cat 1" in table:
                one = table["cat 1"][config]
                cells.append(f"| cat 1 R@5 {one['R@5'] * 100:.1f} all@5 {one['all@5'] * 100:.1f}")
            print(args.bench, args.split, label, config, *cells, flush=True)
    eval_run.load_config = loader  # type: ignore[assignment]


if __name__ == "__main__":
    main()
