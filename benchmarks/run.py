"""The benchmark runner of issue 5: every figure beside its same-run baseline, ratio and target.

    python benchmarks/run.py --sizes 1000,10000 [--corpora] [--json OUT] [--quick] [--only M,..]

For each generated size (:func:`generate_vault.generate`, ``--seed``, default 1) and, with
``--corpora``, each Markdown vault in ``/work/shared/corpora`` (copied to a temp folder first;
the shared folder is never written), one after another:

- ``sync``: cold ``sync`` (whole process, store removed first) alternating with the floor
  (``benchlib.py floor``, whole process); no-change ``sync``; one-page-change ``sync``;
  ``rebuild`` — all whole processes through :func:`benchlib.vault_sync_cmd`;
- ``memory``: peak RSS of each cold ``sync`` and floor process (``/usr/bin/time -f %M``, else
  the ``os.wait4`` rusage of that child);
- ``watch``: a real ``vault-sync watch --json-log``: its resident memory when idle, 2 s after
  its start-up reconcile (``VmRSS`` of ``/proc/PID/status``); save -> visible (median, p95)
  for a long-lived reader here and for fresh ``vault-sync query`` processes, beside a raw
  tantivy delete + add + commit + reload (:func:`measure_watch`);
- ``store``: bytes of ``set-*/index/`` and ``sidecar.sqlite*`` of the active set;
- ``query``: in process (one ``open_reader``; ``reader.search(q, limit=10)``, the ranked
  pipeline ``vault-sync query`` runs, with the graph and authority stages on, checked) for a
  one-word, multi-word, phrase and CJK query, words picked from the vault's own pages, and
  for reference the lexical stream alone (``retrieve.search``); as a
  whole ``vault-sync query WORD --json`` process beside ``python -c pass``; baselines
  ``rg -il WORD`` (``grep -ril`` when ``rg`` is not on PATH; ``benchmarks/setup.sh``, run by
  ``./run bench``, installs it from Debian) and SQLite FTS5 (bm25, top 10) over the same page
  texts;
- ``write``, ``brief``: a whole ``reinforce`` and a whole ``brief`` process beside the whole
  ``query`` (issues 11, 12); ``brief_watch``: the ``[[brief.targets]]`` refresh a watcher runs
  after a batch (its ``brief_ms``) beside a watcher's batch apply with no target
  (:func:`measure_brief_watch`);
- ``mcp``: ``query`` through a running ``vault-sync mcp`` server (issue 13).

``--only`` runs some measures (:func:`chosen_measures`).

Prints one Markdown table (vault, figure, measured, baseline, ratio, target, verdict) and
writes everything as JSON with ``--json``. Never fails on a timing: exit 0 unless an error.

The runner grows: a new feature adds a function ``measure_x(ctx)`` filling ``ctx.fig(...)``
rows and appends it to :data:`MEASURES`; targets live in :data:`TARGETS`.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib
import watch_latency
from generate_vault import generate

#: ../shared/corpora beside the repository, as CI lays it out (read only; copied before use).
CORPORA_ROOT = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
CORPORA = ("obsidian-tasks-docs", "silverbullet-docs", "dnd-srd-zh")
FLOOR_CMD = [sys.executable, str(Path(__file__).with_name("benchlib.py")), "floor"]
QUERY_KINDS = ("one-word", "multi-word", "phrase", "CJK")
#: Save -> visible under watch: least time between two edits, reader poll interval (seconds).
WATCH_SPACING_S = 0.4
WATCH_POLL_S = 0.005
#: A word no generated or real page holds: the MCP round trip without ranking work.
MCP_NO_HIT = "zqnohitzq"
_WORD = re.compile(r"[a-z]{4,}")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]{2,}")
_FRONT = re.compile(r"\A---\n.*?\n---\n?", re.S)
_STOP = frozenset(
    [
        "this",
        "that",
        "with",
        "from",
        "have",
        "will",
        "your",
        "they",
        "them",
        "then",
        "than",
        "what",
        "when",
        "which",
        "there",
        "their",
        "been",
        "were",
        "into",
        "about",
        "also",
        "more",
        "some",
        "only",
        "other",
        "these",
        "those",
        "each",
        "just",
        "like",
        "make",
        "such",
        "used",
        "using",
        "uses",
        "should",
        "would",
        "could",
        "does",
        "done",
        "here",
        "where",
        "while",
        "after",
        "before",
    ]
)


# --------------------------------------------------------------------------- settings


@dataclass
class Reps:
    """Repetitions per figure (``--quick`` = one run each, fewer query repetitions)."""

    cold: int = 3
    small: int = 5
    rebuild: int = 2
    query_inproc: int = 50
    query_cli: int = 10
    grep: int = 5
    fts: int = 20
    #: edits per save -> visible method under watch (and raw tantivy updates for its baseline)
    watch_edits: int = 30
    #: edits per watcher (without, then with a ``[[brief.targets]]`` entry) for the briefing
    #: refresh of issue 12
    brief_watch_edits: int = 15

    @classmethod
    def quick(cls) -> Reps:
        """The CI smoke's repetitions: one whole-process run of each figure, 3 watch edits."""
        return cls(
            cold=1,
            small=1,
            rebuild=1,
            query_inproc=10,
            query_cli=2,
            grep=1,
            fts=5,
            watch_edits=3,
            brief_watch_edits=3,
        )


# --------------------------------------------------------------------------- targets

Target = tuple[str, Callable[[dict[str, Any]], bool | None]]


def _le(figure: dict[str, Any], limit: float, of: str = "value") -> bool | None:
    v = figure.get(of)
    return None if v is None else v <= limit


def _ratio_le(figure: dict[str, Any], limit: float) -> bool | None:
    r = figure.get("ratio")
    return None if r is None else r <= limit


