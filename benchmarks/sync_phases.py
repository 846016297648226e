"""Where a cold ``sync`` spends its time, by the writer's steps (issue 5's profile of a miss).

    python benchmarks/sync_phases.py VAULT

Removes ``VAULT/.vault-sync`` (never point it at a vault whose stores you want to keep; copy a
corpus first), runs one cold sync in this process with wall-clock timers around the writer's
steps, and prints their totals in seconds: waiting for worker processes (``wait_workers``),
inserting rows (``_insert_pages``), adding index documents (``add_fields``), link resolution
(``_resolve_links``, with the time it ends), building the sidecar's indexes
(``end_bulk_load``). Unlike cProfile, timers do not slow the forked workers, which would inherit
a profiler.
"""

from __future__ import annotations

import concurrent.futures._base as futures_base
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vault_sync import index, store

START = time.perf_counter()
TOTALS: dict[str, float] = {}
PRINTED = ("_resolve_links", "end_bulk_load")


def timed(owner: Any, name: str, key: str | None = None) -> None:
    """Wrap ``owner.name`` so its wall time (s) adds up in :data:`TOTALS` under ``key``."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            took = time.perf_counter() - began
            TOTALS[key or name] = TOTALS.get(key or name, 0.0) + took
            if name in PRINTED:
                print(f"{name}: {took:.2f} s, ended at {time.perf_counter() - START:.1f} s")

    setattr(owner, name, wrapper)


def main() -> None:
    from vault_sync.config import load_config
    from vault_sync.engine import run_sync

    vault = Path(sys.argv[1]).resolve()
    shutil.rmtree(vault / ".vault-sync", ignore_errors=True)
    timed(futures_base.Future, "result", "wait_workers")
    for name in ("_insert_pages", "_resolve_links", "end_bulk_load"):
        timed(store.Sidecar, name)
    timed(index.Writer, "add_fields")
    global START
    START = time.perf_counter()
    run_sync(load_config(vault))
    print({k: round(v, 2) for k, v in TOTALS.items()}, f"total {time.perf_counter() - START:.1f} s")


if __name__ == "__main__":  # worker processes may import this module again
    main()
