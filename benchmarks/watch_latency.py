"""Save -> searchable latency under ``vault-sync watch`` (issue 3), beside raw tantivy.

    python benchmarks/watch_latency.py --pages 10000 --edits 50 --json watch.json

What it does, in one run:

1. generates a vault (:mod:`generate_vault`, ``--seed``) in a temp folder and cold-syncs it
   with ``vault-sync sync`` (whole process, timed);
2. baselines on the same 10k pages, measured before the watcher starts:
   - **raw tantivy**: a plain tantivy index of the same texts (the sync floor's index: path,
     title, tags, body; built by :func:`benchlib.floor`), one long-lived writer; per repetition
     delete + add one document, ``commit()``, ``reload()``, check the new word is found;
   - **PageIndex batch**: a copy of the product's own index folder opened with
     ``PageIndex.open``; per repetition ``with index.batch(): delete + add`` (writer open, commit,
     wait for merges, reload), the product's index step without the sidecar;
3. starts a real ``vault-sync watch --json-log`` subprocess at the vault's default settings
   (debounce 150 ms, max delay 1000 ms), then
   - (a) ``--edits`` edits of random pages (a unique word appended; at least ``--spacing``
     seconds apart), each polled for by a long-lived reader in this process
     (``PageIndex.reload()`` + ``search(word)`` every ``--poll-ms``): time from the write
     returning to the first search that finds it;
   - (b) as many edits again, each polled for by fresh ``vault-sync query WORD --json``
     processes run one after another: time from the write returning to the end of the first
     process that finds it (its whole run time counted);
   - the watcher's own apply time per batch (``ms`` of its ``--json-log`` lines);
4. prints a Markdown table (median, p95, max in ms) and writes JSON with ``--json``.

The watcher is stopped (SIGTERM, then SIGKILL) in a ``finally``; the temp folder is removed
unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib
from generate_vault import generate

#: Longest wait for one edit to become visible before it counts as a miss.
TIMEOUT_S = 15.0


def _pages(vault: Path) -> list[Path]:
    return sorted(p for p in vault.rglob("*.md") if ".vault-sync" not in p.parts)


def raw_tantivy_baseline(
    vault: Path, work: Path, pages: list[Path], reps: int, rng: random.Random
) -> tuple[list[float], dict[str, Any]]:
    """Baseline: delete + add + commit + reload one document of a plain tantivy index.

    Builds the floor's index of ``vault`` in ``work/plain-index`` (:func:`benchlib.floor`),
    then times ``reps`` single-page updates through one long-lived writer. Returns (the times
    in ms, the floor's timings in seconds).
    """
    floor = benchlib.floor(vault, work / "plain-index")
    import tantivy

    schema = benchlib.floor_schema()
    index = tantivy.Index(schema, path=str(work / "plain-index"))
    writer = index.writer(heap_size=benchlib.FLOOR_HEAP_BYTES, num_threads=1)
    out: list[float] = []
    for i in range(reps):
        path = rng.choice(pages)
        rel = path.relative_to(vault).as_posix()
        word = f"zqraw{i:03d}x"
        text = path.read_text(encoding="utf-8") + f"\n{word}\n"
        doc = benchlib.floor_document(schema, rel, text)
        started = time.perf_counter()
        writer.delete_documents_by_term("path", rel)
        writer.add_document(doc)
        writer.commit()
        index.reload()
        out.append((time.perf_counter() - started) * 1000)
        query = index.parse_query(word, ["body"])
        if len(index.searcher().search(query, 1).hits) != 1:
            raise RuntimeError(f"raw tantivy: {word} not found after commit + reload")
        time.sleep(0.02)
    writer.wait_merging_threads()
    return out, floor


def page_index_baseline(
    vault: Path, work: Path, pages: list[Path], reps: int, rng: random.Random
) -> list[float]:
    """Baseline: ``PageIndex.batch()`` delete + add of one parsed page, on a copy of the real
    index (``reps`` times); returns the times in ms."""
    from vault_sync import layout
    from vault_sync.config import load_config
    from vault_sync.index import PageIndex
    from vault_sync.parser import parse_page
    from vault_sync.retrieve import search

    config = load_config(vault)
    folder = layout.active_set(config.store_path)
    if folder is None:
        raise RuntimeError("no active store set after the cold sync")
    copy = work / "index-copy"
    shutil.copytree(layout.index_dir(folder), copy)
    index = PageIndex.open(copy)
    out: list[float] = []
    for i in range(reps):
        path = rng.choice(pages)
        rel = path.relative_to(vault).as_posix()
        word = f"zqpix{i:03d}x"
        page = parse_page(path.read_text(encoding="utf-8") + f"\n{word}\n", rel)
        started = time.perf_counter()
        with index.batch() as writer:
            writer.delete(rel)
            writer.add(page, f"bench{i}", 10_000 + i)
        out.append((time.perf_counter() - started) * 1000)
        if not search(index, word, limit=1):
            raise RuntimeError(f"PageIndex: {word} not found after the batch")
        time.sleep(0.02)
    return out


def edit_latencies(
    pages: list[Path],
    edits: int,
    spacing: float,
    rng: random.Random,
    prefix: str,
    found_at: Callable[[str], float | None],
    poll_s: float = 0.0,
) -> tuple[list[float], list[tuple[float, float]], int]:
    """Append a unique word (``prefix`` + number) to a random page ``edits`` times, at least
    ``spacing`` s apart; after each write call ``found_at(word)`` (sleeping ``poll_s`` s in
    between) until it returns the ``perf_counter`` time the word was found, or
    :data:`TIMEOUT_S` passes. Returns (write -> found times in ms, the (write, found)
    ``perf_counter`` windows in s, the number of edits never found)."""
    out: list[float] = []
    windows: list[tuple[float, float]] = []
    misses = 0
    for i in range(edits):
        word = f"{prefix}{i:03d}x"
        benchlib.write_page_append(rng.choice(pages), word)
        t0 = time.perf_counter()
        found = None
        while time.perf_counter() - t0 < TIMEOUT_S:
            found = found_at(word)
            if found is not None:
                break
            time.sleep(poll_s)
        if found is None:
            misses += 1
            found = time.perf_counter()
        else:
            out.append((found - t0) * 1000)
        windows.append((t0, found))
        time.sleep(max(spacing - (time.perf_counter() - t0), 0.1))
    return out, windows, misses


def reader_latencies(
    vault: Path, pages: list[Path], edits: int, spacing: float, poll_s: float, rng: random.Random
) -> tuple[list[float], list[tuple[float, float]], int]:
    """(a): after each of ``edits`` edits (a unique word appended to a random page, at least
    ``spacing`` s apart), a long-lived reader in this process polls ``reload()`` + ``search``
    every ``poll_s`` s. Returns (save -> found times in ms, the (write, found)
    ``perf_counter`` windows in s, the number of edits not found within :data:`TIMEOUT_S`)."""
    from vault_sync.config import load_config
    from vault_sync.readers import open_reader

    reader = open_reader(load_config(vault))

    def found_at(word: str) -> float | None:
        reader.index.reload()
        return time.perf_counter() if reader.search(word, limit=1) else None

    try:
        return edit_latencies(pages, edits, spacing, rng, "zqlata", found_at, poll_s)
    finally:
        reader.close()


def query_process_latencies(
    vault: Path, pages: list[Path], edits: int, spacing: float, rng: random.Random
) -> tuple[list[float], list[float], list[tuple[float, float]], int]:
    """(b): after each of ``edits`` edits, fresh ``vault-sync query WORD --json`` processes run
    one after another until one finds the word. Returns (save -> end of the finding process in
    ms, every process's run time in ms, the (write, found) windows in s, the misses)."""
    cmd = [*benchlib.vault_sync_cmd(), "--vault", str(vault), "query"]
    runs: list[float] = []

    def found_at(word: str) -> float | None:
        started = time.perf_counter()
        ms, result = benchlib.timed_run([*cmd, word, "--json", "--limit", "1"])
        runs.append(ms)
        return started + ms / 1000 if json.loads(result.stdout)["hits"] else None

    out, windows, misses = edit_latencies(pages, edits, spacing, rng, "zqlatb", found_at)
    return out, runs, windows, misses


def mcp_latencies(
    cmd: list[str],
    pages: list[Path],
    edits: int,
    spacing: float,
    poll_s: float,
    rng: random.Random,
) -> tuple[list[float], list[float], list[tuple[float, float]], int]:
    """(c): a running ``vault-sync mcp --read-only`` server (``cmd``: the command with its
    ``--vault``), talked to through the MCP SDK's stdio client as an agent does; after each
    of ``edits`` edits its ``query`` tool is called every ``poll_s`` s until a hit comes
    back. Returns (save -> the answer that finds it, in ms; every ``query`` round trip in
    ms; the (write, found) windows in s; the misses)."""
    import asyncio

    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", "--read-only"])
    trips: list[float] = []

    async def measure() -> tuple[list[float], list[tuple[float, float]], int]:
        loop = asyncio.get_running_loop()
        async with Client(params, read_timeout_seconds=120) as client:
            await client.call_tool("query", {"text": "warm"})  # the first opens the stores

            def found_at(word: str) -> float | None:  # in a worker thread: the edit loop
                started = time.perf_counter()
                call = client.call_tool("query", {"text": word, "limit": 1})
                result = asyncio.run_coroutine_threadsafe(call, loop).result(TIMEOUT_S)
                now = time.perf_counter()
                trips.append((now - started) * 1000)
                if result.is_error or result.structured_content is None:
                    raise RuntimeError(f"MCP query failed: {result.content}")
                return now if result.structured_content["hits"] else None

            return await asyncio.to_thread(
                edit_latencies, pages, edits, spacing, rng, "zqlatc", found_at, poll_s
            )

    out, windows, misses = asyncio.run(measure())
    return out, trips, windows, misses


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed * 7919 + 1)
    work = Path(tempfile.mkdtemp(prefix="vs-watch-bench-"))
    vault = work / "vault"
    result: dict[str, Any] = {"machine": benchlib.machine(), "settings": vars(args).copy()}
    result["settings"]["json"] = str(args.json) if args.json else None
    watcher: subprocess.Popen[str] | None = None
    try:
        t = time.perf_counter()
        generate(vault, args.pages, args.seed)
        result["generate_s"] = round(time.perf_counter() - t, 2)
        pages = _pages(vault)
        cmd = benchlib.vault_sync_cmd()
        ms, _ = benchlib.timed_run([*cmd, "--vault", str(vault), "sync", "--json"])
        result["cold_sync_ms"] = round(ms, 1)
        print(f"generated {len(pages)} pages; cold sync {ms / 1000:.1f} s", file=sys.stderr)

        raw, floor = raw_tantivy_baseline(vault, work, pages, args.edits, rng)
        result["floor"] = floor
        pix = page_index_baseline(vault, work, pages, args.edits, rng)
        print("baselines done; starting the watcher", file=sys.stderr)

        watcher, log = benchlib.start_watcher([*cmd, "--vault", str(vault), "watch", "--json-log"])
        benchlib.wait_for_watcher(vault, watcher, log, timeout=60.0)
        time.sleep(1.0)

        reader, windows_a, misses_a = reader_latencies(
            vault, pages, args.edits, args.spacing, args.poll_ms / 1000, rng
        )
        print("(a) in-process reader done", file=sys.stderr)
        proc, runs, windows_b, misses_b = query_process_latencies(
            vault, pages, args.edits, args.spacing, rng
        )
        print("(b) query processes done", file=sys.stderr)
        time.sleep(1.0)
        batches = log.batch_ms(windows_a[0][0], windows_b[-1][1]) if windows_a else []
        result["watcher_log_other"] = log.other[-20:]
    finally:
        if watcher is not None:
            benchlib.stop_process(watcher)
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    result["results"] = {
        "reader_reload_search": {**benchlib.summary(reader), "misses": misses_a},
        "query_process": {**benchlib.summary(proc), "misses": misses_b},
        "query_process_run": benchlib.summary(runs),
        "watcher_batch_apply": benchlib.summary(batches),
        "raw_tantivy_update": benchlib.summary(raw),
        "pageindex_batch_update": benchlib.summary(pix),
    }
    raw_lists = {
        "reader_reload_search": reader,
        "query_process": proc,
        "query_process_run": runs,
        "watcher_batch_apply": batches,
        "raw_tantivy_update": raw,
        "pageindex_batch_update": pix,
    }
    result["raw_ms"] = {k: [round(v, 1) for v in vs] for k, vs in raw_lists.items()}
    result["goal"] = {"median_ms": 250, "p95_ms": 500}
    return result


LABELS = {
    "reader_reload_search": "save → visible, long-lived reader (reload + search every 5 ms)",
    "query_process": "save → visible, fresh `vault-sync query --json` processes",
    "query_process_run": "one `vault-sync query --json` process (all runs in (b))",
    "watcher_batch_apply": "watcher batch apply (`ms` of --json-log lines)",
    "raw_tantivy_update": "baseline: raw tantivy delete + add + commit + reload (plain index)",
    "pageindex_batch_update": "baseline: `PageIndex.batch()` delete + add (copy of real index)",
}


def table(result: dict[str, Any]) -> str:
    rows = []
    for key, label in LABELS.items():
        s = result["results"][key]
        rows.append([label, *benchlib.stat_cells(s)])
    return benchlib.markdown_table(["measurement", "n", "median ms", "p95 ms", "max ms"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="save -> searchable latency under watch")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--edits", type=int, default=50, help="edits per method (a), (b)")
    parser.add_argument("--spacing", type=float, default=0.4, help="seconds between edits")
    parser.add_argument("--poll-ms", type=float, default=5.0)
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder")
    args = parser.parse_args(argv)
    result = run(args)
    print(table(result))
    r = result["results"]
    misses = r["reader_reload_search"]["misses"] + r["query_process"]["misses"]
    print(
        f"\ncold sync {result['cold_sync_ms'] / 1000:.1f} s; floor {result['floor']['total_s']} s"
        f" (in process); misses {misses}; goal: median ≤ 250 ms, p95 ≤ 500 ms"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