def _visible_goal(figure: dict[str, Any]) -> bool | None:
    """Issue 3's goal for save -> visible: median ≤ 250 ms and p95 ≤ 500 ms, no edit lost."""
    if figure.get("misses"):
        return False
    med, p95 = figure.get("median"), figure.get("p95")
    if med is None or p95 is None:
        return None
    return bool(med <= 250 and p95 <= 500)


def target_for(key: str, size: int | None) -> Target | None:
    """The issue-5 target for one figure at a generated size (``None``: no target applies)."""
    if size is None:  # real corpora: figures beside their baselines, no target in the issue
        return None
    big = size >= 10_000
    if key == "sync.cold" and big:
        return "≤ 4× floor", lambda f: _ratio_le(f, 4.0)
    if key == "sync.nochange" and size == 10_000:
        return "≤ 500 ms", lambda f: _le(f, 500)
    if key == "sync.onepage" and size == 10_000:
        return "≤ 300 ms", lambda f: _le(f, 300)
    if key.startswith("query.inproc.") and size == 10_000:
        return "median ≤ 5 ms", lambda f: _le(f, 5)
    if key.startswith("query.inproc.") and size >= 100_000:
        return "median ≤ 20 ms", lambda f: _le(f, 20)
    if key == "query.cli" and size == 10_000:
        return "≤ 100 ms", lambda f: _le(f, 100)
    if key == "query.cli_vs_grep" and size >= 100_000:
        return "faster than `rg`/`grep -il`", lambda f: _ratio_le(f, 0.999)
    if key == "brief.cli" and size == 10_000:  # issue 12
        return "≤ 2× a whole-process query", lambda f: _ratio_le(f, 2.0)
    if key == "watch.brief_refresh" and size == 10_000:  # issue 12
        return "median ≤ 100 ms added", lambda f: _le(f, 100)
    if key == "mcp.query" and size == 10_000:  # issue 13
        return "median ≤ 10 ms", lambda f: _le(f, 10)
    if key == "write.reinforce" and size == 10_000:  # issue 11
        return "≤ 3× a whole-process query", lambda f: _ratio_le(f, 3.0)
    if key == "memory.watch_idle" and size == 10_000:
        return "≤ 150 MB", lambda f: _le(f, 150)
    if key in ("watch.visible_reader", "watch.visible_cli", "watch.visible_mcp"):  # issue 3
        return "median ≤ 250 ms, p95 ≤ 500 ms", _visible_goal
    return None


# --------------------------------------------------------------------------- context


@dataclass
class Ctx:
    """One vault being measured: where it is, its pages, and the figures so far."""

    name: str
    vault: Path
    work: Path
    size: int | None  # pages asked of the generator; None for a real corpus
    reps: Reps
    rng: random.Random
    pages: list[Path] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def cmd(self) -> list[str]:
        return [*benchlib.vault_sync_cmd(), "--vault", str(self.vault)]

    def fig(
        self,
        key: str,
        label: str,
        values: Sequence[float] | float | None,
        unit: str = "ms",
        baseline: str | None = None,
        baseline_key: str | None = None,
        **more: Any,
    ) -> dict[str, Any]:
        """Record one figure in ``unit`` (ms unless told); ``values`` is a list (summarised:
        n, median, p95, max, min; its value is the median), one number, or ``None``."""
        figure: dict[str, Any] = {"label": label, "unit": unit, **more}
        if values is None or isinstance(values, (int, float)):
            figure["value"] = None if values is None else round(float(values), 3)
        else:
            s = {
                "n": len(values),
                "median": round(statistics.median(values), 3),
                "p95": round(benchlib.percentile(values, 0.95), 3),
                "max": round(max(values), 3),
                "min": round(min(values), 3),
            }
            figure.update(s)
            figure["value"] = s["median"]
            figure["raw"] = [round(v, 2) for v in values]
        if baseline_key and baseline_key in self.figures:
            base = self.figures[baseline_key]
            figure["baseline"] = baseline or base["label"]
            figure["baseline_value"] = base["value"]
            if base["value"] and figure["value"] is not None:
                figure["ratio"] = round(figure["value"] / base["value"], 2)
        target = target_for(key, self.size)
        if target:
            figure["target"] = target[0]
            ok = target[1](figure)
            figure["verdict"] = "—" if ok is None else ("met" if ok else "MISSED")
        self.figures[key] = figure
        return figure


# --------------------------------------------------------------------------- processes


def run_measured(cmd: Sequence[str], **kwargs: Any) -> tuple[float, int, str]:
    """Run one process to completion: (wall ms, peak RSS KiB of that process, stdout).

    The peak comes from ``/usr/bin/time -f %M`` when it exists: a child forked straight from
    this (large) process inherits its high-water RSS across ``exec`` on Linux, so its own
    ``ru_maxrss`` would never be below ours; ``time`` is small and forks the command itself.
    Without ``/usr/bin/time`` it is the ``os.wait4`` rusage of the child (an upper bound).
    """
    timer = Path("/usr/bin/time")
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file,
    ):
        full = [str(timer), "-f", "%M", "-o", rss_file.name, *cmd] if timer.exists() else cmd
        started = time.perf_counter()
        proc = subprocess.Popen(full, stdout=out, stderr=err, **kwargs)
        _, status, usage = os.wait4(proc.pid, 0)
        ms = (time.perf_counter() - started) * 1000
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        if proc.returncode != 0:
            tail = err.read().decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {tail}")
        rss = usage.ru_maxrss
        if timer.exists():
            lines = [x for x in Path(rss_file.name).read_text().split() if x.isdigit()]
            rss = int(lines[-1]) if lines else rss
    return ms, rss, stdout


