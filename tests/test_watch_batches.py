"""The watcher's batches, exactly (issue 14's mutation testing of watch.py): the batcher's
boundaries on a fake clock (binary-exact times, so ">=" is tested, not float noise), the events
a batch keeps, and :meth:`Watcher.apply` run in this process with the engine's real
``run_sync`` (tantivy + SQLite) — the line it logs and the state ``status`` shows."""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from watchdog.events import DirCreatedEvent, DirDeletedEvent, FileCreatedEvent

from vault_sync import layout
from vault_sync.config import load_config
from vault_sync.engine import run_sync
from vault_sync.watch import Watcher
from vault_sync.watch_events import OVERFLOW_LOGGER, Batch, EventHandler, PathBatcher

from .conftest import fail_reading, write_pages
from .test_batcher import Clock

MakeVault = Callable[..., Path]


# -- PathBatcher ----------------------------------------------------------------------------


def test_a_batch_is_due_exactly_when_the_quiet_window_has_passed() -> None:
    clock = Clock()
    b = PathBatcher(125, 1000, clock)  # 0.125 s: exact in binary
    b.add(["a.md"])
    clock.now = 100.0625
    assert not b.due()
    clock.now = 100.125
    assert b.due()
    slow = PathBatcher(150, 1000, clock)
    slow.add(["a.md"])
    clock.now += 0.1499  # 1/10 ms short of the window
    assert not slow.due()


def test_a_batch_is_due_exactly_at_the_longest_wait_however_busy() -> None:
    clock = Clock()
    b = PathBatcher(125, 1000, clock)
    for i in range(16):  # a path every 1/16 s from 100.0 to 100.9375: never quiet for 1/8 s
        clock.now = 100.0 + i / 16
        b.add([f"p{i}.md"])
        assert not b.due(), i
    clock.now = 101.0  # 1/16 s after the last path, 1 s after the first
    assert b.due()
    assert b.take() == Batch({f"p{i}.md" for i in range(16)}, False)


def test_paths_make_no_reconcile_and_a_reconcile_request_outlives_later_paths() -> None:
    clock = Clock()
    b = PathBatcher(150, 1000, clock)
    b.add(["a.md"])
    assert b.take() == Batch({"a.md"}, False)
    b.add(reconcile=True)
    b.add(["b.md"])
    b.add(["c.md"], reconcile=False)
    assert b.depth == 2
    assert b.take() == Batch({"b.md", "c.md"}, True)
    assert b.take() == Batch(set(), False)


def test_events_on_the_vault_folder_itself_name_no_path(tmp_path: Path) -> None:
    b = PathBatcher(150, 1000, Clock())
    handler = EventHandler(tmp_path, ".vault-sync", b)
    handler.on_any_event(DirDeletedEvent(str(tmp_path)))
    handler.on_any_event(DirCreatedEvent(f"{tmp_path}/"))
    assert b.take() == Batch(set(), False)
    handler.on_any_event(FileCreatedEvent(f"{tmp_path}/x.md"))
    assert b.take() == Batch({"x.md"}, False)


def test_only_an_overflow_warning_asks_for_a_reconcile() -> None:
    from vault_sync.watch_events import _OverflowHandler

    b = PathBatcher(150, 1000, Clock())
    handler = _OverflowHandler(b)
    logger = logging.getLogger(OVERFLOW_LOGGER)
    record = logger.makeRecord(OVERFLOW_LOGGER, logging.WARNING, __file__, 1, "%s", ("x",), None)
    handler.handle(record)
    assert b.take() == Batch(set(), False)
    overflow = "Inotify queue overflowed; filesystem events were lost"
    handler.handle(
        logger.makeRecord(OVERFLOW_LOGGER, logging.WARNING, __file__, 1, overflow, (), None)
    )
    assert b.take() == Batch(set(), True)


# -- Watcher.apply ----------------------------------------------------------------------------


def _line(line: dict[str, Any] | None) -> dict[str, Any]:
    assert line is not None
    line = dict(line)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", line.pop("at")), line
    ms = line.pop("ms")
    assert isinstance(ms, float) and 0 < ms < 60_000, ms  # this batch's time, in ms
    return line


