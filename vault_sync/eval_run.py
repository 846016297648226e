"""Run a benchmark: write and sync its vaults, ask every question of every configuration.

The product's rows go through the very function ``vault-sync query`` calls (the engine's
``search``, passed in by the CLI as the watcher is passed the engine's sync), in process,
so there is no second ranking path to drift. Ablation names come from the query code's
switch registry (passed in too): each names one ranking stage or option the query code
turns off (or on) when it is listed in the ``switches`` search option, so the ranking work
adds names without touching this harness. ``plain-bm25`` (:mod:`vault_sync.eval_baseline`)
and ``random`` (the exact expectation) are the harness's own rows.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vault_sync.config import Config, load_config
from vault_sync.errors import EvalDataError, QuerySyntaxError
from vault_sync.eval_baseline import PlainBM25
from vault_sync.eval_data import Benchmark, EvalPage, EvalVault, Question
from vault_sync.eval_metrics import DEPTH, metric_names, random_expectation, score

DEFAULT = "default"
PLAIN_BM25 = "plain-bm25"
RANDOM = "random"
HARNESS_ROWS = {
    PLAIN_BM25: "one-field en_stem BM25 computed by the harness, stop words out of the query",
}


class HitLike(Protocol):
    """What the harness reads of a product hit: its path and page id."""

    @property
    def path(self) -> str: ...  # pragma: no cover - a protocol

    @property
    def id(self) -> str: ...  # pragma: no cover - a protocol


SearchFn = Callable[..., tuple[Sequence[HitLike], str | None]]
SyncFn = Callable[[Config], Any]
ProgressFn = Callable[[int], Callable[[int], None] | None]


@dataclass
class RunResult:
    """Everything one run measured.

    Attributes:
        benchmark: the benchmark run (its name, headline group, cut-offs, skipped counts).
        split: ``dev``, ``test`` or ``all``.
        configs: configuration names, in table order (``default`` first, ``random`` last).
        scores: ``{config: [(question, {metric: value}), ...]}``.
        rankings: the default configuration's top 10 per question id (for misses).
        wall_s: wall time of the whole run, loading included, in seconds.
        sync_s: time spent writing and syncing the vaults, in seconds.
        pages: pages synced.
    """

    benchmark: Benchmark
    split: str
    configs: list[str]
    scores: dict[str, list[tuple[Question, dict[str, float]]]] = field(default_factory=dict)
    rankings: dict[str, list[str]] = field(default_factory=dict)
    wall_s: float = 0.0
    sync_s: float = 0.0
    pages: int = 0

    @property
    def questions(self) -> int:
        """Questions asked (per configuration)."""
        return len(self.scores[self.configs[0]]) if self.configs else 0

    def groups(self) -> list[str]:
        """Report groups in order: the headline first, then as the questions name them."""
        seen = dict.fromkeys([self.benchmark.headline])
        for question, _ in self.scores[self.configs[0]]:
            seen.update(dict.fromkeys(question.groups))
        return sorted(seen, key=lambda g: (g != self.benchmark.headline, g))

    def table(self) -> dict[str, dict[str, dict[str, float]]]:
        """``{group: {config: {metric: macro mean, "n": questions}}}``."""
        names = metric_names(self.benchmark.ks)
        out: dict[str, dict[str, dict[str, float]]] = {}
        for group in self.groups():
            out[group] = {}
            for config in self.configs:
                rows = [m for q, m in self.scores[config] if group in q.groups]
                mean = {n: sum(r[n] for r in rows) / len(rows) if rows else 0.0 for n in names}
                out[group][config] = {**mean, "n": float(len(rows))}
        return out


def configurations(ablate: Sequence[str], switches: Mapping[str, str]) -> list[str]:
    """``default``, the ablations asked for, then ``random``.

    Raises:
        EvalDataError: a name is neither a harness row nor a registered switch (names them).
    """
    known = {**HARNESS_ROWS, **switches}
    for name in ablate:
        if name not in known:
            names = ", ".join(sorted(known))
            raise EvalDataError(f"unknown --ablate name {name!r}; known: {names}")
    return [DEFAULT, *dict.fromkeys(ablate), RANDOM]


def vault_pages(config: Config) -> list[EvalPage]:
    """The pages of an existing vault as sync reads them (:func:`vault_sync.prepare.load_page`:
    the vault's ignore rules, decoding, title rule, sanitizer and ``[projects]`` globs), for
    the baseline: each page's body, project and id."""
    from vault_sync.prepare import load_page  # only for `eval queries`
    from vault_sync.vault import scan

    pages = []
    for path, entry in sorted(scan(config).pages.items()):
        try:
            page, _ = load_page(config, entry)
        except OSError:
            continue  # unreadable: not a page the baseline can read either
        pages.append(EvalPage(path, (), page.body, page.project, page.id))
    return pages


def _note_missing(
    result: RunResult, questions: Sequence[Question], pages: Sequence[EvalPage]
) -> None:
    """Add a note naming expected pages the vault does not hold (a typo, an ignored page):
    such a question can only score 0, which the table alone does not say."""
    known = {p.path for p in pages} | {p.id for p in pages if p.id}
    missing = sorted({g for q in questions for g in q.gold if g not in known})
    if missing:
        shown = ", ".join(missing[:5]) + (
            f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
        )
        result.benchmark.notes.append(
            f"{len(missing)} expected pages are not pages of the vault (ignored or"
            f" missing; their questions score 0): {shown}"
        )


def _write(pages: Sequence[EvalPage], folder: Path) -> None:
    for page in pages:
        target = folder / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.render(), encoding="utf-8")


