"""Robustness faults of fresh-user report 4, each as a kind: file times beyond what SQLite
holds, and the other inputs below. The CLI as a subprocess, exact outcomes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result, query_paths

Cli = Callable[..., Result]

#: 2286-11-20, past the int64 range of ns (2262-04-11); 1900-01-01, before the epoch.
FAR_FUTURE_NS = 10**19
FAR_PAST_NS = -2208988800 * 10**9


def test_a_file_time_past_2262_or_before_1970_is_synced_and_its_changes_seen(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    root = make_vault({"a.md": "# a\nfutureword\n", "b.md": "# b\npastword\n"})
    os.utime(root / "a.md", ns=(FAR_FUTURE_NS, FAR_FUTURE_NS))
    os.utime(root / "b.md", ns=(FAR_PAST_NS, FAR_PAST_NS))
    assert query_paths(cli, root, "futureword") == ["a.md"]  # a fresh vault syncs first
    assert query_paths(cli, root, "pastword") == ["b.md"]
    # same size, the same (clamped) time: the page is hashed, not skipped
    (root / "a.md").write_text("# a\nnextsword\n")
    os.utime(root / "a.md", ns=(FAR_FUTURE_NS + 10**9, FAR_FUTURE_NS + 10**9))
    synced = cli("--vault", str(root), "sync")
    assert (synced.code, synced.err) == (0, "")
    assert synced.out.startswith("sync: 0 added, 1 changed, 0 moved, 0 deleted, 1 unchanged")
    assert query_paths(cli, root, "nextsword") == ["a.md"]
    again = cli("--vault", str(root), "sync")
    assert again.out == "sync: nothing to do (2 pages unchanged, generation 2)\n"
