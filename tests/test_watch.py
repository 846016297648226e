"""The watcher end to end (issue 3): real watchdog events on temp folders, the real
``vault-sync watch`` subprocess (its ``--json-log`` lines tell when a batch was applied), real
queries, real kills. Cases W1-W6, R1-R5, C1-C3 of ``../shared/cases/README.md``, the file
operations the issue lists, and random operations compared with a fresh rebuild.

Waiting is always polling with a generous timeout (:data:`TIMEOUT_S`), never a fixed sleep
used as an assertion; "everything before X was applied" is proven with a sentinel page written
last (batches apply in order and look at the disk as it is then).
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOBODY, Result, give_to_nobody, run_cli, write_pages
from tests.watch_helpers import (
    TIMEOUT_S,
    RandomOps,
    WatchProcess,
    assert_same_as_rebuild,
    doc_count,
    paths_for,
    seed_pages,
    sentinel,
    snapshot,
    wait_until,
)
from vault_sync import layout
from vault_sync.app import Engine
from vault_sync.config import load_config
from vault_sync.engine import run_sync, writer_lock
from vault_sync.errors import VaultSyncError
from vault_sync.layout import WATCH_STATE_NAME
from vault_sync.vault import scan, scan_paths
from vault_sync.watch import Watcher
from vault_sync.watch_events import OVERFLOW_LOGGER, EventHandler

StartWatch = Callable[..., WatchProcess]
MakeVault = Callable[..., Path]


@pytest.fixture
def watch() -> Iterator[StartWatch]:
    """Start real ``vault-sync watch --json-log`` processes; all are killed at teardown."""
    started: list[WatchProcess] = []

    def start(
        vault: Path,
        env: dict[str, str] | None = None,
        ready: bool = True,
        user: tuple[str, ...] = (),
    ) -> WatchProcess:
        proc = WatchProcess(vault, env, user)
        started.append(proc)
        if ready:
            proc.wait_ready()
        return proc

    yield start
    for proc in started:
        proc.kill()


def cli(vault: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return run_cli("--vault", str(vault), *args, env=env)


def lint_problems(vault: Path) -> list[dict[str, Any]]:
    result = cli(vault, "lint", "--json")
    assert result.code in (0, 1), result.err
    problems: list[dict[str, Any]] = result.json()["problems"]
    return problems


def unresolved(vault: Path) -> set[tuple[str, str]]:
    """``(source path, message)`` of every unresolved-link warning lint reports."""
    return {
        (p["path"], p["message"]) for p in lint_problems(vault) if p["code"] == "unresolved_link"
    }


def stop_clean(watcher: WatchProcess) -> None:
    """SIGTERM: the watcher stops cleanly (exit 0), reported no error, marked itself stopped."""
    code = watcher.stop()
    assert code == 0, watcher.log()
    state = watcher.state()
    assert state is not None and state["running"] is False, state
    assert state["errors"] == 0, (state, watcher.log())


def indexed(vault: Path) -> list[str]:
    return snapshot(vault)["index_paths"]  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- W: watcher


def test_w1_vim_save_sequence_keeps_one_page_with_the_new_text(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"n.md": "oldword text\n", "other.md": "[[n]]\n"})
    watcher = watch(vault)
    n = vault / "n.md"
    # vim's write (TECH-NOTES §2 c), all within a few ms
    (vault / "4913").write_bytes(b"")
    os.unlink(vault / "4913")
    os.rename(n, vault / "n.md~")
    n.write_text("newword text\n", encoding="utf-8")
    os.unlink(vault / "n.md~")
    wait_until(lambda: paths_for(vault, "newword") == ["n.md"], what=f"n.md\n{watcher.log()}")
    assert paths_for(vault, "oldword") == []
    assert indexed(vault) == ["n.md", "other.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["text", "newword"])


@pytest.mark.parametrize("temp_name", [".n.md.tmp123", "n.md.tmp123"])
def test_w2_atomic_save_updates_the_page_and_never_indexes_the_temp_file(
    make_vault: MakeVault, watch: StartWatch, temp_name: str
) -> None:
    vault = make_vault({"n.md": "oldword\n", "m.md": "other\n"})
    watcher = watch(vault)
    tmp = vault / temp_name
    with tmp.open("w", encoding="utf-8") as f:
        f.write("newword\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, vault / "n.md")
    wait_until(lambda: paths_for(vault, "newword") == ["n.md"], what=f"n.md\n{watcher.log()}")
    assert paths_for(vault, "oldword") == []
    assert indexed(vault) == ["m.md", "n.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["newword"])


def test_w3_duplicate_modified_events_cost_one_apply_and_a_same_bytes_save_none(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"n.md": "first version\n", "m.md": "other\n"})
    watcher = watch(vault)
    start = watcher.count()
    with (vault / "n.md").open("w", encoding="utf-8") as f:  # one save, three modified events
        for part in ("second ", "version ", "body\n"):
            f.write(part)
            f.flush()  # one write(2), one IN_MODIFY each; no fsync, which under load could
            # take longer than the quiet window and split the save in two batches
    line = watcher.wait_line(lambda x: x["changed"] == 1, start)
    after_save = watcher.count()
    for _ in range(3):  # the same bytes again, three times: the content hash is unchanged
        (vault / "n.md").write_text("second version body\n", encoding="utf-8")
    sentinel(vault, watcher, "w3")
    # the sentinel is in the stores before its batch's log line is read: wait for the line
    watcher.wait_line(lambda x: x["added"] == 1, after_save)
    lines = watcher.lines[start:]
    assert [x for x in lines if x["changed"] or x["moved"] or x["deleted"]] == [line], lines
    assert [x["added"] for x in watcher.lines[after_save:]] == [1], "a same-bytes save applied"
    assert paths_for(vault, "second version body") == ["n.md"]
    stop_clean(watcher)


def test_w4_a_lone_save_on_an_idle_watcher_becomes_searchable(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"a.md": "alpha\n", "b.md": "beta\n"})
    watcher = watch(vault)
    start = watcher.count()
    (vault / "a.md").write_text("alpha lonesave\n", encoding="utf-8")  # nothing else happens
    wait_until(lambda: paths_for(vault, "lonesave") == ["a.md"], what=f"a.md\n{watcher.log()}")
    # Searchable once the index commits; the batch's log line follows the sidecar commit.
    wait_until(lambda: watcher.count() > start, what=watcher.log())
    assert watcher.lines[start:][0]["changed"] == 1
    stop_clean(watcher)


def test_w5_one_edit_keeps_the_other_nine_pages(make_vault: MakeVault, watch: StartWatch) -> None:
    vault = make_vault({f"d{i % 2}/p{i}.md": f"common uniq{i}\n" for i in range(10)})
    watcher = watch(vault)
    (vault / "d1" / "p3.md").write_text("common uniq3 edited\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "edited") == ["d1/p3.md"], what=watcher.log())
    assert len(paths_for(vault, "common")) == 10
    for i in range(10):
        assert paths_for(vault, f"uniq{i}") == [f"d{i % 2}/p{i}.md"]
    stop_clean(watcher)


def test_w6_burst_of_2000_files_in_a_new_folder_is_all_indexed(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"a.md": "alpha\n"})
    watcher = watch(vault)
    burst = vault / "burst"
    burst.mkdir()
    for i in range(2000):
        (burst / f"b{i}.md").write_text(f"burstword b{i}x\n", encoding="utf-8")
    wait_until(lambda: doc_count(vault) == 2001, what=f"2001 pages\n{watcher.log()[-2000:]}")
    assert len(paths_for(vault, "burstword", limit=1000)) == 1000
    for i in (0, 1, 999, 1999):
        assert paths_for(vault, f"b{i}x") == [f"burst/b{i}.md"]
    stop_clean(watcher)
    assert sorted(indexed(vault)) == sorted(scan(load_config(vault)).pages)


class ThreadWatcher:
    """The real :class:`Watcher` (with the engine's ``run_sync``) run in a thread."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self.lines: list[dict[str, Any]] = []
        self.watcher = Watcher(load_config(vault), run_sync, self.lines.append)
        self.thread = threading.Thread(target=self.watcher.run, daemon=True)

    def __enter__(self) -> ThreadWatcher:
        self.thread.start()
        state_file = load_config(self.vault).store_path / WATCH_STATE_NAME
        wait_until(state_file.is_file, what="the in-process watcher's start-up reconcile")
        return self

    def __exit__(self, *_: object) -> None:
        self.watcher.stop()
        self.thread.join(TIMEOUT_S)
        assert not self.thread.is_alive()


def test_w6_inotify_overflow_warning_triggers_a_reconcile_that_finds_missed_files(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An overflow loses events and watchdog only logs it: files whose events never reach the
    handler (dropped here, as an overflow drops them) are found by the reconcile that the
    WARNING on ``watchdog.observers.inotify_c`` triggers — and only by it."""
    vault = make_vault({"a.md": "alpha\n"})
    real = EventHandler.on_any_event

    def lossy(self: EventHandler, event: Any) -> None:
        if "lost" in os.fsdecode(event.src_path) or "lost" in os.fsdecode(
            getattr(event, "dest_path", "") or ""
        ):
            return
        real(self, event)

    monkeypatch.setattr(EventHandler, "on_any_event", lossy)
    with ThreadWatcher(vault) as tw:
        write_pages(vault, {f"lost/l{i}.md": f"lostword l{i}x\n" for i in range(50)})
        (vault / "lost-root.md").write_text("lostword root\n", encoding="utf-8")
        (vault / "seen.md").write_text("seenword\n", encoding="utf-8")
        wait_until(lambda: paths_for(vault, "seenword") == ["seen.md"], what=str(tw.lines))
        assert paths_for(vault, "lostword") == [], "control: the dropped events were not lost"
        assert not any(line["reconcile"] for line in tw.lines[1:])
        write_pages(vault, {f"lost/m{i}.md": f"lostword m{i}x\n" for i in range(50)})
        logging.getLogger(OVERFLOW_LOGGER).warning(
            "Inotify queue overflowed; filesystem events were lost"
        )
        wait_until(lambda: len(paths_for(vault, "lostword")) == 101, what=str(tw.lines))
        # The pages are searchable as soon as the index commits; the batch's log line is
        # appended after the sidecar commit, a moment later.
        wait_until(
            lambda: any(line["reconcile"] and line["added"] for line in tw.lines[1:]),
            what=str(tw.lines),
        )
    assert tw.watcher.state.errors == 0, tw.watcher.state
    assert_same_as_rebuild(vault, ["lostword"])


def test_w6_a_real_inotify_overflow_is_met_by_a_reconcile(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """A real overflow, made deterministic: the watcher is stopped (SIGSTOP) while more
    events than the kernel queues are made in a folder it watches, then continued; watchdog
    reads the overflow and logs it, and the watcher's reconcile finds every file."""
    vault = make_vault({"a.md": "alpha\n", "burst/first.md": "first\n"})  # burst/ is watched
    watcher = watch(vault)
    start = watcher.count()
    queued = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    files = max(6000, queued // 2)  # each write makes 4 events: create, open, modify, close
    os.kill(watcher.proc.pid, signal.SIGSTOP)
    try:
        for i in range(files):
            (vault / "burst" / f"b{i}.md").write_text(f"overflowword b{i}x\n", "utf-8")
    finally:
        os.kill(watcher.proc.pid, signal.SIGCONT)
    line = watcher.wait_line(lambda x: x["reconcile"] and x["added"] > 0, start, timeout=180)
    assert line["added"] <= files, line
    wait_until(lambda: doc_count(vault) == files + 2, timeout=180, what=watcher.log()[-2000:])
    for i in (0, files // 2, files - 1):
        assert paths_for(vault, f"b{i}x") == [f"burst/b{i}.md"]
    stop_clean(watcher)
    assert sorted(indexed(vault)) == sorted(scan(load_config(vault)).pages)


# --------------------------------------------------------------------------- R: renames, deletes


def test_r1_rename_finds_the_new_name_and_lint_reports_links_to_the_old(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    # No H1 and no title key: the title is the file stem, so "2020" is in the title only.
    vault = make_vault(
        {"Summer 2020.md": "beach trip notes\n", "Index.md": "see [[Summer 2020]]\n"}
    )
    watcher = watch(vault)
    assert "Summer 2020.md" in paths_for(vault, "2020")
    assert unresolved(vault) == set()
    os.rename(vault / "Summer 2020.md", vault / "Summer 2021.md")
    wait_until(lambda: paths_for(vault, "2021") == ["Summer 2021.md"], what=watcher.log())
    assert "Summer 2020.md" not in indexed(vault)
    assert "Summer 2021.md" not in paths_for(vault, "2020")
    assert paths_for(vault, "beach") == ["Summer 2021.md"]
    sentinel(vault, watcher, "r1")  # the sidecar (read by lint) commits after the index
    problems = unresolved(vault)
    assert len(problems) == 1 and next(iter(problems))[0] == "Index.md", problems
    assert "Summer 2020" in next(iter(problems))[1]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["2020", "2021", "beach"])


def test_r2_delete_leaves_the_survivor_first(make_vault: MakeVault, watch: StartWatch) -> None:
    vault = make_vault({"a.md": "sharedword sharedword alpha\n", "b.md": "sharedword beta\n"})
    watcher = watch(vault)
    top = cli(vault, "query", "sharedword", "--limit", "1", "--json").json()["hits"]
    assert [h["path"] for h in top] == ["a.md"]
    (vault / "a.md").unlink()
    wait_until(lambda: paths_for(vault, "sharedword") == ["b.md"], what=watcher.log())
    result = cli(vault, "query", "sharedword", "--limit", "1", "--json")
    assert result.code == 0, result.err
    assert [h["path"] for h in result.json()["hits"]] == ["b.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["sharedword"])


def test_r3_folder_rename_moves_pages_and_lint_reports_the_broken_path_link(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault(
        {
            "A.md": "links [[B]] and [[dir/C]] and [[B#Intro]]\n",
            "B.md": "# B\n\n## Intro\n\nbee\n",
            "dir/C.md": "seaword\n",
            "dir/sub/D.md": "deepword\n",
        }
    )
    watcher = watch(vault)
    assert unresolved(vault) == set()
    os.rename(vault / "dir", vault / "dir2")
    wait_until(lambda: paths_for(vault, "seaword") == ["dir2/C.md"], what=watcher.log())
    assert paths_for(vault, "deepword") == ["dir2/sub/D.md"]
    assert indexed(vault) == ["A.md", "B.md", "dir2/C.md", "dir2/sub/D.md"]
    sentinel(vault, watcher, "r3")
    problems = unresolved(vault)
    assert {source for source, _ in problems} == {"A.md"}, problems
    assert len(problems) == 1 and "dir/C" in next(iter(problems))[1], problems
    (vault / "dir2" / "C.md").write_text("seaword again\n", encoding="utf-8")  # watch follows
    wait_until(lambda: paths_for(vault, "again") == ["dir2/C.md"], what=watcher.log())
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["seaword", "deepword"])


class Deny:
    """A ``listdir`` that raises PermissionError for some vault-relative folders (R4 seam)."""

    def __init__(self, vault: Path, *denied: str) -> None:
        self.denied = {os.path.normpath(vault / d) for d in denied}

    def __call__(self, path: str) -> Any:
        if os.path.normpath(path) in self.denied:
            raise PermissionError(13, "Permission denied", path)
        return os.scandir(path)


R4_PAGES = {
    "a.md": "rfour alpha\n",
    "b.md": "rfour beta\n",
    "locked/c.md": "rfour gamma\n",
    "locked/d.md": "rfour delta\n",
    "locked/deep/e.md": "rfour epsilon\n",
}


def test_r4_unreadable_folder_in_a_full_sync_deletes_nothing(make_vault: MakeVault) -> None:
    vault = make_vault(R4_PAGES)
    config = load_config(vault)
    Engine(config).sync()
    (vault / "a.md").write_text("rfour alpha changed\n", encoding="utf-8")  # real work too
    deny = Deny(vault, "locked")
    plan, report, _ = Engine(config).sync(scanner=lambda c: scan(c, listdir=deny))
    assert report.changed == 1 and report.deleted == 0, report
    assert sorted(plan.kept) == ["locked/c.md", "locked/d.md", "locked/deep/e.md"]
    assert "locked" in report.errors
    assert len(paths_for(vault, "rfour")) == 5
    assert len(snapshot(vault)["pages"]) == 5


def test_r4_unreadable_root_aborts_and_deletes_nothing(make_vault: MakeVault) -> None:
    vault = make_vault(R4_PAGES)
    config = load_config(vault)
    Engine(config).sync()
    before = snapshot(vault)
    deny = Deny(vault, ".")
    with pytest.raises(VaultSyncError):
        Engine(config).sync(scanner=lambda c: scan(c, listdir=deny))
    assert snapshot(vault) == before
    assert len(paths_for(vault, "rfour")) == 5


def test_r4_unreadable_folder_in_a_watcher_batch_deletes_nothing(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher's scoped path: a batch naming a folder that cannot be listed."""
    vault = make_vault(R4_PAGES)
    config = load_config(vault)
    Engine(config).sync()
    deny = Deny(vault, "locked", "locked/deep")
    monkeypatch.setattr(
        "vault_sync.sync.scan_paths", lambda c, paths: scan_paths(c, paths, listdir=deny)
    )
    (vault / "b.md").write_text("rfour beta changed\n", encoding="utf-8")
    plan, report, _ = Engine(config).sync(full_check=False, scope={"locked", "b.md", "locked/deep"})
    assert report.changed == 1 and report.deleted == 0, report
    assert set(plan.kept) == {"locked/c.md", "locked/d.md", "locked/deep/e.md"}
    assert len(paths_for(vault, "rfour")) == 5


def test_r4_a_page_in_a_folder_made_unreadable_under_the_watcher_keeps_its_rows(
    open_folder: Path, watch: StartWatch
) -> None:
    """Issue 14, fault 1, as a real unprivileged user: root makes a folder unreadable and
    appends to a page inside it; the watcher (nobody) cannot stat the page, which proves
    nothing about its absence, so its last good rows stay, and lint and status say why."""
    vault = write_pages(
        open_folder / "vault",
        {".obsidian/app.json": "{}", "a.md": "rsix alpha\n", "sub/p.md": "rsix inside\n"},
    )
    give_to_nobody(vault)
    env = {"HOME": str(open_folder)}
    assert run_cli("--vault", str(vault), "sync", user=NOBODY, env=env).code == 0
    watcher = watch(vault, env=env, user=NOBODY)
    (vault / "sub").chmod(0o000)
    sentinel(vault, watcher, "r6a")  # the folder's own event is a batch of its own
    with (vault / "sub/p.md").open("a", encoding="utf-8") as f:  # root may still write there
        f.write("appended while unreadable\n")
    sentinel(vault, watcher, "r6b")  # a batch naming only sub/p.md (and the sentinel)
    assert sorted(paths_for(vault, "rsix")) == ["a.md", "sub/p.md"], watcher.log()
    lint = run_cli("--vault", str(vault), "lint", "--json", user=NOBODY, env=env)
    assert ("sub", "unreadable") in {(p["path"], p["code"]) for p in lint.json()["problems"]}
    status = run_cli("--vault", str(vault), "status", "--json", user=NOBODY, env=env).json()
    assert status["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 1,
        "unreadable_new": 0,
    }, status
    stop_clean_or_errors = watcher.stop()
    assert stop_clean_or_errors == 0, watcher.log()
    again = run_cli("--vault", str(vault), "sync", user=NOBODY, env=env)
    assert again.code == 0 and again.out.startswith("sync: nothing to do"), again.out
    assert "1 stored page kept: it or its folder cannot be read" in again.err
    (vault / "sub").chmod(0o755)
    back = run_cli("--vault", str(vault), "sync", user=NOBODY, env=env)
    assert back.out.startswith("sync: 0 added, 1 changed, 0 moved, 0 deleted"), back.out
    assert paths_for(vault, "appended") == ["sub/p.md"]


def test_r5_move_then_recreate_in_one_window_gives_two_pages(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"X.md": "original xbody\n", "other.md": "[[X]] [[Y]]\n"})
    watcher = watch(vault)
    os.rename(vault / "X.md", vault / "Y.md")
    (vault / "X.md").write_text("brand new xnew\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "xnew") == ["X.md"], what=watcher.log())
    wait_until(lambda: paths_for(vault, "xbody") == ["Y.md"], what=watcher.log())
    assert indexed(vault) == ["X.md", "Y.md", "other.md"]
    sentinel(vault, watcher, "r5")
    assert unresolved(vault) == set()
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["xnew", "xbody"])


# --------------------------------------------------------------------------- other operations


def test_folder_moved_into_and_out_of_the_vault(
    make_vault: MakeVault, watch: StartWatch, tmp_path: Path
) -> None:
    vault = make_vault({"a.md": "alpha [[ext/e1]]\n"})
    outside = write_pages(
        tmp_path / "outside", {f"ext/e{i}.md": f"extword e{i}x\n" for i in range(3)}
    )
    write_pages(outside, {"ext/sub/s.md": "extword sub\n"})
    watcher = watch(vault)
    shutil.move(str(outside / "ext"), str(vault / "ext"))
    wait_until(lambda: len(paths_for(vault, "extword")) == 4, what=watcher.log())
    sentinel(vault, watcher, "in")
    assert unresolved(vault) == set()
    (vault / "ext" / "e0.md").write_text("extword e0x edited\n", encoding="utf-8")  # watched now
    wait_until(lambda: paths_for(vault, "edited") == ["ext/e0.md"], what=watcher.log())
    shutil.move(str(vault / "ext"), str(outside / "back"))
    wait_until(lambda: paths_for(vault, "extword") == [], what=watcher.log())
    assert indexed(vault) == ["a.md", "zz-sentinelin.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["extword", "alpha"])


def test_case_only_rename(make_vault: MakeVault, watch: StartWatch) -> None:
    vault = make_vault({"note.md": "caseword\n", "other.md": "see [[note]]\n"})
    watcher = watch(vault)
    os.rename(vault / "note.md", vault / "Note.md")
    wait_until(lambda: indexed(vault) == ["Note.md", "other.md"], what=watcher.log())
    assert paths_for(vault, "caseword") == ["Note.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["caseword", "note"])


def test_case_distinct_twin_pages_resolve_links_as_a_rebuild_does(make_vault: MakeVault) -> None:
    """``f0/note.md`` and ``f0/Note.md`` are two files on Linux; a link ``[[f0/Note]]`` must
    resolve the same whether the second twin came in a watcher batch or in a rebuild."""
    vault = make_vault({"f0/note.md": "lower twin\n", "o.md": "see [[f0/Note]]\n"})
    config = load_config(vault)
    Engine(config).sync()
    (vault / "f0" / "Note.md").write_text("upper twin [[f0/Note]]\n", encoding="utf-8")
    Engine(config).sync(full_check=False, scope={"f0/Note.md"})  # what the watcher does
    assert_same_as_rebuild(vault, ["twin"])


def test_names_equal_after_nfc_follow_the_sync_rule_whichever_name_an_event_names(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """Fresh-user report 3, item 8, under the watcher: ``Café.md`` in NFC and NFD. Events
    naming the NFD file must not index it over the NFC one (the page's path is the NFC
    spelling); deleting the NFC file must hand the page to the NFD one, not delete it."""
    import unicodedata

    nfc, nfd = (unicodedata.normalize(form, "Café.md") for form in ("NFC", "NFD"))
    vault = make_vault({nfc: "nfcword\n", "other.md": "other\n"})
    watcher = watch(vault)
    (vault / nfd).write_text("nfdword\n", encoding="utf-8")  # created: an event for NFD
    sentinel(vault, watcher, "made")
    (vault / nfd).write_text("nfdword edited\n", encoding="utf-8")  # modified: NFD again
    sentinel(vault, watcher, "edited")
    assert (paths_for(vault, "nfcword"), paths_for(vault, "nfdword")) == ([nfc], [])
    (vault / nfc).unlink()  # an event for NFC: the NFD file is the page now
    wait_until(lambda: paths_for(vault, "nfdword") == [nfc], what=watcher.log())
    assert paths_for(vault, "nfcword") == []
    (vault / nfc).write_text("nfcword back\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "back") == [nfc], what=watcher.log())
    assert paths_for(vault, "nfdword") == []
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["nfcword", "nfdword"])


def test_links_into_pseudo_file_systems_made_under_the_watcher_are_never_read(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """Fresh-user report 3, item 12.14, under the watcher: links made while it runs, to
    ``/proc/self/environ`` (the environment), ``/dev/zero`` and a folder of ``/sys``, are
    neither indexed nor watched; the page an ``env.md`` file held goes when it becomes one."""
    vault = make_vault({"a.md": "alpha\n", "env.md": "envmarkerzq\n"})
    watcher = watch(vault, env={"VS_TEST_MARKER": "envmarkerzq"})
    (vault / "env.md").unlink()
    (vault / "env.md").symlink_to("/proc/self/environ")
    (vault / "zero.md").symlink_to("/dev/zero")
    (vault / "sysk").symlink_to("/sys/kernel", target_is_directory=True)
    sentinel(vault, watcher, "sys")
    assert indexed(vault) == ["a.md", "zz-sentinelsys.md"]
    assert paths_for(vault, "envmarkerzq") == []
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["envmarkerzq", "alpha"])


def test_folders_equal_after_nfc_in_a_watcher_batch_match_a_rebuild(make_vault: MakeVault) -> None:
    """Folder twins (``Résumé/`` in NFC and NFD) holding a page of the same name: a batch
    naming either folder or page decides as a rebuild does, and keeps the other twin's pages."""
    import unicodedata

    nfc, nfd = (unicodedata.normalize(form, "Résumé") for form in ("NFC", "NFD"))
    vault = make_vault({f"{nfc}/x.md": "nfcword\n", f"{nfc}/a.md": "aword\n"})
    config = load_config(vault)
    Engine(config).sync()
    write_pages(vault, {f"{nfd}/x.md": "nfdword\n", f"{nfd}/b.md": "bword\n"})
    Engine(config).sync(full_check=False, scope={nfd})  # what the watcher does
    assert_same_as_rebuild(vault, ["nfcword", "nfdword", "aword", "bword"])
    assert paths_for(vault, "nfdword") == [] and paths_for(vault, "bword") == [f"{nfc}/b.md"]
    (vault / nfd / "x.md").write_text("nfdword again\n", encoding="utf-8")
    Engine(config).sync(full_check=False, scope={f"{nfd}/x.md"})
    assert_same_as_rebuild(vault, ["nfcword", "nfdword", "aword", "bword"])
    os.unlink(vault / nfc / "x.md")
    Engine(config).sync(full_check=False, scope={f"{nfc}/x.md"})
    assert paths_for(vault, "nfdword") == [f"{nfc}/x.md"]
    assert_same_as_rebuild(vault, ["nfcword", "nfdword", "aword", "bword"])


def test_delete_of_a_folder(make_vault: MakeVault, watch: StartWatch) -> None:
    vault = make_vault(
        {"keep.md": "goneword keep\n", **{f"old/p{i}.md": f"goneword {i}\n" for i in range(4)}}
    )
    write_pages(vault, {"old/deep/er/q.md": "goneword deep\n"})
    watcher = watch(vault)
    shutil.rmtree(vault / "old")
    wait_until(lambda: paths_for(vault, "goneword") == ["keep.md"], what=watcher.log())
    assert indexed(vault) == ["keep.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["goneword"])


def test_create_then_write_in_a_brand_new_nested_folder(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"a.md": "alpha\n"})
    watcher = watch(vault)
    os.makedirs(vault / "fresh" / "deep" / "er")
    files = [vault / "fresh" / "top.md", *(vault / "fresh/deep/er" / f"f{i}.md" for i in range(3))]
    handles = [f.open("w", encoding="utf-8") for f in files]  # created empty first
    try:
        for i, handle in enumerate(handles):
            handle.write(f"nestword n{i}x\n")
    finally:
        for handle in handles:
            handle.close()
    wait_until(lambda: len(paths_for(vault, "nestword")) == 4, what=watcher.log())
    assert paths_for(vault, "n0x") == ["fresh/top.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["nestword"])


def git(vault: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=vault,
        check=True,
        capture_output=True,
    )


def test_git_checkout_and_stash_rewrite_many_files(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    pages = {f"d{i % 5}/p{i}.md": f"gitword main{i} [[p{(i + 1) % 60}]]\n" for i in range(60)}
    vault = make_vault(pages)
    (vault / ".gitignore").write_text(".vault-sync/\n", encoding="utf-8")
    git(vault, "init", "-q", "-b", "main")
    git(vault, "add", "-A")
    git(vault, "commit", "-q", "-m", "main")
    git(vault, "checkout", "-q", "-b", "other")
    for i in range(0, 60, 2):
        (vault / f"d{i % 5}/p{i}.md").write_text(f"gitword other{i}\n", encoding="utf-8")
    for i in range(1, 60, 7):
        (vault / f"d{i % 5}/p{i}.md").unlink()
    os.rename(vault / "d1", vault / "renamed")
    write_pages(vault, {f"newdir/n{i}.md": f"gitword new{i} [[p{i}]]\n" for i in range(40)})
    git(vault, "add", "-A")
    git(vault, "commit", "-q", "-m", "other")
    git(vault, "checkout", "-q", "main")
    queries = ["gitword", "main4", "other4", "new3"]
    watcher = watch(vault)
    git(vault, "checkout", "-q", "other")
    sentinel(vault, watcher, "a")
    assert_same_as_rebuild(vault, queries)
    assert paths_for(vault, "other4") == ["d4/p4.md"] and paths_for(vault, "main4") == []
    git(vault, "checkout", "-q", "main")
    sentinel(vault, watcher, "b")
    assert_same_as_rebuild(vault, queries)
    assert paths_for(vault, "new3") == [] and paths_for(vault, "main4") == ["d4/p4.md"]
    for i in range(0, 60, 3):  # local edits, stashed away and back
        (vault / f"d{i % 5}/p{i}.md").write_text(f"gitword stashed{i}\n", encoding="utf-8")
    sentinel(vault, watcher, "c")
    git(vault, "stash", "-q")
    sentinel(vault, watcher, "d")
    assert paths_for(vault, "stashed3") == []
    assert_same_as_rebuild(vault, queries)
    git(vault, "stash", "pop", "-q")
    sentinel(vault, watcher, "e")
    assert paths_for(vault, "stashed3") == ["d3/p3.md"]
    stop_clean(watcher)
    assert_same_as_rebuild(vault, [*queries, "stashed3"])


# --------------------------------------------------------------------------- C: concurrency


def test_c1_readers_never_fail_or_block_and_a_cli_sync_waits_its_turn(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({f"d{i % 4}/p{i}.md": f"common uniq{i}\n" for i in range(120)})
    watcher = watch(vault)
    stop = threading.Event()
    runs: list[tuple[int, float, int, str]] = []
    lock = threading.Lock()

    def reader() -> None:
        while not stop.is_set():
            began = time.monotonic()
            result = cli(vault, "query", "common", "--json", "--limit", "1000")
            took = time.monotonic() - began
            count = len(result.json()["hits"]) if result.code == 0 else -1
            with lock:
                runs.append((result.code, took, count, result.err))

    def writer() -> None:
        i = 0
        while not stop.is_set():
            (vault / "new" / f"w{i}.md").parent.mkdir(exist_ok=True)
            (vault / "new" / f"w{i}.md").write_text(f"common written{i}\n", encoding="utf-8")
            (vault / f"d{i % 4}/p{i % 120}.md").write_text(f"common uniq{i % 120} e{i}\n", "utf-8")
            i += 1
            time.sleep(random.uniform(0, 0.05))

    threads = [threading.Thread(target=reader) for _ in range(3)]
    threads.append(threading.Thread(target=writer))
    for t in threads:
        t.start()
    try:
        # Counted, not timed: a loaded machine gets as many reads and syncs as a fast one.
        syncs = []
        deadline = time.monotonic() + 10 * TIMEOUT_S  # a hang fails; the counts end the loop
        while len(syncs) < 4 or len(runs) < 12:
            assert time.monotonic() < deadline, (len(syncs), len(runs))
            syncs.append(cli(vault, "sync", "--json"))
    finally:
        stop.set()
        for t in threads:
            t.join(60)
    assert all(s.code == 0 for s in syncs), [s.err for s in syncs if s.code]
    assert len(runs) >= 12, runs
    failed = [r for r in runs if r[0] != 0]
    assert not failed, failed
    slow = [r for r in runs if r[1] >= 5]
    assert not slow, slow
    assert min(r[2] for r in runs) >= 120, "a reader saw fewer pages than were always there"
    sentinel(vault, watcher, "c1")
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["common", "written0", "uniq5"])


def test_c1_idle_watcher_holds_no_lock_and_a_blocked_writer_names_the_holder(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"a.md": "alpha\n", "b.md": "beta\n"})
    (vault / "vault-sync.toml").write_text("lock_timeout_s = 0.5\n", encoding="utf-8")
    watcher = watch(vault)
    (vault / "c.md").write_text("gamma\n", encoding="utf-8")
    wait_until(lambda: paths_for(vault, "gamma") == ["c.md"], what=watcher.log())
    idle = cli(vault, "sync")  # the idle watcher holds nothing: a 0.5 s timeout is plenty
    assert idle.code == 0, idle.err
    holder = writer_lock(load_config(vault))
    with holder:  # this test process holds the writer lock
        blocked = cli(vault, "sync")
        assert blocked.code == 1, blocked.err
        assert f"pid {os.getpid()}" in blocked.err and "lock_timeout_s" in blocked.err
        query = cli(vault, "query", "alpha", "--json")  # readers never take the lock
        assert query.code == 0 and [h["path"] for h in query.json()["hits"]] == ["a.md"]
        (vault / "d.md").write_text("delta\n", encoding="utf-8")  # the watcher must wait too
        wait_until(lambda: (watcher.state() or {}).get("errors", 0) > 0, what="the watcher waiting")
        assert paths_for(vault, "delta") == []
    wait_until(lambda: paths_for(vault, "delta") == ["d.md"], what=watcher.log())
    assert watcher.proc.poll() is None
    watcher.stop()
    assert_same_as_rebuild(vault, ["alpha", "delta"])


def _truncate_segment(vault: Path) -> Path:
    index = layout.index_dir(layout.active_set(load_config(vault).store_path) or Path("/none"))
    target = max(
        (p for p in index.iterdir() if p.suffix in {".idx", ".store", ".term", ".pos"}),
        key=lambda p: p.stat().st_size,
    )
    with target.open("r+b") as f:
        f.truncate(target.stat().st_size // 2)
    return target


def _zero_sidecar_middle(vault: Path) -> Path:
    sidecar = layout.sidecar_file(layout.active_set(load_config(vault).store_path) or Path("/"))
    size = sidecar.stat().st_size
    assert size > 3 * 8192, size
    with sidecar.open("r+b") as f:
        f.seek(size // 2)
        f.write(b"\0" * 8192)
    return sidecar


C2_PAGES = {f"p{i}.md": f"common c2word{i} " + "filler text " * 40 + "\n" for i in range(80)}


@pytest.mark.parametrize("damage", [_truncate_segment, _zero_sidecar_middle])
def test_c2_damaged_store_under_a_running_watcher_is_rebuilt_at_its_next_batch(
    make_vault: MakeVault, watch: StartWatch, damage: Callable[[Path], Path]
) -> None:
    vault = make_vault(C2_PAGES)
    watcher = watch(vault)
    start = watcher.count()
    damage(vault)
    (vault / "p1.md").write_text("common c2word1 changedword\n", encoding="utf-8")
    line = watcher.wait_line(lambda x: "notice" in x, start)
    assert "rebuilt" in line["notice"], line
    wait_until(lambda: paths_for(vault, "changedword") == ["p1.md"], what=watcher.log())
    assert len(paths_for(vault, "common")) == 80
    assert paths_for(vault, "c2word7") == ["p7.md"]
    assert watcher.proc.poll() is None, watcher.log()
    stop_clean_or_errors = watcher.stop()
    assert stop_clean_or_errors == 0, watcher.log()
    assert_same_as_rebuild(vault, ["common", "changedword"])


def test_c2_store_folder_deleted_under_a_running_watcher_is_rebuilt(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault(C2_PAGES)
    watcher = watch(vault)
    start = watcher.count()
    shutil.rmtree(load_config(vault).store_path)
    (vault / "p2.md").write_text("common c2word2 afterdelete\n", encoding="utf-8")
    line = watcher.wait_line(lambda x: x["added"] + x["changed"] >= 80, start)
    assert line["added"] + line["changed"] == 80, line
    assert doc_count(vault) == 80
    assert paths_for(vault, "afterdelete") == ["p2.md"]
    assert len(paths_for(vault, "common")) == 80
    stop_clean(watcher)
    assert_same_as_rebuild(vault, ["common", "afterdelete"])


@pytest.mark.parametrize("how", ["rename", "replace", "delete"])
def test_watcher_whose_vault_folder_is_renamed_or_deleted_stops_and_never_recreates_it(
    make_vault: MakeVault, watch: StartWatch, how: str
) -> None:
    """``replace``: a new folder at the old path (writers would accept it: only the watcher's
    own check of the folder's inode can tell)."""
    vault = make_vault({"a.md": "one\n", "sub/b.md": "two\n"})
    watcher = watch(vault)
    moved = vault.with_name(vault.name + "-moved")
    if how in ("rename", "replace"):
        vault.rename(moved)
        if how == "replace":
            vault.mkdir()
        (moved / "sub/c.md").write_text("saved after the rename\n", encoding="utf-8")
    else:
        shutil.rmtree(vault)
    try:
        code = watcher.proc.wait(TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the watcher kept running:\n{watcher.log()}") from None
    watcher.kill()  # joins the reader
    assert code == 1, watcher.log()
    assert f"vault folder {vault} was moved or deleted" in watcher.log()
    assert "Traceback" not in watcher.log()
    # no empty store made at the old path
    assert (os.listdir(vault) if vault.exists() else None) == ([] if how == "replace" else None)


def test_status_sees_a_running_watcher_after_its_store_was_deleted_and_rebuilt(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    """Issue 14, fault 9: "watcher: never ran" while it ran (the state file went with the
    store folder, and the watcher wrote it again only after its next batch)."""
    vault = make_vault({"a.md": "one\n"})
    watcher = watch(vault)
    shutil.rmtree(load_config(vault).store_path)
    assert cli(vault, "status", "--json").code == 0  # a read with no store: rebuilds it

    def running() -> bool:
        state = cli(vault, "status", "--json").json()["watcher"]
        return bool(state and state.get("alive") and state["pid"] == watcher.proc.pid)

    wait_until(running, what=f"status to see the watcher\n{watcher.log()}")
    stop_clean(watcher)


def test_status_counts_the_errors_batches_logged(open_folder: Path, watch: StartWatch) -> None:
    """The watcher runs as nobody; root makes a page of mode 000 (was ``/proc/self/mem``,
    now never read at all: fresh-user report 3)."""
    vault = write_pages(open_folder / "vault", {".obsidian/app.json": "{}", "a.md": "one\n"})
    give_to_nobody(vault)
    env = {"HOME": str(open_folder)}
    watcher = watch(vault, env=env, user=NOBODY)
    start = watcher.count()
    (vault / "mem.md").write_text("secret\n", encoding="utf-8")
    (vault / "mem.md").chmod(0o000)
    line = watcher.wait_line(lambda x: "mem.md" in x.get("errors", {}), start)
    assert list(line["errors"]) == ["mem.md"], line
    state = cli(vault, "status", "--json").json()["watcher"]
    assert state["errors"] >= 1, state
    assert state["last_error"].startswith("mem.md: "), state
    text = cli(vault, "status").out
    assert f"{state['errors']} errors" in text and "watcher last error: mem.md: " in text, text
    assert watcher.stop() == 0, watcher.log()


# --------------------------------------------------------------------------- C3: kill -9

FAULT_POINTS = ["after_journal", "during_batch", "after_index_commit", "after_sidecar_commit"]
C3_QUERIES = ["common", "edited", "created", "moved1", "c3w5 common"]


def _c3_changes(vault: Path) -> None:
    for i in range(0, 30, 3):
        (vault / f"d{i % 3}/p{i}.md").write_text(f"common c3w{i} edited\n", encoding="utf-8")
    for i in range(5):
        (vault / f"d9/n{i}.md").parent.mkdir(exist_ok=True)
        (vault / f"d9/n{i}.md").write_text(f"common created{i} [[p{i}]]\n", encoding="utf-8")
    (vault / "d1/p1.md").rename(vault / "d2/moved1.md")
    (vault / "d2/p2.md").unlink()


@pytest.mark.parametrize("point", FAULT_POINTS)
def test_c3_watcher_killed_inside_a_batch_recovers_on_restart(
    make_vault: MakeVault, watch: StartWatch, point: str
) -> None:
    vault = make_vault({f"d{i % 3}/p{i}.md": f"common c3w{i} [[p{i + 1}]]\n" for i in range(30)})
    doomed = watch(vault, env={"VAULT_SYNC_FAULT": f"{point}@2"})  # 1st: start-up reconcile
    _c3_changes(vault)
    wait_until(lambda: doomed.proc.poll() is not None, what=f"the kill at {point}")
    assert doomed.proc.returncode == -signal.SIGKILL, doomed.log()
    watcher = watch(vault)
    sentinel(vault, watcher, "c3")
    assert paths_for(vault, "moved1") == ["d2/moved1.md"]
    assert len(paths_for(vault, "edited")) == 10
    stop_clean(watcher)
    assert_same_as_rebuild(vault, C3_QUERIES)


@pytest.fixture(scope="module")
def big_synced_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,500 pages (two apply batches of BATCH_PAGES=1000), synced once."""
    root = tmp_path_factory.mktemp("big") / "vault"
    (root / ".obsidian").mkdir(parents=True)
    write_pages(
        root,
        {
            f"d{i % 15}/p{i}.md": f"# P{i}\n\ncommon bw{i} [[p{(i + 7) % 1500}]]\n"
            for i in range(1500)
        },
    )
    Engine(load_config(root)).sync()
    return root


@pytest.mark.parametrize("point", FAULT_POINTS)
def test_c3_cli_sync_killed_in_its_second_batch_recovers(
    big_synced_vault: Path, tmp_path: Path, point: str
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(big_synced_vault, vault)
    for i in range(1500):  # every page changes: 1,500 upserts = two batches
        (vault / f"d{i % 15}/p{i}.md").write_text(f"common bw{i} second{i % 10}\n", "utf-8")
    (vault / "d0" / "p0.md").unlink()
    killed = cli(vault, "sync", env={"VAULT_SYNC_FAULT": f"{point}@2"})
    assert killed.code == -signal.SIGKILL, killed.err
    # Every page but the deleted p0 holds "common" in each generation: a reader sees exactly
    # 1,499 whatever the kill point (the index may be a batch ahead of the sidecar).
    served = paths_for(vault, "common", limit=2000)
    assert len(served) == 1499, "readers keep serving a complete generation"
    again = cli(vault, "sync")
    assert again.code == 0, again.err
    assert doc_count(vault) == 1499
    assert_same_as_rebuild(vault, ["second3", "bw17", "common second7"])


# --------------------------------------------------------------------------- random operations

QUERIES = ["river", "alpha beta", "same body everywhere", "start3", "Intro", "gamma", "tag1"]


def _random_run_through_the_seam(vault: Path, seed: int, ops: int) -> None:
    rng = random.Random(seed)
    config = load_config(vault)
    Engine(config).sync()
    actions = RandomOps(vault, rng)
    pending: set[str] = set()
    group = rng.randrange(1, 12)
    for _ in range(ops):
        pending.update(actions.step())
        group -= 1
        if group <= 0:
            Engine(config).sync(full_check=False, scope=set(pending))
            pending.clear()
            group = rng.randrange(1, 12)
    Engine(config).sync(full_check=False, scope=set(pending))
    # Hit sets only: after hundreds of updates on a tiny index, BM25 statistics that still
    # count deleted documents reorder close hits (TECH-NOTES §8).
    assert_same_as_rebuild(vault, QUERIES, rank_margin=None)


@pytest.mark.parametrize("seed", range(20))
def test_random_operations_through_the_batch_seam_match_a_rebuild(
    make_vault: MakeVault, seed: int
) -> None:
    _random_run_through_the_seam(make_vault(seed_pages()), seed, 100)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 300))
def test_random_operations_through_the_batch_seam_match_a_rebuild_long(
    make_vault: MakeVault, seed: int
) -> None:
    _random_run_through_the_seam(make_vault(seed_pages(30)), seed, 400)


def _random_run_with_the_watcher(vault: Path, watch: StartWatch, seed: int, ops: int) -> None:
    rng = random.Random(seed)
    watcher = watch(vault)
    actions = RandomOps(vault, rng)
    for _ in range(ops):
        actions.step()
        time.sleep(rng.choice([0, 0, 0, 0.002, 0.01, 0.05, 0.2]))
    sentinel(vault, watcher, f"r{seed}")
    stop_clean(watcher)
    assert_same_as_rebuild(vault, QUERIES, rank_margin=None)


@pytest.mark.parametrize("seed", [1, 2])
def test_random_operations_with_the_real_watcher_match_a_rebuild(
    make_vault: MakeVault, watch: StartWatch, seed: int
) -> None:
    _random_run_with_the_watcher(make_vault(seed_pages()), watch, seed, 100)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 30))
def test_random_operations_with_the_real_watcher_match_a_rebuild_long(
    make_vault: MakeVault, watch: StartWatch, seed: int
) -> None:
    _random_run_with_the_watcher(make_vault(seed_pages(30)), watch, seed, 300)


def test_watcher_stops_cleanly_on_sigint_and_status_shows_it(
    make_vault: MakeVault, watch: StartWatch
) -> None:
    vault = make_vault({"a.md": "alpha\n"})
    watcher = watch(vault)
    status = cli(vault, "status", "--json")
    assert status.code == 0, status.err
    watcher.proc.send_signal(signal.SIGINT)
    assert watcher.proc.wait(TIMEOUT_S) == 0, watcher.log()
    state = watcher.state()
    assert state is not None and state["running"] is False
    watcher_line = [x for x in cli(vault, "status").out.splitlines() if x.startswith("watcher:")]
    assert len(watcher_line) == 1, watcher_line
    assert watcher_line[0].startswith(f"watcher: not running (pid {watcher.proc.pid}, "), (
        watcher_line
    )