def _units(hits: Sequence[tuple[str, str]], gold: frozenset[str]) -> list[str]:
    """Hits ``(path, id)`` as the gold names them: by path, or by id when the gold lists it."""
    return [pid if path not in gold and pid in gold else path for path, pid in hits]


@dataclass
class _Asker:
    """Asks one vault's questions of every configuration."""

    config: Config
    baseline: PlainBM25
    search: SearchFn
    ks: tuple[int, ...]
    ids: dict[str, str]

    def ranking(self, name: str, question: Question) -> list[str]:
        if name == PLAIN_BM25:
            paths = self.baseline.search(question.text, project=question.project, limit=DEPTH)
            return _units([(p, self.ids.get(p, p[:-3])) for p in paths], question.gold)
        options: dict[str, Any] = {
            "limit": DEPTH,
            "project": question.project,
            "snippets": False,
        }
        if question.now:
            options["now"] = question.now
        if name != DEFAULT:
            options["switches"] = frozenset({name})
        try:
            hits, _notice = self.search(self.config, question.text, **options)
        except QuerySyntaxError:  # a question of punctuation only: no page found
            return []
        return _units([(h.path, h.id) for h in hits], question.gold)

    def scores(self, name: str, question: Question) -> tuple[dict[str, float], list[str]]:
        if name == RANDOM:
            pool = self.baseline.pool.get(question.project) or self.baseline.pool[None]
            pool = max(pool, len(question.gold))
            return random_expectation(pool, len(question.gold), self.ks), []
        ranking = self.ranking(name, question)
        return score(ranking, question.gold, self.ks), ranking


def _run_vault(
    vault: EvalVault, result: RunResult, sync: SyncFn, search: SearchFn, advance: Any
) -> None:
    questions = [q for q in vault.questions if result.split in ("all", q.split)]
    if not questions:
        return
    with tempfile.TemporaryDirectory(prefix="vault-sync-eval-") as tmp:
        started = time.perf_counter()
        folder = vault.folder or Path(tmp)
        if vault.folder is None:
            _write(vault.pages, folder)
        config = load_config(folder)
        pages = vault.pages or vault_pages(config)
        if vault.folder is not None:
            _note_missing(result, questions, pages)
        sync(config)
        ids = {p.path: p.id for p in pages if p.id}
        asker = _Asker(config, PlainBM25(pages), search, result.benchmark.ks, ids)
        result.sync_s += time.perf_counter() - started
        result.pages += len(pages)
        for question in questions:
            for name in result.configs:
                metrics, ranking = asker.scores(name, question)
                result.scores[name].append((question, metrics))
                if name == DEFAULT:
                    result.rankings[question.id] = ranking[:10]
            if advance:
                advance(1)


def run_benchmark(
    bench: Benchmark,
    *,
    split: str,
    configs: Sequence[str],
    sync: SyncFn,
    search: SearchFn,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Sync each vault of ``bench`` and ask its questions of every configuration.

    Args:
        bench: what to measure (from a loader).
        split: ``dev``, ``test`` or ``all``: which questions are asked.
        configs: from :func:`configurations`.
        sync: the engine's sync, called with each vault's config.
        search: the engine's search, ``search(config, text, **options) -> (hits, notice)``.
        progress: called with the number of questions; returns a callback fed 1 per
            question asked (or ``None``).

    Returns:
        The scores; ``wall_s`` covers syncing and asking.
    """
    started = time.perf_counter()
    result = RunResult(bench, split, list(configs), {name: [] for name in configs})
    total = sum(1 for q in bench.questions() if split in ("all", q.split))
    advance = progress(total) if progress else None
    for vault in bench.vaults:
        _run_vault(vault, result, sync, search, advance)
    result.wall_s = time.perf_counter() - started
    return result
