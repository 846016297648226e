"""The watcher's seam: PathBatcher timing (fake clock) and EventHandler path filtering."""

from __future__ import annotations

from pathlib import Path

from watchdog.events import (
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileClosedNoWriteEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileOpenedEvent,
)

from vault_sync.watch_events import EventHandler, PathBatcher


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_batch_is_due_after_the_quiet_window() -> None:
    clock = Clock()
    b = PathBatcher(150, 1000, clock)
    assert not b.due()
    b.add(["a.md"])
    clock.now += 0.1
    assert not b.due()
    clock.now += 0.06
    assert b.due()
    assert b.take().paths == {"a.md"}
    assert not b.due() and b.depth == 0


def test_a_stream_of_events_is_cut_at_the_longest_wait() -> None:
    clock = Clock()
    b = PathBatcher(150, 1000, clock)
    for i in range(30):  # an event every 100 ms never leaves a 150 ms quiet window
        b.add([f"p{i}.md"])
        assert not b.due() or clock.now - 100.0 >= 1.0
        clock.now += 0.1
    assert b.due()
    assert len(b.take().paths) >= 10


def test_reconcile_request_alone_makes_a_batch() -> None:
    clock = Clock()
    b = PathBatcher(150, 1000, clock)
    b.add(reconcile=True)
    clock.now += 0.2
    assert b.due()
    batch = b.take()
    assert batch.reconcile and not batch.paths


def test_max_delay_is_never_below_the_debounce() -> None:
    clock = Clock()
    b = PathBatcher(500, 100, clock)
    b.add(["a.md"])
    clock.now += 0.2
    assert not b.due()


def feed(tmp_path: Path, *events: object) -> set[str]:
    b = PathBatcher(0, 0, Clock())
    handler = EventHandler(tmp_path, ".vault-sync", b)
    for event in events:
        handler.on_any_event(event)  # type: ignore[arg-type]
    return b.take().paths


def test_handler_keeps_sources_and_move_destinations(tmp_path: Path) -> None:
    v = str(tmp_path)
    paths = feed(
        tmp_path,
        FileCreatedEvent(f"{v}/.n.md.tmp1"),
        FileClosedEvent(f"{v}/.n.md.tmp1"),
        FileMovedEvent(f"{v}/.n.md.tmp1", f"{v}/n.md"),
        DirMovedEvent(f"{v}/proj", f"{v}/project"),
        FileDeletedEvent(f"{v}/gone.md"),
    )
    assert paths == {".n.md.tmp1", "n.md", "proj", "project", "gone.md"}


def test_handler_drops_reads_folder_modified_and_own_store(tmp_path: Path) -> None:
    v = str(tmp_path)
    paths = feed(
        tmp_path,
        FileOpenedEvent(f"{v}/a.md"),
        FileClosedNoWriteEvent(f"{v}/a.md"),
        DirModifiedEvent(f"{v}/sub"),
        FileCreatedEvent(f"{v}/.vault-sync/set-000001/sidecar.sqlite-wal"),
        FileCreatedEvent(f"{v}/.vault-sync"),
        FileCreatedEvent("/elsewhere/x.md"),
    )
    assert paths == set()
