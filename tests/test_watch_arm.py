"""The watcher watches what ``sync`` reads, whatever order events arrive in
(:mod:`vault_sync.watch_arm`; fresh-user notes of issue 14): a folder moved into a folder
made a moment before, and folders reached through a symlink. Real ``vault-sync watch``
processes and real inotify events; every wait polls with a timeout, never a fixed sleep."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.test_watch import stop_clean
from tests.watch_helpers import (
    WatchProcess,
    assert_same_as_rebuild,
    in_sidecar,
    paths_for,
    wait_until,
)

MakeVault = Callable[..., Path]
StartWatch = Callable[..., WatchProcess]


@pytest.fixture
def watch() -> Iterator[StartWatch]:
    """Start real ``vault-sync watch --json-log`` processes; all are killed at teardown."""
    started: list[WatchProcess] = []

    def start(vault: Path) -> WatchProcess:
        proc = WatchProcess(vault)
        started.append(proc)
        proc.wait_ready()
        return proc

    yield start
    for proc in started:
        proc.kill()


def _move_into_a_new_folder(watcher: WatchProcess, vault: Path, src: str, dest: str) -> None:
    """``mkdir dest; mv src dest/sub`` while the watcher is stopped (SIGSTOP), so it meets
    both in one read, every time."""
    os.kill(watcher.proc.pid, signal.SIGSTOP)
    try:
        (vault / dest).mkdir()
        os.rename(vault / src, vault / dest / "sub")
    finally:
        os.kill(watcher.proc.pid, signal.SIGCONT)


def _changes_under(
    watcher: WatchProcess, vault: Path, sub: str, tag: str, river: list[str]
) -> None:
    """Delete, append to and add pages under ``sub``; wait until the index shows each (and
    ``river``: the pages holding "river" then). The index, not the sidecar: "not in the
    sidecar" also holds while a batch is unfinished."""
    (vault / sub / "a2.md").unlink()
    with (vault / sub / "a1.md").open("a", encoding="utf-8") as f:
        f.write(f"zz{tag}word\n")
    (vault / sub / "deep" / "a4.md").write_text(f"a4 deep{tag}\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, f"zz{tag}word") == [f"{sub}/a1.md"], what=watcher.log())
    wait_until(lambda: paths_for(vault, f"deep{tag}") == [f"{sub}/deep/a4.md"], what=watcher.log())
    wait_until(lambda: sorted(paths_for(vault, "river")) == river, what=watcher.log())


def test_a_folder_moved_into_a_folder_just_made_stays_watched(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """watchdog learns of ``g/sub`` by walking ``g``, then drops the inotify watch it shares
    with the unpaired ``f0``: later changes under ``g/sub`` were never seen (5 runs in 6
    without the stop). Then ``g`` moves away and is made again with another folder moved in:
    its path was armed already, but for the old folder (seed 4 of the random runs)."""
    pages = {"a1.md": "a1 river\n", "a2.md": "a2 river\n", "deep/a3.md": "a3 river\n"}
    vault = make_vault({f"{f}/{p}": t for f in ("f0", "f1") for p, t in pages.items()})
    watcher = watch(vault)
    _move_into_a_new_folder(watcher, vault, "f0", "g")
    want = sorted([*(f"g/sub/{p}" for p in pages), *(f"f1/{p}" for p in pages)])
    wait_until(lambda: sorted(paths_for(vault, "river")) == want, what=watcher.log()[-2000:])
    left = ["g/sub/a1.md", "g/sub/deep/a3.md"]
    _changes_under(watcher, vault, "g/sub", "one", sorted([*left, *want[:3]]))
    os.rename(vault / "g", vault / "moved")
    _move_into_a_new_folder(watcher, vault, "f1", "g")
    moved = [p.replace("g/", "moved/", 1) for p in left]
    want = sorted([*moved, *(f"g/sub/{p}" for p in pages)])
    wait_until(lambda: sorted(paths_for(vault, "river")) == want, what=watcher.log()[-2000:])
    _changes_under(watcher, vault, "g/sub", "two", sorted([*moved, *left]))
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["river", "zzoneword", "zztwoword", "deepone", "deeptwo"])


def test_changes_under_a_symlinked_folder_are_seen_as_sync_reads_them(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """``sync`` follows a symlinked folder (here outside the vault, and one nested in its
    target); the watcher watches the targets and names their pages under the link, like a
    link made while it runs."""
    elsewhere = make_vault({"old.md": "old linkword\n", "inner/x.md": "x\n"}, name="elsewhere")
    other = make_vault({"o.md": "o\n"}, name="other")
    (elsewhere / "nested").symlink_to(other)
    vault = make_vault({"a.md": "alpha\n"})
    (vault / "linked").symlink_to(elsewhere)
    watcher = watch(vault)
    assert in_sidecar(vault, "linked/old.md") and in_sidecar(vault, "linked/nested/o.md")
    (elsewhere / "new.md").write_text("new linkword\n", encoding="utf-8")
    (elsewhere / "inner" / "x.md").write_text("x innerword\n", encoding="utf-8")
    (other / "o.md").write_text("o nestedword\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "innerword") == ["linked/inner/x.md"], what=watcher.log())
    wait_until(lambda: paths_for(vault, "nestedword") == ["linked/nested/o.md"], what=watcher.log())
    wait_until(
        lambda: sorted(paths_for(vault, "linkword")) == ["linked/new.md", "linked/old.md"],
        what=watcher.log(),
    )
    third = make_vault({"t.md": "t\n"}, name="third")
    (vault / "later").symlink_to(third)  # a link made while watching
    wait_until(lambda: in_sidecar(vault, "later/t.md"), what=watcher.log())
    (third / "p.md").write_text("p laterword\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "laterword") == ["later/p.md"], what=watcher.log())
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["linkword", "innerword", "nestedword", "laterword"])


def test_link_watches_follow_each_target_once_and_skip_ignored_links(tmp_path: Path) -> None:
    """As ``sync`` walks: a link back into the vault (a loop) and a second link to a target
    already watched add no watch; a link an ``ignore`` rule leaves out is not watched."""
    from watchdog.events import FileSystemEventHandler

    from vault_sync.watch_arm import Arming

    vault, outside, big = tmp_path / "v", tmp_path / "out", tmp_path / "big"
    for folder in (vault / "sub", outside / "inner", big):
        folder.mkdir(parents=True)
    (vault / "linked").symlink_to(outside)
    (vault / "sub" / "again").symlink_to(outside)  # a repeat
    (outside / "inner" / "back").symlink_to(vault)  # a loop
    (vault / "node_modules").symlink_to(big)
    made: list[tuple[Path, str]] = []

    def handler_for(root: Path, prefix: str) -> FileSystemEventHandler:
        made.append((root, prefix))
        return FileSystemEventHandler()

    arming = Arming(vault, ".vault-sync", handler_for, lambda rel: rel == "node_modules")
    arming.start()
    try:
        assert set(arming.links) == {"linked"}
        assert made == [(vault, ""), (outside, "linked")]
        (vault / "new").mkdir()
        (vault / "new" / "deep").mkdir()
        assert arming.arm({"new", "new/deep", "node_modules"}) is False
        assert set(arming.extra) == {"new"}
        (vault / "new").rename(tmp_path / "gone")  # a folder made again at an armed path
        (vault / "new").mkdir()
        assert arming.arm({"new/deep", "new"}) is False
        assert arming.extra == {
            "new": (os.stat(vault / "new").st_dev, os.stat(vault / "new").st_ino)
        }
    finally:
        arming.stop()