def load_pages(ctx: Ctx) -> None:
    """List the vault's pages and read them (warms the page cache for every contender)."""
    pages: list[Path] = []
    for folder, dirs, names in os.walk(ctx.vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        pages += [Path(folder, n) for n in names if n.endswith(".md") and not n.startswith(".")]
    ctx.pages = sorted(pages)
    ctx.texts = {
        p.relative_to(ctx.vault).as_posix(): p.read_text(encoding="utf-8-sig", errors="replace")
        for p in ctx.pages
    }


# --------------------------------------------------------------------------- measures


def measure_sync(ctx: Ctx) -> None:
    cold: list[float] = []
    floor: list[float] = []
    cold_rss: list[int] = []
    floor_rss: list[int] = []
    for _ in range(ctx.reps.cold):
        ms, rss, _out = run_measured([*FLOOR_CMD, str(ctx.vault), str(ctx.work / "floor-index")])
        floor.append(ms)
        floor_rss.append(rss)
        shutil.rmtree(ctx.vault / ".vault-sync", ignore_errors=True)
        ms, rss, out = run_measured([*ctx.cmd, "sync", "--json"])
        cold.append(ms)
        cold_rss.append(rss)
        ctx.extra["cold_sync_report"] = json.loads(out)
        log(f"  cold sync {ms / 1000:.2f} s, floor {floor[-1] / 1000:.2f} s")
    shutil.rmtree(ctx.work / "floor-index", ignore_errors=True)
    ctx.fig("sync.floor", "floor", floor)
    ctx.fig("sync.cold", "cold `sync`", cold, baseline_key="sync.floor")
    ctx.fig("memory.floor", "floor peak RSS", max(floor_rss) / 1024, unit="MB")
    ctx.fig(
        "memory.cold_sync",
        "cold `sync` peak RSS",
        max(cold_rss) / 1024,
        unit="MB",
        baseline_key="memory.floor",
    )
    nochange = [run_measured([*ctx.cmd, "sync", "--json"])[0] for _ in range(ctx.reps.small)]
    ctx.fig("sync.nochange", "no-change `sync`", nochange)
    onepage: list[float] = []
    for i in range(ctx.reps.small):
        benchlib.write_page_append(ctx.rng.choice(ctx.pages), f"zqrun{i:03d}x")
        time.sleep(0.01)
        ms, _rss, out = run_measured([*ctx.cmd, "sync", "--json"])
        if json.loads(out)["changed"] != 1:
            raise RuntimeError(f"one-page sync changed {out}")
        onepage.append(ms)
    ctx.fig("sync.onepage", "one-page-change `sync`", onepage)
    rebuild = [run_measured([*ctx.cmd, "rebuild", "--json"])[0] for _ in range(ctx.reps.rebuild)]
    ctx.fig("sync.rebuild", "`rebuild`", rebuild, baseline_key="sync.floor")


def measure_store(ctx: Ctx) -> None:
    store = ctx.vault / ".vault-sync"
    active = store / (store / "current").read_text().strip()
    index = sum(p.stat().st_size for p in (active / "index").rglob("*") if p.is_file())
    sidecar = sum(p.stat().st_size for p in active.glob("sidecar.sqlite*") if p.is_file())
    text = sum(p.stat().st_size for p in ctx.pages)
    ctx.fig("store.text", "vault text (pages)", text / 1e6, unit="MB")
    ctx.fig("store.index", "index size on disk", index / 1e6, unit="MB", baseline_key="store.text")
    ctx.fig(
        "store.sidecar", "sidecar size on disk", sidecar / 1e6, unit="MB", baseline_key="store.text"
    )


def _vm_rss_mb(pid: int) -> float:
    """Resident memory of a running process now (``VmRSS``), in MB (MiB)."""
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+)", status)
    if found is None:
        raise RuntimeError(f"no VmRSS for pid {pid}")
    return int(found.group(1)) / 1024


def measure_watch(ctx: Ctx) -> None:
    """A real ``vault-sync watch --json-log`` on the vault: idle RSS (MB) 2 s after its start-up
    reconcile, then save -> visible (ms) for ``reps.watch_edits`` edits per method, measured
    with :mod:`watch_latency`'s functions: (a) a long-lived reader here polling ``reload()`` +
    ``search`` every 5 ms, (b) fresh ``vault-sync query WORD --json`` processes (another
    process), (c) a running ``vault-sync mcp`` server's ``query`` tool over the SDK's stdio
    client every 5 ms (issue 13); and the watcher's batch apply times (ms, from its log).
    Baseline, measured before the watcher starts: raw tantivy delete + add + commit + reload
    of one page in a plain index of the same pages (the floor's index, one long-lived
    writer)."""
    edits = ctx.reps.watch_edits
    if edits:
        raw, _floor = watch_latency.raw_tantivy_baseline(
            ctx.vault, ctx.work, ctx.pages, edits, ctx.rng
        )
        shutil.rmtree(ctx.work / "plain-index", ignore_errors=True)
        ctx.fig("watch.raw_tantivy", "raw tantivy delete + add + commit + reload", raw)
    proc, log = benchlib.start_watcher([*ctx.cmd, "watch", "--json-log"])
    try:
        ready_ms = benchlib.wait_for_watcher(ctx.vault, proc, log)
        time.sleep(2.0)
        rss_mb = _vm_rss_mb(proc.pid)
        if edits:
            reader, windows, misses_a = watch_latency.reader_latencies(
                ctx.vault, ctx.pages, edits, WATCH_SPACING_S, WATCH_POLL_S, ctx.rng
            )
            cli, runs, _windows_b, misses_b = watch_latency.query_process_latencies(
                ctx.vault, ctx.pages, edits, WATCH_SPACING_S, ctx.rng
            )
            mcp, _trips, windows_c, misses_c = watch_latency.mcp_latencies(
                ctx.cmd, ctx.pages, edits, WATCH_SPACING_S, WATCH_POLL_S, ctx.rng
            )
            time.sleep(0.5)  # the last batch's log line follows its reload
            batches = log.batch_ms(windows[0][0], windows_c[-1][1])
        if proc.poll() is not None:
            raise RuntimeError(f"watch exited {proc.returncode}: {log.other[-5:]}")
    finally:
        benchlib.stop_process(proc)
    ctx.fig(
        "memory.watch_idle", "idle `watch` RSS (2 s after start-up reconcile)", rss_mb, unit="MB"
    )
    ctx.extra["watch_ready_ms"] = round(ready_ms, 1)
    ctx.extra["watch_log_other"] = log.other[-20:]
    if not edits:
        return
    how = {
        "watch.visible_reader": (
            "long-lived reader, `reload()` + search every 5 ms",
            reader,
            misses_a,
        ),
        "watch.visible_cli": ("fresh `vault-sync query --json` processes", cli, misses_b),
        "watch.visible_mcp": (  # issue 13
            "a running `vault-sync mcp` server's `query` tool every 5 ms",
            mcp,
            misses_c,
        ),
    }
    for key, (what, values, misses) in how.items():
        lost = f", {misses} never visible" if misses else ""
        ctx.fig(
            key,
            f"save → visible under `watch`, {what} (p95 {{p95}}; {len(values)} edits{lost})",
            values or None,
            baseline_key="watch.raw_tantivy",
            misses=misses,
        )
    ctx.fig(
        "watch.batch_apply",
        "`watch` batch apply (`ms` of its --json-log lines; p95 {p95})",
        batches or None,
        baseline_key="watch.raw_tantivy",
    )
    ctx.extra["watch_query_process_ms"] = benchlib.summary(runs)


