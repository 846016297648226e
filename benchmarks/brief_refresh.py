"""The watcher's ``[[brief.targets]]`` refresh in process (issue 12), where cProfile can see it.

    .venv/bin/python benchmarks/brief_refresh.py VAULT [--edits 15] [--profile] [--day-moves 0]

On a synced vault (it adds a whole-file target ``AGENTS.md`` when the config has none): one
refresh with kept facts (:class:`vault_sync.brief_cache.FactsCache`, as ``watch`` keeps
them), then ``--edits`` times a word appended to a random page, that page synced as a
watcher batch is (``full_check=False``, its path only), and the refresh timed (wall and this
thread's CPU, ``time.thread_time``). ``--day-moves N`` then adds N pages each dated a year
after the vault's newest day (each batch moves the reference day: the slower path) and times
those refreshes, beside a full ``write_briefs`` (no kept facts) after each as the baseline.
``--profile`` prints cProfile's top entries over the timed refreshes. It edits the vault:
run it on a copy. The runner's figure (``./run bench --only brief_watch``) is the same
refresh inside a real ``vault-sync watch`` process.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from vault_sync import engine
from vault_sync.app import Engine
from vault_sync.brief_cache import FactsCache


def timed(call: Callable[[], object], profile: cProfile.Profile | None) -> tuple[float, float]:
    """``(wall ms, CPU ms)`` of one call (``profile``: enabled around it)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    if profile is not None:
        profile.enable()
    call()
    if profile is not None:
        profile.disable()
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def line(label: str, times: list[tuple[float, float]]) -> str:
    """One result line: medians of wall and CPU time."""
    wall = statistics.median(t[0] for t in times)
    cpu = statistics.median(t[1] for t in times)
    return f"{label}: n={len(times)}, wall median {wall:.1f} ms, CPU median {cpu:.1f} ms"


def main() -> None:
    """Run the measurement (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--edits", type=int, default=15)
    parser.add_argument("--day-moves", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    vault: Path = args.vault.resolve()
    app = Engine.open(vault)
    if not app.config.brief_targets:
        config = vault / "vault-sync.toml"
        text = config.read_text(encoding="utf-8") if config.exists() else ""
        target = '\n[[brief.targets]]\npath = "AGENTS.md"\nmode = "file"\n'
        config.write_text(text + target, encoding="utf-8")
        app = Engine.open(vault)
    found = vault.rglob("*.md")
    pages = sorted(p for p in found if ".vault-sync" not in p.parts and p.name != "AGENTS.md")
    rng = random.Random(args.seed)
    cache = FactsCache()
    app.write_briefs(facts=cache)  # the first: a full read
    profile = cProfile.Profile() if args.profile else None

    def sync(page: Path) -> None:
        engine.run_sync(app.config, full_check=False, scope=[page.relative_to(vault).as_posix()])

    kept = []
    for n in range(args.edits):
        page = rng.choice(pages)
        with open(page, "a", encoding="utf-8") as f:
            f.write(f"\nbriefrefresh{n}q{rng.randrange(10**9)}\n")
        sync(page)
        kept.append(timed(lambda: app.write_briefs(facts=cache), profile))
    print(line("refresh after a one-page batch", kept))
    if args.day_moves:
        day, _ = app.read(lambda reader: cache.gather(reader.sidecar).day)
        year = int((day or "2000")[:4])
        moved, full = [], []
        for n in range(args.day_moves):
            page = vault / f"Brief refresh day move {year + n + 1}.md"
            page.write_text(f"---\nkind: note\ndate: {year + n + 1}-01-01\n---\nNewest.\n")
            sync(page)
            moved.append(timed(lambda: app.write_briefs(facts=cache), profile))
            full.append(timed(app.write_briefs, None))
        print(line("refresh after a batch that moves the reference day", moved))
        print(line("baseline: the full refresh (no kept facts) after each of those", full))
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
