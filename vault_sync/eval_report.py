"""The outputs of ``vault-sync eval``: a text table, every number as JSON, a progress bar;
the run scrubbed before any of them (:func:`scrubbed`)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any

from vault_sync.eval_data import Question
from vault_sync.eval_metrics import metric_names
from vault_sync.eval_run import RunResult
from vault_sync.typed_text import scrub_typed

#: Metrics shown as percentages (the rest, MRR and NDCG, as fractions with 3 decimals).
_PERCENT = ("R@", "hit@", "all@")


def scrubbed(result: RunResult) -> RunResult:
    """``result`` with every text it took from its input scrubbed as typed text is
    (:func:`~vault_sync.typed_text.scrub_typed`): each question's text, id, gold paths,
    project and groups, the pages ranked, the load's notes and reasons for skipping.

    Every output (table, ``--json``, ``--html``) is made from this one, so none can show
    what another hides (fresh-user report: ``--html`` wrote a query's token as typed). The
    questions were asked as written; only what is shown changes.
    """
    done: dict[int, Question] = {}

    def question(q: Question) -> Question:
        if id(q) not in done:
            done[id(q)] = dataclasses.replace(
                q,
                id=scrub_typed(q.id),
                text=scrub_typed(q.text),
                gold=frozenset(scrub_typed(g) for g in q.gold),
                project=scrub_typed(q.project) if q.project is not None else None,
                groups=tuple(scrub_typed(g) for g in q.groups),
            )
        return done[id(q)]

    bench = result.benchmark
    return dataclasses.replace(
        result,
        benchmark=dataclasses.replace(
            bench,
            headline=scrub_typed(bench.headline),
            notes=[scrub_typed(n) for n in bench.notes],
            skipped={scrub_typed(why): n for why, n in bench.skipped.items()},
        ),
        scores={c: [(question(q), m) for q, m in rows] for c, rows in result.scores.items()},
        rankings={
            scrub_typed(qid): [scrub_typed(p) for p in pages]
            for qid, pages in result.rankings.items()
        },
    )


def cell(metric: str, value: float) -> str:
    """A metric value as the tables show it: R@k, hit@k, all@k in percent, else 3 decimals."""
    if metric.startswith(_PERCENT):
        return f"{100 * value:.1f}"
    return f"{value:.3f}"


def to_json(result: RunResult) -> dict[str, Any]:
    """Every number of the run: ``{benchmark, split, questions, skipped, table, ...}``.

    ``table`` is ``{group: {config: {metric: value, "n": questions}}}`` with values in [0, 1]
    (not rounded); ``wall_s`` and ``questions_per_s`` are the run's timing.
    """
    bench = result.benchmark
    return {
        "benchmark": bench.name,
        "split": result.split,
        "headline": bench.headline,
        "configs": result.configs,
        "metrics": metric_names(bench.ks),
        "questions": result.questions,
        "pages": result.pages,
        "skipped": bench.skipped,
        "notes": bench.notes,
        "table": result.table(),
        "wall_s": round(result.wall_s, 3),
        "sync_s": round(result.sync_s, 3),
        "questions_per_s": round(result.questions / result.wall_s, 1) if result.wall_s else None,
    }


def table_lines(result: RunResult, *, all_groups: bool = True) -> list[str]:
    """The table: one block per report group (headline first), a row per configuration.

    R@k, hit@k, all@k in percent; MRR and NDCG@10 as fractions.
    """
    names = metric_names(result.benchmark.ks)
    width = max(len(c) for c in result.configs) + 2
    head = "config".ljust(width) + "".join(f"{n:>9}" for n in names)
    lines: list[str] = []
    groups = result.table()
    for group, rows in groups.items():
        n = int(next(iter(rows.values()))["n"])
        lines += ["", f"{group} ({n} questions)", head]
        for config, values in rows.items():
            cells = "".join(f"{cell(m, values[m]):>9}" for m in names)
            lines.append(config.ljust(width) + cells)
        if not all_groups:
            break
    return lines


def summary_lines(result: RunResult) -> list[str]:
    """The run's header: what ran, what was skipped, and its timing."""
    bench = result.benchmark
    skipped = ", ".join(f"{n} {why}" for why, n in bench.skipped.items()) or "none"
    qps = result.questions / result.wall_s if result.wall_s else 0.0
    return [
        f"{bench.name}, split {result.split}: {result.questions} questions, {result.pages} pages"
        f" (skipped: {skipped})",
        *bench.notes,
        f"wall time {result.wall_s:.1f} s (sync {result.sync_s:.1f} s),"
        f" {qps:.1f} questions/s, {len(result.configs)} configurations",
    ]


def progress_bar(enabled: bool) -> Callable[[int], Callable[[int], None] | None]:
    """A progress-start callback drawing a rich bar on stderr (when ``enabled`` and a tty)."""

    def start(total: int) -> Callable[[int], None] | None:
        if not enabled or not sys.stderr.isatty() or total == 0:
            return None
        from vault_sync.progress import stderr_bar

        return stderr_bar("asking questions", total)

    return start