def pick_queries(ctx: Ctx) -> dict[str, str]:
    """One-word, multi-word, phrase and CJK queries made of words in the vault's pages."""
    df: Counter[str] = Counter()
    bigrams: Counter[tuple[str, str]] = Counter()
    han: Counter[str] = Counter()
    bodies = [_FRONT.sub("", t, count=1) for t in ctx.texts.values()]
    for i, body in enumerate(bodies):
        low = body.lower()
        words = [w for w in _WORD.findall(low) if w not in _STOP]
        df.update(set(words))
        if i < 3000:
            for line in low.splitlines():
                toks = re.findall(r"[a-z]+", line)
                bigrams.update(
                    (a, b)
                    for a, b in itertools.pairwise(toks)
                    if len(a) >= 4 and len(b) >= 4 and a != b and a not in _STOP and b not in _STOP
                )
            for run in _HAN_RUN.findall(body):
                han.update({run[j : j + 2] for j in range(len(run) - 1)})
    n = max(1, len(bodies))
    # mid-frequency words: in about 2% (one-word) and 5-10% (multi-word) of the pages
    ranked = sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))

    def near(share: float, skip: set[str]) -> str:
        goal = max(2.0, share * n)
        best = min((w for w, _ in ranked if w not in skip), key=lambda w: (abs(df[w] - goal), w))
        return best

    one = near(0.02, set())
    multi_a = near(0.08, {one})
    multi_b = near(0.05, {one, multi_a})
    queries = {"one-word": one, "multi-word": f"{multi_a} {multi_b}"}
    common = [bg for bg, c in bigrams.most_common(50) if c >= 2]
    phrases = [f'"{a} {b}"' for a, b in common[5:] + common[:5]]
    if phrases:
        queries["phrase"] = phrases[0]
    ctx.extra["phrase_candidates"] = phrases
    if han:
        ranked_han = sorted(han.items(), key=lambda kv: (-kv[1], kv[0]))
        queries["CJK"] = ranked_han[min(len(ranked_han) - 1, 10)][0]
    return queries


def _fts_query(q: str) -> str:
    if q.startswith('"'):
        return q
    return " AND ".join(f'"{w}"' for w in q.split())


