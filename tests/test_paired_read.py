"""A search reads the index and the sidecar as one generation (fresh3 item 5).

A batch commits the index, then the sidecar. A search that met the index of the new
generation with the sidecar of the old one (or the other way round) dropped every page whose
path the batch changed: a moved page was missing from both. Here a reader is run at each
step of a real apply (real tantivy, real SQLite), held there by the batch writer's own seam
(:func:`vault_sync.batch_write.fault_point`), for every operation that changes a page's path,
through a CLI-like sync and through the watcher.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.test_watch import StartWatch, ThreadWatcher, watch  # noqa: F401 (watch: a fixture)
from tests.watch_helpers import WatchProcess, wait_until
from vault_sync import batch_write, layout, paired_read
from vault_sync.app import Engine
from vault_sync.config import load_config
from vault_sync.index import PageIndex
from vault_sync.readers import open_reader

MakeVault = Callable[..., Path]

#: Longest a step of these tests waits for another thread (a hang, never a pace), seconds.
HANG_S = 60.0

#: name -> (pages before, the change on disk, the query, its paths before, its paths after)
OPERATIONS: dict[str, tuple[dict[str, str], Callable[[Path], None], str, list[str], list[str]]] = {
    "move": (
        {"stable.md": "stableword\n", "other.md": "other [[stable]]\n"},
        lambda v: os.rename(v / "stable.md", v / "stable2.md"),
        "stableword",
        ["stable.md"],
        ["stable2.md"],
    ),
    "case-only rename": (
        {"note.md": "caseword\n", "other.md": "see [[note]]\n"},
        lambda v: os.rename(v / "note.md", v / "Note.md"),
        "caseword",
        ["note.md"],
        ["Note.md"],
    ),
    "folder move": (
        {"a/x.md": "folderword x\n", "a/y.md": "folderword y\n", "keep.md": "keep\n"},
        lambda v: os.rename(v / "a", v / "b"),
        "folderword",
        ["a/x.md", "a/y.md"],
        ["b/x.md", "b/y.md"],
    ),
    "delete and create of one id": (
        {"old.md": "---\nid: shared\n---\nidword first\n", "keep.md": "keep\n"},
        lambda v: (
            (v / "old.md").unlink(),
            (v / "new.md").write_text("---\nid: shared\n---\nidword second\n", encoding="utf-8"),
        ),
        "idword",
        ["old.md"],
        ["new.md"],
    ),
    "edit": (  # the control: a path the batch keeps
        {"page.md": "editword one\n", "keep.md": "keep\n"},
        lambda v: (v / "page.md").write_text("editword two\n", encoding="utf-8"),
        "editword",
        ["page.md"],
        ["page.md"],
    ),
}


def found(vault: Path, text: str) -> list[str]:
    """Paths a fresh reader finds (as ``vault-sync query`` opens and searches)."""
    reader = open_reader(load_config(vault))
    try:
        return sorted(hit.path for hit in reader.search(text, limit=10))
    finally:
        reader.close()


class Seams:
    """Readers run at each named point of an apply, once armed.

    At ``after_journal`` and ``after_sidecar_commit`` the reader runs in the writer's thread
    (the stores agree there). At ``after_index_commit`` (index committed, sidecar not) it runs
    in a thread of its own while the writer is held, until the reader has answered or waits
    for the sidecar's commit (:func:`vault_sync.paired_read.wait_for_sidecar`); only then does
    the writer go on. Nothing here depends on timing.
    """

    def __init__(self, vault: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.vault, self.text = vault, text
        self.armed = False
        self.seen: dict[str, list[str]] = {}
        self.reader_stopped = threading.Event()  # answered, or waiting for the sidecar
        self.failed: list[BaseException] = []
        real_wait = paired_read.wait_for_sidecar

        def waiting(*args: object) -> bool:
            self.reader_stopped.set()
            return real_wait(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(paired_read, "wait_for_sidecar", waiting)
        monkeypatch.setattr(batch_write, "fault_point", self.point)

    def _read(self, point: str) -> None:
        try:
            self.seen[point] = found(self.vault, self.text)
        except BaseException as exc:  # reported by the test
            self.failed.append(exc)

    def _read_apart(self, point: str) -> None:
        try:
            self._read(point)
        finally:
            self.reader_stopped.set()

    def point(self, name: str) -> None:
        if not self.armed or name in self.seen or name == "during_batch":
            return
        if name != "after_index_commit":
            self._read(name)
            return
        self.reader = threading.Thread(target=self._read_apart, args=(name,), daemon=True)
        self.reader.start()
        assert self.reader_stopped.wait(HANG_S), "the reader neither answered nor waited"

    def finish(self) -> dict[str, list[str]]:
        self.reader.join(HANG_S)
        assert not self.reader.is_alive(), "the reader never answered"
        assert not self.failed, self.failed
        return self.seen


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_a_reader_at_each_step_of_a_sync_sees_one_generation(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch, operation: str
) -> None:
    pages, change, text, before, after = OPERATIONS[operation]
    vault = make_vault(pages)
    Engine(load_config(vault)).sync()
    assert found(vault, text) == before
    seams = Seams(vault, text, monkeypatch)
    change(vault)
    seams.armed = True
    Engine(load_config(vault)).sync()
    assert seams.finish() == {
        "after_journal": before,  # neither store written yet
        "after_index_commit": after,  # the reader waited for the sidecar's commit
        "after_sidecar_commit": after,
    }
    assert found(vault, text) == after


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_a_reader_at_each_step_of_a_watcher_batch_sees_one_generation(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch, operation: str
) -> None:
    pages, change, text, before, after = OPERATIONS[operation]
    vault = make_vault(pages)
    Engine(load_config(vault)).sync()
    seams = Seams(vault, text, monkeypatch)
    with ThreadWatcher(vault) as watcher:
        seams.armed = True
        change(vault)
        wait_until(lambda: "after_sidecar_commit" in seams.seen, what=str(watcher.lines))
    assert seams.finish() == {
        "after_journal": before,
        "after_index_commit": after,
        "after_sidecar_commit": after,
    }


def test_a_reader_whose_index_was_opened_before_the_batch_reloads_it(
    make_vault: MakeVault, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other way round: the index opened before a move's commit, the sidecar read after
    it (a query that opened its stores as the batch ran). The index is frozen at the old
    generation by opening a copy of its folder; its reload opens the live one."""
    vault = make_vault({"stable.md": "stableword\n", "other.md": "other\n"})
    config = load_config(vault)
    Engine(config).sync()
    live = layout.index_dir(layout.active_set(config.store_path))  # type: ignore[arg-type]
    frozen = tmp_path / "frozen-index"
    shutil.copytree(live, frozen)
    os.rename(vault / "stable.md", vault / "stable2.md")
    Engine(config).sync()
    reader = open_reader(config)
    reader.index = PageIndex.open(frozen, create=False)
    reloads: list[Path] = []

    def reload() -> None:  # the commits the live folder has since
        reloads.append(frozen)
        reader.index._index = PageIndex.open(live, create=False)._index

    monkeypatch.setattr(reader.index, "reload", reload)
    try:
        assert [hit.path for hit in reader.search("stableword")] == ["stable2.md"]
    finally:
        reader.close()
    assert reloads == [frozen]


