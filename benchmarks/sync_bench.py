"""Whole-process ``vault-sync sync`` timings (issue 5), beside the floor measured in the same run.

    python benchmarks/sync_bench.py --pages 10000 --repeat 3 --json sync.json

On a generated vault (:mod:`generate_vault`) in a temp folder, page cache warm (every page is
read once first):

- **cold sync**: ``vault-sync --vault V sync --json`` with no store folder (removed before each
  repetition), as a whole process;
- **floor**: ``python benchmarks/benchlib.py floor V DIR`` as a whole process — read every
  page, frontmatter with PyYAML's ``CSafeLoader``, one plain tantivy document each, one commit;
  no links, no sidecar (TECH-NOTES §6). Cold sync and floor alternate, so drift hits both;
- **no-change sync**: ``sync`` again with nothing changed;
- **one-page-change sync**: a word appended to one random page, then ``sync``;
- for context: ``python -c pass`` and ``vault-sync query WORD --json`` (whole processes).

Prints a Markdown table (median, p95, max in ms) and writes JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib
from generate_vault import generate


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed * 104729 + 3)
    work = Path(tempfile.mkdtemp(prefix="vs-sync-bench-"))
    vault = work / "vault"
    cmd = [*benchlib.vault_sync_cmd(), "--vault", str(vault)]
    floor_cmd = [sys.executable, str(Path(__file__).with_name("benchlib.py")), "floor"]
    times: dict[str, list[float]] = {
        k: [] for k in ("cold", "floor", "floor_inproc", "nochange", "onepage", "python", "query")
    }
    result: dict[str, Any] = {"machine": benchlib.machine(), "settings": vars(args).copy()}
    result["settings"]["json"] = str(args.json) if args.json else None
    try:
        generate(vault, args.pages, args.seed)
        pages = sorted(p for p in vault.rglob("*.md"))
        for page in pages:  # warm the page cache for both contenders
            page.read_bytes()
        for i in range(args.repeat):
            ms, out = benchlib.timed_run([*floor_cmd, str(vault), str(work / "floor-index")])
            times["floor"].append(ms)
            times["floor_inproc"].append(json.loads(out.stdout)["total_s"] * 1000)
            shutil.rmtree(vault / ".vault-sync", ignore_errors=True)
            ms, out = benchlib.timed_run([*cmd, "sync", "--json"])
            times["cold"].append(ms)
            added = json.loads(out.stdout)["added"]
            print(f"rep {i + 1}: cold sync {ms / 1000:.2f} s ({added} added)", file=sys.stderr)
        for _ in range(args.small_repeat):
            ms, _out = benchlib.timed_run([*cmd, "sync", "--json"])
            times["nochange"].append(ms)
        for i in range(args.small_repeat):
            benchlib.write_page_append(rng.choice(pages), f"zqsync{i:03d}x")
            time.sleep(0.01)
            ms, out = benchlib.timed_run([*cmd, "sync", "--json"])
            if json.loads(out.stdout)["changed"] != 1:
                raise RuntimeError(f"one-page sync changed {out.stdout}")
            times["onepage"].append(ms)
        for i in range(args.small_repeat):
            ms, _out = benchlib.timed_run([sys.executable, "-c", "pass"])
            times["python"].append(ms)
            ms, out = benchlib.timed_run([*cmd, "query", f"zqsync{i:03d}x", "--json"])
            if not json.loads(out.stdout)["hits"]:
                raise RuntimeError("query found nothing")
            times["query"].append(ms)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    result["raw_ms"] = {k: [round(v, 1) for v in vs] for k, vs in times.items()}
    result["results"] = {k: benchlib.summary(vs) for k, vs in times.items()}
    cold, floor = result["results"]["cold"]["median"], result["results"]["floor"]["median"]
    result["cold_over_floor"] = round(cold / floor, 2) if cold and floor else None
    return result


LABELS = {
    "cold": ("cold `sync` (whole process)", "floor", "≤ 4× floor"),
    "floor": ("floor: read + CSafeLoader + plain tantivy add, commit (whole process)", None, ""),
    "floor_inproc": ("floor, in-process part only", None, ""),
    "nochange": ("no-change `sync` (whole process)", None, "≤ 500 ms"),
    "onepage": ("one-page-change `sync` (whole process)", None, "≤ 300 ms"),
    "query": ("`vault-sync query WORD --json` (whole process)", "python", "≤ 100 ms"),
    "python": ("`python -c pass`", None, ""),
}


def table(result: dict[str, Any]) -> str:
    rows = []
    res = result["results"]
    for key, (label, base, target) in LABELS.items():
        s = res[key]
        ratio = ""
        if base and s["median"] and res[base]["median"]:
            ratio = f"{s['median'] / res[base]['median']:.1f}× {base}"
        rows.append(
            [
                label,
                *benchlib.stat_cells(s),
                ratio,
                target,
            ]
        )
    header = ["measurement", "n", "median ms", "p95 ms", "max ms", "ratio", "target"]
    return benchlib.markdown_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="whole-process sync timings beside the floor")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="cold sync / floor repetitions")
    parser.add_argument("--small-repeat", type=int, default=10, help="other repetitions")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = parser.parse_args(argv)
    result = run(args)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