def timed_calls(call: Callable[[], Any], n: int) -> tuple[list[float], list[float]]:
    """``n`` calls: (wall ms, CPU ms of this thread) of each. On a shared machine the wall
    time also counts waiting for a core; the CPU time is this call's own work (both kept)."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(n):
        t, c = time.perf_counter(), time.thread_time()
        call()
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return wall, cpu


def timed_processes(cmd: Sequence[str], n: int) -> tuple[list[float], list[float]]:
    """``n`` runs of ``cmd``: (wall ms, CPU ms of the child: user + system, from the
    children's rusage) of each."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(benchlib.timed_run(cmd)[0])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        cpu.append(used * 1000)
    return wall, cpu


def cpu_summary(cpu: Sequence[float]) -> dict[str, Any]:
    """The CPU-time fields of a figure (``{cpu}`` in its label shows the median)."""
    return {
        "cpu_median": round(statistics.median(cpu), 3),
        "cpu_p95": round(benchlib.percentile(cpu, 0.95), 3),
        "cpu_raw": [round(v, 2) for v in cpu],
    }


def measure_query(ctx: Ctx) -> None:
    """In-process queries through the path ``vault-sync query`` takes (``engine.search`` ->
    ``Reader.search`` -> the ranked pipeline, :mod:`vault_sync.ranking`, with the vault's
    ``[ranking]`` settings: graph and authority on), beside FTS5 over the same texts; the
    lexical stream alone for reference; then whole processes."""
    from vault_sync import retrieve
    from vault_sync.config import load_config
    from vault_sync.rank_plan import build_plan
    from vault_sync.readers import open_reader

    queries = pick_queries(ctx)
    ctx.extra["queries"] = queries
    ctx.extra["loadavg_before_query"] = [round(v, 2) for v in os.getloadavg()]
    # baseline: SQLite FTS5 over the same page texts (a temp db; bm25, top 10)
    db_path = ctx.work / "fts.sqlite"
    db_path.unlink(missing_ok=True)
    db = sqlite3.connect(db_path)
    t = time.perf_counter()
    db.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, body)")
    db.executemany("INSERT INTO pages(path, body) VALUES (?, ?)", ctx.texts.items())
    db.commit()
    ctx.extra["fts_build_ms"] = round((time.perf_counter() - t) * 1000, 1)
    fts_sql = "SELECT path FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT 10"
    for phrase in ctx.extra.pop("phrase_candidates", []):  # a phrase the vault really holds
        if db.execute(fts_sql, (phrase,)).fetchall():
            queries["phrase"] = phrase
            break
    reader = open_reader(load_config(ctx.vault))
    hits: dict[str, Any] = {}
    for kind in QUERY_KINDS:
        q = queries.get(kind)
        if q is None:
            continue
        fts_ms: list[float] = []
        for _ in range(ctx.reps.fts):
            t = time.perf_counter()
            rows = db.execute(fts_sql, (_fts_query(q),)).fetchall()
            fts_ms.append((time.perf_counter() - t) * 1000)
        ctx.fig(f"query.fts.{kind}", f"FTS5 bm25 top 10, {kind}", fts_ms)
        stages = build_plan(q, settings=reader.config.ranking).stages
        if not {"graph", "authority"} <= stages:
            raise RuntimeError(f"the ranked query runs without graph or authority: {stages}")
        reader.search(q, limit=10)  # first search outside the timing (lazy loads)
        ms, cpu = timed_calls(functools.partial(reader.search, q, limit=10), ctx.reps.query_inproc)
        found = reader.search(q, limit=10)
        lexical, lexical_cpu = timed_calls(
            functools.partial(retrieve.search, reader.index, q, limit=10), ctx.reps.query_inproc
        )
        words = retrieve.search(reader.index, q, limit=10)
        hits[kind] = {
            "query": q,
            "hits": len(found),
            "lexical_hits": len(words),
            "fts_hits": len(rows),
            "stages": sorted(stages),
        }
        ctx.fig(
            f"query.inproc.{kind}",
            f"`query` in process (ranked: graph + authority), {kind} `{q}`"
            f" (p95 {{p95}}; CPU {{cpu}}; {len(found)} hits, FTS5 {len(rows)})",
            ms,
            baseline_key=f"query.fts.{kind}",
            **cpu_summary(cpu),
        )
        ctx.fig(
            f"query.lexical.{kind}",
            f"lexical stream alone (`retrieve.search`), {kind} (p95 {{p95}}; CPU {{cpu}})",
            lexical,
            baseline_key=f"query.fts.{kind}",
            **cpu_summary(lexical_cpu),
        )
    db.close()
    db_path.unlink(missing_ok=True)
    ctx.extra["query_hits"] = hits
    # whole processes: python -c pass, vault-sync query WORD --json, rg/grep -il WORD
    word = queries["one-word"]
    py, py_cpu = timed_processes([sys.executable, "-c", "pass"], ctx.reps.query_cli)
    ctx.fig("query.python", "`python -c pass` (CPU {cpu})", py, **cpu_summary(py_cpu))
    cli, cli_cpu = timed_processes([*ctx.cmd, "query", word, "--json"], ctx.reps.query_cli)
    out = benchlib.timed_run([*ctx.cmd, "query", word, "--json"])[1]
    if not json.loads(out.stdout)["hits"]:
        raise RuntimeError(f"CLI query {word!r} found nothing")
    ctx.fig(
        "query.cli",
        f"`vault-sync query {word} --json` (whole process; CPU {{cpu}})",
        cli,
        baseline_key="query.python",
        **cpu_summary(cli_cpu),
    )
    ctx.fig("query.cli_cpu", f"`vault-sync query {word} --json`, CPU time (user + sys)", cli_cpu)
    rg = shutil.which("rg")
    grep_cmd = (
        [rg, "-il", word, str(ctx.vault)]
        if rg
        else ["grep", "-ril", "--exclude-dir=.vault-sync", word, str(ctx.vault)]
    )
    grep_name = "rg -il" if rg else "grep -ril"
    grep_ms: list[float] = []
    for _ in range(ctx.reps.grep):
        t = time.perf_counter()
        res = subprocess.run(grep_cmd, capture_output=True, check=False)
        grep_ms.append((time.perf_counter() - t) * 1000)
        if res.returncode not in (0, 1):
            raise RuntimeError(f"{grep_name} exited {res.returncode}")
    ctx.extra["grep_tool"] = grep_name
    ctx.extra["grep_files"] = len(res.stdout.splitlines())
    ctx.fig("query.grep", f"`{grep_name} {word}` (whole process)", grep_ms)
    ctx.fig(
        "query.cli_vs_grep", f"`vault-sync query` vs `{grep_name}`", cli, baseline_key="query.grep"
    )


def measure_write(ctx: Ctx) -> None:
    """``vault-sync reinforce PAGE --evidence session:ID --json`` as a whole process (issue 11:
    edit the page, then apply it to both stores), beside the whole-process ``query`` above.
    Each run reinforces another page of the vault (a copy: the benchmark's own)."""
    runs: list[float] = []
    cpu: list[float] = []
    pages = sorted(ctx.texts)
    for n in range(ctx.reps.query_cli):
        page = pages[(n * 7919) % len(pages)]
        ms_, cpu_, out = benchlib.cpu_timed_run(
            [*ctx.cmd, "reinforce", page, "--evidence", f"session:bench-{n}", "--json"]
        )
        if out.returncode != 0 or not json.loads(out.stdout)["pages"][0]["changed"]:
            raise RuntimeError(f"reinforce {page!r} failed: {out.stderr.strip()}")
        runs.append(ms_)
        cpu.append(cpu_)
    ctx.fig(
        "write.reinforce",
        "`vault-sync reinforce PAGE --evidence …` (whole process)",
        runs,
        baseline_key="query.cli",
    )
    ctx.fig("write.reinforce_cpu", "`reinforce`, CPU time", cpu, baseline_key="query.cli_cpu")


