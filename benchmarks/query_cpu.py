"""CPU time of the ranked query in process, for before/after comparisons on a shared machine.

    .venv/bin/python benchmarks/query_cpu.py VAULT [--sample 110 | --queries FILE.jsonl] [--n 40]
    PYTHONPATH=OLD_CHECKOUT .venv/bin/python benchmarks/query_cpu.py OLD_SYNCED_VAULT ...

Opens the vault's stores once (``readers.open_reader``, the path ``vault-sync query`` takes, with
the vault's ``[ranking]`` settings) and prints median CPU milliseconds (``time.thread_time``) of
``Reader.search(q, limit=10)``: for the runner's four query kinds at 10k generated pages (seed
1), each repeated ``--n`` times after one unmeasured call (``repeated``, what ``run.py``
measures); with ``--queries`` (one JSON string per line) or ``--sample N`` (N queries drawn,
seeded, from the vault's own pages: :func:`sample_queries`), each query once after a warm-up pass
(``varied``), and once more with what the process keeps between queries emptied before each
(:func:`forget`: ``varied, new pages``, a query on pages not seen before; the repeated
queries are measured that way too). Run the old and the new code alternately, each on its own
sync of the same vault: wall time on a loaded machine mostly measures waiting for a core
(docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from vault_sync import page_facts, passages
from vault_sync.config import load_config
from vault_sync.readers import open_reader

#: The runner's queries at 10k generated pages, seed 1 (docs/performance.md).
QUERIES = {
    "one-word": "bristork",
    "multi-word": "dublaim covandslane",
    "phrase": '"mistwait vaska"',
    "CJK": "期年",
}


def sample_queries(vault: Path, count: int, seed: int = 7) -> list[str]:
    """``count`` distinct queries from the bodies of the vault's pages (seeded): a CJK run
    from half the pages that hold one, else one word, two words, a quoted pair, four words or
    ``what is X about Y`` from a random place."""
    rng = random.Random(seed)
    files = sorted(p for p in vault.rglob("*.md") if ".vault-sync" not in p.parts)
    rng.shuffle(files)
    out: dict[str, None] = {}
    for path in files[: 4 * count]:
        body = path.read_text(encoding="utf-8", errors="replace").split("---", 2)[-1]
        words = re.findall(r"[A-Za-z_]{3,}", body)
        cjk = re.findall(r"[\u4e00-\u9fff]{2,4}", body)
        if cjk and rng.random() < 0.5:
            out[rng.choice(cjk)] = None
        elif len(words) >= 4:
            i, pick = rng.randrange(len(words) - 3), rng.random()
            forms = [
                words[i],
                f"{words[i]} {words[i + 2]}",
                f'"{words[i]} {words[i + 1]}"',
                " ".join(words[i : i + 4]),
                f"what is {words[i]} about {words[i + 1]}",
            ]
            out[forms[sum(pick >= edge for edge in (0.3, 0.6, 0.75, 0.9))]] = None
    return list(out)[:count]  # fmt: skip


def cpu_ms(call: Callable[[], object]) -> float:
    """CPU milliseconds of this thread spent in ``call()``."""
    start = time.thread_time()
    call()
    return (time.thread_time() - start) * 1000


def forget() -> None:
    """Empty what a process keeps between queries: an older code's passage cache, and the
    sidecar reads the ranking keeps while no write happens (``page_facts.ranked_facts``),
    so the next query reads like one on pages never searched in this process."""
    for module, name in ((passages, "_CACHE"), (page_facts, "_KEPT")):
        cache = getattr(module, name, None)
        if cache is not None:
            cache.clear()


def varied(search: Callable[[str], object], queries: Sequence[str], *, fresh: bool) -> float:
    """Median CPU ms of each query once; ``fresh`` empties what the process kept first."""
    out = []
    for query in queries:
        if fresh:
            forget()
        out.append(cpu_ms(lambda q=query: search(q)))
    return statistics.median(out)


def main() -> None:
    """Parse the arguments, measure, print one line per figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--queries", type=Path, help="JSONL: one query string per line")
    parser.add_argument("--sample", type=int, help="draw this many queries from the vault")
    parser.add_argument("--n", type=int, default=40, help="repetitions of each repeated query")
    args = parser.parse_args()
    reader = open_reader(load_config(args.vault))

    def search(query: str) -> object:
        return reader.search(query, limit=10)

    for kind, query in QUERIES.items():
        search(query)
        runs = [cpu_ms(lambda q=query: search(q)) for _ in range(args.n)]
        cold = []
        for _ in range(args.n):
            forget()
            cold.append(cpu_ms(lambda q=query: search(q)))
        print(
            f"repeated {kind} {query!r}: {statistics.median(runs):.2f} ms"
            f" (kept reads emptied each time: {statistics.median(cold):.2f} ms)"
        )
    queries: list[str] = []
    if args.queries is not None:
        lines = args.queries.read_text(encoding="utf-8").splitlines()
        queries = [json.loads(line) for line in lines if line.strip()]
    elif args.sample:
        queries = sample_queries(args.vault, args.sample)
    if queries:
        for query in queries:
            search(query)
        print(f"varied ({len(queries)}): {varied(search, queries, fresh=False):.2f} ms")
        print(f"varied, new pages: {varied(search, queries, fresh=True):.2f} ms")


if __name__ == "__main__":
    main()