def test_apply_logs_what_each_batch_did_and_keeps_the_state_status_shows(
    make_vault: MakeVault,
) -> None:
    vault = make_vault({"a.md": "alpha\n", "b.md": "beta\n"})
    watcher = Watcher(load_config(vault), run_sync)
    first = _line(watcher.apply(Batch(reconcile=True)))
    assert first == {
        "added": 2,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "generation": 1,
        "paths": 0,
        "reconcile": True,
    }
    write_pages(vault, {"a.md": "alpha again\n", "c.md": "gamma\n", "d.md": "delta\n"})
    (vault / "b.md").unlink()
    # Only the batch's paths are looked at: d.md waits for its own event (or a reconcile).
    line = watcher.apply(Batch({"a.md", "b.md", "c.md"}))
    assert _line(line) == {
        "added": 1,
        "changed": 1,
        "moved": 0,
        "deleted": 1,
        "generation": 2,
        "paths": 3,
        "reconcile": False,
    }
    assert (watcher.state.batches, watcher.state.last_batch) == (2, line)
    assert watcher.apply(Batch({"a.md", "c.md"})) is None  # nothing changed: nothing logged
    assert (watcher.state.batches, watcher.state.last_batch) == (2, line)
    assert _line(watcher.apply(Batch(reconcile=True))) == {
        "added": 1,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "generation": 3,
        "paths": 0,
        "reconcile": True,
    }
    assert (watcher.state.errors, watcher.state.last_error) == (0, None)
    watcher.writer.release()


def test_apply_counts_a_page_it_cannot_read_as_an_error_and_logs_a_repair(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = make_vault({"a.md": "alpha\n"})
    config = load_config(vault)
    watcher = Watcher(config, run_sync)
    watcher.apply(Batch(reconcile=True))
    (vault / "mem.md").write_text("x\n", encoding="utf-8")
    fail_reading(monkeypatch, "mem.md")  # stat works, reading fails (EIO)
    line = _line(watcher.apply(Batch({"mem.md"})))
    assert list(line.pop("errors")) == ["mem.md"]
    assert line == {  # the unreadable page is recorded (lint, status): a generation
        "added": 0,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "generation": 2,
        "paths": 1,
        "reconcile": False,
    }
    assert watcher.state.errors == 1
    assert watcher.state.last_error is not None
    assert watcher.state.last_error.startswith("mem.md: ")
    watcher.apply(Batch({"mem.md"}))  # still unreadable: counted again
    assert watcher.state.errors == 2
    (vault / "mem.md").unlink()
    watcher.writer.release()
    active = layout.active_set(config.store_path)
    assert active is not None
    layout.sidecar_file(active).unlink()  # a store file gone under the watcher: rebuilt, said
    repaired = _line(watcher.apply(Batch({"a.md"})))
    assert repaired.pop("notice").startswith("stores rebuilt from the vault: "), repaired
    assert repaired == {
        "added": 1,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "generation": 1,
        "paths": 1,
        "reconcile": False,
    }
    assert watcher.state.batches == 4
    watcher.writer.release()


def test_a_reconcile_batch_checks_the_stores_in_full(make_vault: MakeVault) -> None:
    """A page's rows deleted from the sidecar: the cheap per-batch check cannot see it, the
    full check of a reconcile (overflow, period, start) finds the counts apart and rebuilds."""
    vault = make_vault({"a.md": "alpha\n", "b.md": "beta\n"})
    config = load_config(vault)
    watcher = Watcher(config, run_sync)
    watcher.apply(Batch(reconcile=True))
    active = layout.active_set(config.store_path)
    assert active is not None
    db = sqlite3.connect(layout.sidecar_file(active))
    db.execute("DELETE FROM pages WHERE path = 'b.md'")
    db.commit()
    db.close()
    assert watcher.apply(Batch({"a.md"})) is None  # a cheap batch: nothing to do
    line = _line(watcher.apply(Batch(reconcile=True)))
    assert line.pop("notice") == "stores rebuilt from the vault: index holds 2 pages, sidecar 1"
    assert line == {
        "added": 2,
        "changed": 0,
        "moved": 0,
        "deleted": 0,
        "generation": 2,  # the new set starts after the damaged one's generation
        "paths": 0,
        "reconcile": True,
    }
    watcher.writer.release()