def measure_brief(ctx: Ctx) -> None:
    """``vault-sync brief`` (default budget, to stdout) as a whole process, beside the
    whole-process one-word ``query`` above (issue 12: goal <= 2x at 10k pages)."""
    timed = [benchlib.cpu_timed_run([*ctx.cmd, "brief"]) for _ in range(ctx.reps.query_cli)]
    runs = [ms for ms, _, _ in timed]
    ctx.fig("brief.cli", "`vault-sync brief` (whole process)", runs, baseline_key="query.cli")
    cpu = [cpu for _, cpu, _ in timed]
    ctx.fig("brief.cli_cpu", "`brief`, CPU time", cpu, baseline_key="query.cli_cpu")


#: Seconds between saves while the briefing refresh is measured: one batch (and its
#: refresh) per save, never two saves in one batch.
BRIEF_WATCH_SPACING_S = 1.0
#: The briefing target the second watcher refreshes (a whole file inside the vault, which
#: the scan leaves out: no loop).
BRIEF_TARGET = "AGENTS.md"


def _watch_batches(ctx: Ctx, edits: int) -> list[dict[str, Any]]:
    """Start ``vault-sync watch --json-log`` on the vault, append a unique word to ``edits``
    random pages one at a time (each after the batch of the previous one is logged, at least
    :data:`BRIEF_WATCH_SPACING_S` apart), stop it; returns the logged non-reconcile batch
    lines (``ms``: the apply; ``brief_ms``: the targets' refresh after it, when configured).

    Raises:
        RuntimeError: the watcher exited, or a save's batch was not logged within 15 s.
    """
    proc, log = benchlib.start_watcher([*ctx.cmd, "watch", "--json-log"])
    try:
        benchlib.wait_for_watcher(ctx.vault, proc, log)
        time.sleep(1.0)  # the start-up reconcile's line, if any, is out
        start = time.perf_counter()
        for n in range(edits):
            seen = len(log.lines)
            saved = time.perf_counter()
            page = ctx.rng.choice(ctx.pages)
            benchlib.write_page_append(page, f"briefwatch{n}q{ctx.rng.randrange(10**9)}")
            while not any(not line.get("reconcile") for _, line in log.lines[seen:]):
                if proc.poll() is not None:
                    raise RuntimeError(f"watch exited {proc.returncode}: {log.other[-5:]}")
                if time.perf_counter() - saved > 15:
                    raise RuntimeError(f"no batch logged for a save of {page}")
                time.sleep(0.01)
            time.sleep(max(0.0, BRIEF_WATCH_SPACING_S - (time.perf_counter() - saved)))
    finally:
        benchlib.stop_process(proc)
    return [line for at, line in log.lines if at >= start and not line.get("reconcile")]


def measure_brief_watch(ctx: Ctx) -> None:
    """Issue 12: what the ``[[brief.targets]]`` refresh adds to a watcher's batch. Two real
    watchers one after the other, the same saves (a word appended to a random page, one
    batch each): first with no target (the baseline: its batch apply, ``ms``), then with a
    whole-file target ``AGENTS.md`` in the vault (``brief_ms``: the refresh after each
    batch, logged by the watcher). The vault's ``vault-sync.toml`` is restored after."""
    edits = ctx.reps.brief_watch_edits
    if not edits:
        return
    config = ctx.vault / "vault-sync.toml"
    before = config.read_text(encoding="utf-8") if config.exists() else None
    plain = _watch_batches(ctx, edits)
    target = f'\n[[brief.targets]]\npath = "{BRIEF_TARGET}"\nmode = "file"\n'
    config.write_text((before or "") + target, encoding="utf-8")
    try:
        briefed = _watch_batches(ctx, edits)
    finally:
        if before is None:
            config.unlink()
        else:
            config.write_text(before, encoding="utf-8")
        (ctx.vault / BRIEF_TARGET).unlink(missing_ok=True)
    ctx.fig(
        "watch.batch_plain",
        "`watch` batch apply, no brief target",
        [float(line["ms"]) for line in plain] or None,
    )
    refresh = [float(line["brief_ms"]) for line in briefed if "brief_ms" in line]
    ctx.fig(
        "watch.brief_refresh",
        f"`[[brief.targets]]` refresh after a `watch` batch (`brief_ms`; p95 {{p95}};"
        f" {len(refresh)} batches)",
        refresh or None,
        baseline_key="watch.batch_plain",
    )
    ctx.fig(
        "watch.brief_refresh_cpu",
        "the same refreshes, CPU time of the watcher's thread (`brief_cpu_ms`)",
        [float(line["brief_cpu_ms"]) for line in briefed if "brief_cpu_ms" in line] or None,
    )
    ctx.fig(
        "watch.batch_with_brief",
        "`watch` batch apply + brief refresh (p95 {p95})",
        [float(line["ms"]) + float(line.get("brief_ms", 0)) for line in briefed] or None,
        baseline_key="watch.batch_plain",
    )
    errors = [line["brief_error"] for line in briefed if "brief_error" in line]
    if errors:
        raise RuntimeError(f"brief refresh failed under watch: {errors[0]}")