# --------------------------------------------------------------------------- stress (slow)


class Queries:
    """``vault-sync query stableword --json`` run again and again (:meth:`run_until`), counting
    the answers without a hit; :meth:`wait_for_more` paces the renames to the queries."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self.total = self.misses = 0
        self._changed = threading.Condition()

    def run_until(self, done: threading.Event) -> None:
        while not done.is_set():
            proc = run_cli("--vault", str(self.vault), "query", "stableword", "--json")
            assert proc.code == 0, proc.err
            with self._changed:
                self.total += 1
                self.misses += '"path"' not in proc.out
                self._changed.notify_all()

    def wait_for_more(self) -> None:
        """Return once a query has started and ended after this call."""
        with self._changed:
            wanted = self.total + 2
            assert self._changed.wait_for(lambda: self.total >= wanted, HANG_S)


#: Renames each way of the stress runs.
ROUNDS = 10


def _rename_and(vault: Path, queries: Queries, apply: Callable[[], None]) -> None:
    """Rename ``stable.md`` <-> ``stable2.md`` :data:`ROUNDS` times each way, in a thread,
    each followed by ``apply`` and two more queries, while ``queries`` runs here."""
    done = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(ROUNDS):
                for a, b in (("stable.md", "stable2.md"), ("stable2.md", "stable.md")):
                    os.rename(vault / a, vault / b)
                    apply()
                    queries.wait_for_more()
        except BaseException as exc:  # reported below
            failed.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    queries.run_until(done)
    thread.join(HANG_S)
    assert not failed, failed
    assert queries.total >= 2 * 2 * ROUNDS


@pytest.mark.slow
def test_stress_queries_during_cli_syncs_of_moves_never_miss(make_vault: MakeVault) -> None:
    """fresh3's repro: 6-10 of ~90 queries found nothing before the fix (3 to 7 of ~45 here)."""
    vault = make_vault({"stable.md": "stableword\n", "other.md": "other\n"})

    def sync() -> None:
        result = run_cli("--vault", str(vault), "sync")
        assert result.code == 0, result.err

    sync()
    queries = Queries(vault)
    _rename_and(vault, queries, sync)
    assert queries.misses == 0, (queries.misses, queries.total)


@pytest.mark.slow
def test_stress_queries_during_watcher_batches_of_moves_never_miss(
    make_vault: MakeVault,
    watch: StartWatch,  # noqa: F811 (the fixture imported above)
) -> None:
    """fresh3's repro with the watcher applying (7 of 93 found nothing before the fix, 4 of
    ~45 here); each rename waits until the watcher's sidecar has it, so each is applied."""
    vault = make_vault({"stable.md": "stableword\n", "other.md": "other\n"})
    watcher: WatchProcess = watch(vault)
    config = load_config(vault)

    def applied() -> None:
        name = next(p.name for p in vault.glob("stable*.md"))
        wait_until(lambda: _sidecar_paths(config) == sorted([name, "other.md"]), what=name)

    queries = Queries(vault)
    _rename_and(vault, queries, applied)
    assert watcher.stop() == 0, watcher.log()
    assert queries.misses == 0, (queries.misses, queries.total)


def _sidecar_paths(config: object) -> list[str]:
    from vault_sync.store import Sidecar

    folder = layout.active_set(config.store_path)  # type: ignore[attr-defined]
    assert folder is not None
    store = Sidecar.open(layout.sidecar_file(folder), readonly=True)
    try:
        return sorted(store.page_paths())
    finally:
        store.close()