def measure_mcp(ctx: Ctx) -> None:
    """``query`` through a running ``vault-sync mcp`` server over the SDK's stdio client:
    the round trip an agent sees, beside the in-process query of the same word (issue 13:
    goal <= 10 ms median at 10k pages); and the round trip of a word no page holds (the
    protocol, the sanitizer, the index reload and the sidecar, without ranking: what the
    server adds to a query)."""
    import asyncio

    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    word = pick_queries(ctx)["one-word"]
    params = StdioServerParameters(command=ctx.cmd[0], args=[*ctx.cmd[1:], "mcp", "--read-only"])

    async def run() -> tuple[list[float], list[float]]:
        times: dict[str, list[float]] = {word: [], MCP_NO_HIT: []}
        async with Client(params, read_timeout_seconds=120) as client:
            await client.call_tool("query", {"text": word})  # warm: the first opens the stores
            for _ in range(ctx.reps.query_inproc):
                for text, out in times.items():
                    started = time.perf_counter()
                    result = await client.call_tool("query", {"text": text, "limit": 10})
                    out.append((time.perf_counter() - started) * 1000)
                    if result.is_error:
                        raise RuntimeError(f"MCP query failed: {result.content}")
        return times[word], times[MCP_NO_HIT]

    found, floor = asyncio.run(run())
    ctx.fig(
        "mcp.query",
        f"MCP `query` round trip, one word `{word}` (p95 {{p95}})",
        found,
        baseline_key="query.inproc.one-word",
    )
    ctx.fig("mcp.no_hit", "MCP `query` round trip, a word no page holds (p95 {p95})", floor)


#: Run in this order for every vault. Later features append their own ``measure_*``.
MEASURES: list[Callable[[Ctx], None]] = [
    measure_sync,
    measure_store,
    measure_watch,
    measure_query,
    measure_write,
    measure_brief,
    measure_brief_watch,
    measure_mcp,
]


# --------------------------------------------------------------------------- report

#: Table order (figures not listed here follow in insertion order).
ORDER = (
    "sync.cold",
    "sync.nochange",
    "sync.onepage",
    "sync.rebuild",
    "query.inproc.one-word",
    "query.inproc.multi-word",
    "query.inproc.phrase",
    "query.inproc.CJK",
    "query.lexical.one-word",
    "query.lexical.multi-word",
    "query.lexical.phrase",
    "query.lexical.CJK",
    "query.cli",
    "query.cli_vs_grep",
    "query.cli_cpu",
    "write.reinforce",
    "write.reinforce_cpu",
    "brief.cli",
    "brief.cli_cpu",
    "watch.brief_refresh",
    "watch.brief_refresh_cpu",
    "watch.batch_with_brief",
    "watch.batch_plain",
    "mcp.query",
    "mcp.no_hit",
    "watch.visible_reader",
    "watch.visible_cli",
    "watch.visible_mcp",
    "watch.batch_apply",
    "memory.cold_sync",
    "memory.watch_idle",
    "store.index",
    "store.sidecar",
)
HIDDEN_PREFIXES = (
    "sync.floor",
    "query.fts.",
    "query.python",
    "query.grep",
    "memory.floor",
    "store.text",
    "watch.raw_tantivy",
)


def _num(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "ms" and value >= 1000:
        return f"{value / 1000:,.2f} s"
    if unit == "ms":
        if value < 10:
            return f"{value:.2f} ms"
        return f"{value:,.1f} ms" if value < 100 else f"{value:,.0f} ms"
    return f"{value:,.1f} {unit}"


def _label(figure: dict[str, Any]) -> str:
    """A figure's label with its ``{p95}`` and ``{cpu}`` (CPU median) filled in."""
    label = str(figure["label"]).replace("{p95}", _num(figure.get("p95"), figure["unit"]))
    return label.replace("{cpu}", _num(figure.get("cpu_median"), figure["unit"]))


def rows_for(name: str, figures: dict[str, dict[str, Any]]) -> list[list[str]]:
    keys = [k for k in ORDER if k in figures]
    keys += [k for k in figures if k not in keys and not k.startswith(HIDDEN_PREFIXES)]
    rows = []
    for key in keys:
        f = figures[key]
        label = _label(f)
        measured = _num(f["value"], f["unit"])
        if "baseline" in f:
            base_fig = next((g for g in figures.values() if g["label"] == f["baseline"]), None)
            unit = base_fig["unit"] if base_fig else f["unit"]
            base_label = _label(base_fig) if base_fig else f["baseline"]
            baseline = f"{base_label}: {_num(f['baseline_value'], unit)}"
        else:
            baseline = ""
        ratio = f"{f['ratio']:.2f}×" if f.get("ratio") is not None else ""
        rows.append(
            [name, label, measured, baseline, ratio, f.get("target", ""), f.get("verdict", "")]
        )
    return rows


def fit_exponent(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log(y) over log(x): y ∝ x^k."""
    if len(points) < 2:
        return None
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


#: Figures whose growth with the generated size is fitted: key -> table label.
FITS = {
    "memory.watch_idle": "idle `watch` RSS growth exponent",
    "memory.cold_sync": "cold `sync` peak RSS growth exponent",
    "sync.cold": "cold `sync` time growth exponent",
}


def growth_fits(vaults: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """For each figure of :data:`FITS`: the exponent k of ``figure ∝ pages^k`` fitted over the
    generated vaults run (``k`` is ``None`` with fewer than two sizes), and its points
    ``(pages, value in the figure's unit)``."""
    gen = [v for v in vaults.values() if v["size"]]
    fits: dict[str, dict[str, Any]] = {}
    for key, label in FITS.items():
        pts = [
            (v["pages"], v["figures"][key]["value"])
            for v in gen
            if v["figures"].get(key, {}).get("value")
        ]
        if not pts:
            continue
        k = fit_exponent(pts)
        fits[key] = {
            "label": f"{label} (over {len(pts)} size{'s' if len(pts) > 1 else ''})",
            "k": None if k is None else round(k, 3),
            "points": pts,
        }
    return fits


def table(result: dict[str, Any]) -> str:
    """The Markdown table of a run: one row per figure, then the growth exponents."""
    rows: list[list[str]] = []
    for name, v in result["vaults"].items():
        rows += rows_for(f"{name} ({v['pages']:,} p.)", v["figures"])
    for fit in result.get("fits", {}).values():
        k = fit["k"]
        rows.append(
            [
                "generated sizes",
                fit["label"],
                "— (needs ≥ 2 sizes)" if k is None else f"k = {k:.2f}",
                "linear: k = 1",
                "",
                "≤ linear",
                "" if k is None else ("met" if k <= 1.1 else "MISSED"),
            ]
        )
    header = ["vault", "figure", "measured", "baseline (same run)", "ratio", "target", "verdict"]
    return benchlib.markdown_table(header, rows)


# --------------------------------------------------------------------------- main


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


#: ``--only`` names (``measure_NAME``) whose figures are ratios to ``query``'s.
NEEDS_QUERY = frozenset({"write", "brief"})


def chosen_measures(only: str | None) -> list[Callable[[Ctx], None]]:
    """The measures ``--only`` names (comma separated, ``measure_`` left off: ``write,brief``),
    in :data:`MEASURES` order, with ``query`` added when a chosen one is a ratio to it; all
    of them for ``None``.

    Raises:
        SystemExit: an unknown name.
    """
    if only is None:
        return list(MEASURES)
    names = {n.strip() for n in only.split(",") if n.strip()}
    known = {m.__name__.removeprefix("measure_") for m in MEASURES}
    if names - known:
        raise SystemExit(f"--only: unknown {sorted(names - known)}; known: {sorted(known)}")
    if names & NEEDS_QUERY:
        names.add("query")
    return [m for m in MEASURES if m.__name__.removeprefix("measure_") in names]


def measure_vault(
    name: str,
    vault: Path,
    work: Path,
    size: int | None,
    reps: Reps,
    seed: int,
    measures: Sequence[Callable[[Ctx], None]] = tuple(MEASURES),
) -> dict[str, Any]:
    ctx = Ctx(
        name=name,
        vault=vault,
        work=work,
        size=size,
        reps=reps,
        rng=random.Random(seed * 104729 + 5),
    )
    load_pages(ctx)
    log(f"{name}: {len(ctx.pages)} pages")
    if measure_sync not in measures:  # the others read the stores: one unmeasured sync
        run_measured([*ctx.cmd, "sync", "--json"])
    for measure in measures:
        t = time.perf_counter()
        measure(ctx)
        log(f"  {measure.__name__}: {time.perf_counter() - t:.1f} s")
    return {"pages": len(ctx.pages), "size": size, "figures": ctx.figures, **ctx.extra}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="issue-5 benchmark runner")
    parser.add_argument("--sizes", default="1000,10000", help="generated sizes, comma separated")
    parser.add_argument("--corpora", action="store_true", help="also the real Markdown corpora")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--quick", action="store_true", help="one run each (CI smoke)")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder")
    parser.add_argument(
        "--only",
        default=None,
        help="only these measures, comma separated (sync, store, watch, query, write, brief,"
        " brief_watch, mcp; write and brief bring query, their baseline)",
    )
    args = parser.parse_args(argv)
    measures = chosen_measures(args.only)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    reps = Reps.quick() if args.quick else Reps()
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "vault_sync"], cwd=benchlib.ROOT, check=True
    )
    result: dict[str, Any] = {
        "machine": benchlib.machine(),
        "settings": {
            "sizes": sizes,
            "corpora": args.corpora,
            "seed": args.seed,
            "quick": args.quick,
            "only": args.only,
            "reps": vars(reps),
        },
        "vaults": {},
    }
    versions = result["machine"]["versions"]
    versions["sqlite"] = sqlite3.sqlite_version
    versions["rg"] = benchlib.tool_version("rg")  # None: not on PATH (see benchmarks/setup.sh)
    versions["grep"] = benchlib.tool_version("grep")
    versions["grep_tool"] = "rg" if shutil.which("rg") else "grep"
    result["machine"]["peak_rss_from"] = (
        "/usr/bin/time -f %M" if Path("/usr/bin/time").exists() else "os.wait4 (upper bound)"
    )
    work_root = Path(tempfile.mkdtemp(prefix="vs-run-"))
    try:
        for size in sizes:
            work = work_root / f"gen-{size}"
            vault = work / "vault"
            t = time.perf_counter()
            generate(vault, size, args.seed)
            log(f"generated {size} pages in {time.perf_counter() - t:.1f} s")
            result["vaults"][f"generated {size:,}"] = measure_vault(
                f"generated {size:,}", vault, work, size, reps, args.seed, measures
            )
            result["vaults"][f"generated {size:,}"]["generate_s"] = round(
                time.perf_counter() - t, 1
            )
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        if args.corpora:
            for name in CORPORA:
                src = CORPORA_ROOT / name
                if not src.is_dir():
                    log(f"skipped corpus {name}: {src} not found")
                    continue
                work = work_root / name
                shutil.copytree(src, work / "vault", ignore=shutil.ignore_patterns(".vault-sync"))
                result["vaults"][name] = measure_vault(
                    name, work / "vault", work, None, reps, args.seed, measures
                )
                if not args.keep:
                    shutil.rmtree(work, ignore_errors=True)
    finally:
        if args.keep:
            log(f"kept {work_root}")
        else:
            shutil.rmtree(work_root, ignore_errors=True)
    result["fits"] = growth_fits(result["vaults"])
    result["wall_s"] = round(time.perf_counter() - started, 1)
    print(table(result))
    tool = versions["grep_tool"]
    print(
        f"\nwall time {result['wall_s']} s; grep baseline: {tool}"
        f" {versions['rg'] if tool == 'rg' else versions['grep']};"
        f" peak RSS from {result['machine']['peak_rss_from']}"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    lost = {
        name: sum(f.get("misses", 0) for f in v["figures"].values())
        for name, v in result["vaults"].items()
    }
    lost = {name: n for name, n in lost.items() if n}
    if lost:  # an edit never became searchable: an error, not a timing
        log(f"edits never visible under watch within {watch_latency.TIMEOUT_S:.0f} s: {lost}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
