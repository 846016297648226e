"""Sync end to end with real parts: files on disk, a real tantivy index, a real SQLite file."""

from __future__ import annotations

import concurrent.futures
import os
import sqlite3
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vault_sync import layout
from vault_sync.app import Engine
from vault_sync.config import Config, load_config
from vault_sync.store import Sidecar
from vault_sync.vault import scan

from .conftest import NOBODY, Result, give_to_nobody, run_cli, write_pages

MakeVault = Callable[..., Path]


def sync(vault: Path, **kw: object):  # type: ignore[no-untyped-def]
    plan, report, _notice = Engine.open(vault).sync(**kw)  # type: ignore[arg-type]
    return plan, report


def sidecar_path(config: Config) -> Path:
    folder = layout.active_set(config.store_path)
    assert folder is not None
    return layout.sidecar_file(folder)


def sql(vault: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    db = sqlite3.connect(sidecar_path(load_config(vault)))
    try:
        return list(db.execute(query, params))
    finally:
        db.close()


def search_paths(vault: Path, text: str, limit: int = 10) -> list[str]:
    reader = Engine.open(vault).reader()
    try:
        return [h.path for h in reader.search(text, limit=limit)]
    finally:
        reader.close()


def test_cold_sync_then_unchanged_sync_does_no_work(make_vault: MakeVault) -> None:
    vault = make_vault({f"p{i}.md": f"# Page {i}\n\nword{i} shared\n" for i in range(12)})
    _, first = sync(vault)
    assert (first.added, first.generation) == (12, 1)
    _, second = sync(vault)
    assert not second.did_work
    assert second.unchanged == 12
    assert second.generation == 1


def test_sync_never_writes_pages_f9(make_vault: MakeVault) -> None:
    vault = make_vault(
        {
            "bad.md": "---\ntitle: Foo: bar\nweird: [\n---\nbody\n",
            "foreign.md": "---\nzzz: 1\naaa: [b, a]\ntags: x\n---\n# T\n#inline\n",
            "crlf.md": "---\r\ntitle: C\r\n---\r\nbody\r\n",
        }
    )
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in vault.rglob("*.md")}
    sync(vault)
    Engine.open(vault).rebuild()
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in vault.rglob("*.md")}
    assert before == after


def test_modified_touched_moved_deleted(make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "alpha text\n", "b.md": "beta text\n", "c.md": "gamma\n"})
    sync(vault)
    (vault / "a.md").write_text("alpha changed\n", encoding="utf-8")
    os.utime(vault / "b.md", ns=(1, 1))  # stat changes, content does not
    (vault / "sub").mkdir()
    (vault / "c.md").rename(vault / "sub" / "c2.md")
    plan, report = sync(vault)
    assert plan.modified == ("a.md",)
    assert [p for p, _ in plan.touched] == ["b.md"]
    assert plan.moved == (("c.md", "sub/c2.md"),)
    assert (report.changed, report.moved, report.added, report.deleted) == (1, 1, 0, 0)
    assert search_paths(vault, "gamma") == ["sub/c2.md"]
    (vault / "a.md").unlink()
    _, report = sync(vault)
    assert report.deleted == 1
    assert search_paths(vault, "alpha") == []
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 2


def test_unreadable_folder_deletes_nothing_r4(make_vault: MakeVault) -> None:
    vault = make_vault({f"dir/p{i}.md": f"page {i}\n" for i in range(5)} | {"top.md": "t\n"})
    sync(vault)

    def failing(path: str | os.PathLike[str]) -> object:
        if Path(path).name == "dir":
            raise PermissionError(13, "Permission denied", str(path))
        return os.scandir(path)

    plan, report, _ = Engine.open(vault).sync(scanner=lambda c: scan(c, listdir=failing))  # type: ignore[arg-type]
    assert report.deleted == 0
    assert len(plan.kept) == 5
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 6
    assert "dir" in report.errors


def test_forward_reference_resolves_when_target_appears(make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "see [[Later page]] and [[Gone]]\n", "Gone.md": "x\n"})
    sync(vault)
    rows = dict(sql(vault, "SELECT target_text, status FROM links"))
    assert rows == {"Later page": "unresolved", "Gone": "resolved"}
    (vault / "Later page.md").write_text("here now\n", encoding="utf-8")
    (vault / "Gone.md").unlink()
    sync(vault)
    rows = dict(sql(vault, "SELECT target_text, status FROM links"))
    assert rows == {"Later page": "resolved", "Gone": "unresolved"}


def test_new_page_with_better_name_takes_over_a_link(make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "[[Target]]\n", "t.md": "---\ntitle: Target\n---\n"})
    sync(vault)
    assert sql(vault, "SELECT target_path FROM links")[0][0] == "t.md"
    (vault / "Target.md").write_text("stem match\n", encoding="utf-8")
    sync(vault)
    assert sql(vault, "SELECT target_path FROM links")[0][0] == "Target.md"


def test_nfd_file_name_and_nfc_link_meet_n1(make_vault: MakeVault) -> None:
    nfd = unicodedata.normalize("NFD", "Café notes.md")
    vault = make_vault({"n1.md": "see [[Café notes]]\n"})
    (vault / nfd).write_text("coffee\n", encoding="utf-8")
    sync(vault)
    ids = [r[0] for r in sql(vault, "SELECT id FROM pages ORDER BY id")]
    assert ids == [unicodedata.normalize("NFC", "Café notes"), "n1"]
    assert sql(vault, "SELECT status FROM links")[0][0] == "resolved"
    assert search_paths(vault, "coffee") == [unicodedata.normalize("NFC", "Café notes.md")]


def test_a_rename_between_spellings_equal_after_nfc_follows_the_disk_name(
    make_vault: MakeVault,
) -> None:
    """``Café.md`` (NFC) renamed to its NFD spelling keeps its key and its stat; the stored
    name on disk must follow, or ``reinforce café`` said "Café.md is gone ... run sync" and sync
    said "nothing to do" (fresh-user report); status showed no drift."""
    from vault_sync.report import vault_status

    nfc, nfd = (unicodedata.normalize(f, "Café.md") for f in ("NFC", "NFD"))
    vault = make_vault({nfc: "# Café\nbody word\n"})
    sync(vault)
    os.rename(vault / nfc, vault / nfd)
    engine = Engine.open(vault)
    status, _ = engine.read(lambda r: vault_status(engine.config, r.sidecar))
    assert status["drift"] == {
        "new": 0,
        "changed": 1,
        "deleted": 0,
        "unreadable": 0,
        "unreadable_new": 0,
    }
    _, report = sync(vault)
    assert (report.added, report.changed, report.moved, report.deleted) == (0, 1, 0, 0)
    assert sql(vault, "SELECT path, disk_path FROM pages") == [(nfc, nfd)]
    done = engine.write("reinforce", page="café", evidence="session:x")
    assert [p["path"] for p in done.pages] == [nfc]
    assert sorted(os.listdir(vault)) == [".obsidian", ".vault-sync", nfd]
    assert "session:x" in (vault / nfd).read_text(encoding="utf-8")


def test_pending_batch_is_redone(make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "one\n"})
    sync(vault)
    config = load_config(vault)
    db = sqlite3.connect(sidecar_path(config))
    db.execute("INSERT INTO pending VALUES ('a.md')")
    db.commit()
    db.close()
    _, report = sync(vault)
    assert report.changed == 1
    assert sql(vault, "SELECT count(*) FROM pending")[0][0] == 0


@pytest.mark.parametrize("point", ["after_journal", "after_index_commit"])
def test_killed_sync_is_repaired_by_the_next(
    make_vault: MakeVault, cli: Callable[..., object], point: str
) -> None:
    vault = make_vault({f"p{i}.md": f"word{i} common\n" for i in range(20)})
    killed = cli("--vault", str(vault), "sync", env={"VAULT_SYNC_FAULT": point})
    assert killed.code == -9  # type: ignore[attr-defined]
    again = cli("--vault", str(vault), "sync")
    assert again.code == 0, again.err  # type: ignore[attr-defined]
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 20
    assert len(search_paths(vault, "common", limit=100)) == 20


@pytest.mark.parametrize("point", ["after_journal", "during_batch", "after_index_commit"])
def test_a_killed_incremental_sync_is_redone_from_its_journal_without_a_rebuild(
    make_vault: MakeVault, cli: Callable[..., Any], point: str
) -> None:
    vault = make_vault({f"p{i}.md": f"word{i} common\n" for i in range(20)})
    assert cli("--vault", str(vault), "sync").code == 0
    config = load_config(vault)
    active = layout.active_set(config.store_path)
    for i in range(5):
        (vault / f"p{i}.md").write_text(f"word{i} common edited{i}\n", encoding="utf-8")
        (vault / f"n{i}.md").write_text(f"new{i} common\n", encoding="utf-8")
    (vault / "p19.md").unlink()
    killed = cli("--vault", str(vault), "sync", env={"VAULT_SYNC_FAULT": point})
    assert killed.code == -9, killed.err
    assert sql(vault, "SELECT count(*) FROM pending")[0][0] == 11  # the batch's journal
    again = cli("--vault", str(vault), "sync")
    assert again.code == 0, again.err
    # Redone from the journal: the same set, no repair notice, the batch's own counts.
    assert again.err == "", again.err
    assert layout.active_set(config.store_path) == active
    assert again.out.startswith("sync: 5 added, 5 changed, 0 moved, 1 deleted, 14 unchanged"), (
        again.out
    )
    assert sql(vault, "SELECT count(*) FROM pending")[0][0] == 0
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 24
    assert len(search_paths(vault, "common", limit=100)) == 24
    assert search_paths(vault, "edited3") == ["p3.md"]
    assert search_paths(vault, "word19") == []


def test_near_identical_names_are_distinct_pages_and_reported_n2(
    make_vault: MakeVault, cli: Callable[..., object]
) -> None:
    vault = make_vault(
        {
            "a b.md": "space name\n",
            "a-b.md": "dash name\n",
            "Finance/x.md": "finance page\n",
            "other.md": "---\nid: finance/x\n---\nclaims the id\n",
            "linker.md": "[[a b]] [[a-b]]\n",
        }
    )
    sync(vault)
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 5
    targets = dict(sql(vault, "SELECT target_text, target_path FROM links"))
    assert targets == {"a b": "a b.md", "a-b": "a-b.md"}
    lint = cli("--vault", str(vault), "lint", "--json")
    assert lint.code == 1  # type: ignore[attr-defined]
    problems = {(p["path"], p["code"]) for p in lint.json()["problems"]}  # type: ignore[attr-defined]
    assert {("a b.md", "name_collision"), ("a-b.md", "name_collision")} <= problems
    assert {("Finance/x.md", "duplicate_id"), ("other.md", "duplicate_id")} <= problems


def test_nfc_collision_on_disk_is_reported(
    make_vault: MakeVault, cli: Callable[..., object]
) -> None:
    vault = make_vault({})
    (vault / unicodedata.normalize("NFC", "Café.md")).write_text("one\n", encoding="utf-8")
    (vault / unicodedata.normalize("NFD", "Café.md")).write_text("two\n", encoding="utf-8")
    sync(vault)
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == 1
    lint = cli("--vault", str(vault), "lint", "--json").json()  # type: ignore[attr-defined]
    assert [p["code"] for p in lint["problems"]].count("name_collision") == 2


NFC_CAFE = unicodedata.normalize("NFC", "unicode/Café.md")
NFD_CAFE = unicodedata.normalize("NFD", "unicode/Café.md")


def _hit(vault: Path, cli: Callable[..., Any], word: str) -> list[tuple[str, str]]:
    out = cli("--vault", str(vault), "query", word, "--json")
    assert out.code == 0, out.err
    return [(h["path"], h["snippet"]) for h in out.json()["hits"]]


@pytest.mark.parametrize("command", ["sync", "rebuild"])
def test_names_equal_after_nfc_show_index_and_write_the_same_file(
    make_vault: MakeVault, cli: Callable[..., Any], command: str
) -> None:
    """Fresh-user report 3, item 8: ``Café.md`` in NFC and in NFD side by side. The hit's path
    (the NFC key) must be the file whose content is indexed and which a write edits: the NFC
    spelling wins, the NFD file is never read nor written, lint says which is indexed."""
    vault = make_vault({})
    (vault / "unicode").mkdir()
    (vault / NFC_CAFE).write_text("# Café NFC\nbody cafe nfcword\n", encoding="utf-8")
    (vault / NFD_CAFE).write_text("# Café NFD\nbody cafe nfdword\n", encoding="utf-8")
    nfd_bytes = (vault / NFD_CAFE).read_bytes()
    assert cli("--vault", str(vault), command).code == 0
    assert _hit(vault, cli, "nfcword") == [(NFC_CAFE, "Café NFC body cafe nfcword")]
    assert _hit(vault, cli, "nfdword") == []
    assert sql(vault, "SELECT path, disk_path FROM pages") == [(NFC_CAFE, NFC_CAFE)]
    out = cli("--vault", str(vault), "reinforce", "unicode/Café", "--evidence", "session:x1")
    assert out.code == 0, out.err
    assert out.out.startswith(f"--- a/{NFC_CAFE}\n+++ b/{NFC_CAFE}\n")
    assert (vault / NFC_CAFE).read_text(encoding="utf-8") == (
        "---\nevidence:\n  - session:x1\n---\n# Café NFC\nbody cafe nfcword\n"
    )
    assert (vault / NFD_CAFE).read_bytes() == nfd_bytes
    lint = cli("--vault", str(vault), "lint", "--json").json()["problems"]
    messages = sorted((p["path"], p["message"]) for p in lint if p["code"] == "name_collision")
    tail = " after Unicode normalisation: {} is indexed, the other spelling is never read"
    assert messages == [
        (NFD_CAFE, "unicode/Cafe\\u0301.md (NFD) equals unicode/Café.md (NFC)"
         + tail.format("unicode/Café.md (NFC)") + " (rename one)"),
        (NFC_CAFE, "unicode/Café.md (NFC) equals unicode/Cafe\\u0301.md (NFD)"
         + tail.format("this one") + " (rename one)"),
    ]  # fmt: skip


def test_a_link_to_proc_self_environ_is_never_indexed_and_a_stored_copy_goes(
    make_vault: MakeVault,
) -> None:
    """Fresh-user report 3, item 12.14: a cloned vault's ``env.md -> /proc/self/environ``
    put the environment into the index (and MCP served it). The CLI, run with a marker in
    its environment, must not find it; a page stored from ``env.md`` before is deleted; lint
    names the link and the FIFO it used to skip without a word."""
    vault = make_vault({"a.md": "alpha\n", "env.md": "stored before envmarkerzq\n"})
    env = {"VS_TEST_MARKER": "envmarkerzq"}
    assert run_cli("--vault", str(vault), "sync", env=env).code == 0
    assert run_cli("--vault", str(vault), "query", "envmarkerzq", env=env).out.count("env.md") == 1
    (vault / "env.md").unlink()
    (vault / "env.md").symlink_to("/proc/self/environ")
    os.mkfifo(vault / "pipe.md")
    out = run_cli("--vault", str(vault), "sync", "--json", env=env)
    assert out.code == 0, out.err
    assert (out.json()["deleted"], out.json()["errors"]) == (1, {})
    found = run_cli("--vault", str(vault), "query", "envmarkerzq", env=env)
    assert (found.code, found.out) == (0, "no pages found\n"), found
    shown = run_cli("--vault", str(vault), "show", "env", env=env)
    assert shown.code == 1 and "envmarkerzq" not in shown.out + shown.err, shown
    assert sql(vault, "SELECT path FROM pages") == [("a.md",)]
    lint = run_cli("--vault", str(vault), "lint", "--json", env=env).json()["problems"]
    named = {(p["path"], p["code"]): p["message"] for p in lint}
    assert named[("env.md", "skipped_symlink")].startswith(
        "symlink not followed: pseudo_fs (points to /proc/self/environ, on the pseudo file"
    )
    assert named[("pipe.md", "skipped_file")] == "a FIFO: never read"


def test_an_nfc_twin_made_after_a_sync_takes_the_page_over(
    make_vault: MakeVault, cli: Callable[..., Any]
) -> None:
    """A store made while only the NFD spelling existed (or by an older version, which kept the
    first in byte order: NFD) follows the rule at the next sync: the NFC file's content."""
    vault = make_vault({})
    (vault / "unicode").mkdir()
    (vault / NFD_CAFE).write_text("nfdword\n", encoding="utf-8")
    assert cli("--vault", str(vault), "sync").code == 0
    assert _hit(vault, cli, "nfdword") == [(NFC_CAFE, "nfdword")]
    (vault / NFC_CAFE).write_text("nfcword\n", encoding="utf-8")
    assert cli("--vault", str(vault), "sync").code == 0
    hits = (_hit(vault, cli, "nfcword"), _hit(vault, cli, "nfdword"))
    assert hits == ([(NFC_CAFE, "nfcword")], [])
    (vault / NFC_CAFE).unlink()
    assert cli("--vault", str(vault), "sync").code == 0
    hits = (_hit(vault, cli, "nfcword"), _hit(vault, cli, "nfdword"))
    assert hits == ([], [(NFC_CAFE, "nfdword")])


def test_a_cold_build_in_several_batches_resolves_every_link(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Links of a store set being built are resolved once, in its last batch: none is left
    ``new``, and links into pages of earlier and later batches resolve alike."""
    import vault_sync.batch_write as batch_write

    monkeypatch.setattr(batch_write, "BATCH_PAGES", 7)
    pages = {f"p{i:02}.md": f"[[p{(i + 13) % 30:02}]] [[p{(i + 3) % 30:02}#H]] [[nowhere]]\n"
             for i in range(30)}  # fmt: skip
    vault = make_vault(pages)
    _, report = sync(vault)
    assert report.batches == 5
    rows = dict(sql(vault, "SELECT status, count(*) FROM links GROUP BY status"))
    assert rows == {"resolved": 60, "unresolved": 30}


# A vault whose links cross batches both ways (forward references, aliases, a title, a
# case twin, a missing page), for comparing a store set built in bulk with one kept in step.
CROSS_BATCH = {
    **{
        f"d{i % 4}/p{i}.md": (
            f"---\ntitle: Title {i}\naliases: [alias{i}]\ntags: [t{i % 3}]\n"
            f"causes: ['[[p{(i + 7) % 20}]]']\nevidence: [session:s{i}]\n---\n"
            f"# Page {i}\n\nword{i} shared [[p{(i + 1) % 20}]] [[Title {(i + 5) % 20}]]"
            f" [[alias{(i + 11) % 20}]] [[nowhere{i}]]"
            f" [see](../d{(i + 2) % 4}/p{(i + 2) % 20}.md)\n"
        )
        for i in range(20)
    },
    "twin/P3.md": "case twin of p3\n",
}


def _rows(vault: Path, table: str) -> list[tuple[object, ...]]:
    skip = ("generation", "mtime_ns")  # differ by when each was written
    columns = [r[1] for r in sql(vault, f"PRAGMA table_info({table})") if r[1] not in skip]
    return sorted(sql(vault, f"SELECT {', '.join(columns)} FROM {table}"), key=repr)


def test_a_set_built_in_bulk_equals_one_kept_in_step(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import vault_sync.batch_write as batch_write

    monkeypatch.setattr(batch_write, "BATCH_PAGES", 3)  # 7 batches: links resolve across them
    built = make_vault(CROSS_BATCH)
    _, report = sync(built)  # the first sync builds a new store set in bulk
    assert report.batches == 7

    kept = make_vault({"seed.md": "seed\n"}, name="kept")
    sync(kept)  # later syncs write into the active set, batch by batch, resolving each time
    write_pages(kept, CROSS_BATCH)
    (kept / "seed.md").unlink()
    _, report = sync(kept)
    assert report.batches == 7

    for table in ("pages", "aliases", "tags", "links", "evidence", "issues"):
        assert _rows(built, table) == _rows(kept, table), table
    assert sql(built, "SELECT count(*) FROM links WHERE status = 'new'") == [(0,)]
    for word in ("shared", "word13", "alias4", "Title"):
        assert search_paths(built, word, limit=50) == search_paths(kept, word, limit=50)
    schema = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 2"
    migrated = Sidecar.open(tmp_path / "migrated.sqlite")  # the schema as migrations make it
    try:
        expected = list(migrated.db.execute(schema))
    finally:
        migrated.close()
    assert sql(built, schema) == expected  # every index dropped for the bulk load is back
    assert ("index", "links_target_key") in {r[:2] for r in expected}


def test_a_build_failing_between_batches_leaves_no_writer_and_the_next_sync_builds(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vault_sync.batch_write as batch_write
    import vault_sync.prepare as prepare_module
    from vault_sync.index import PageIndex

    monkeypatch.setattr(batch_write, "BATCH_PAGES", 3)
    vault = make_vault(CROSS_BATCH)
    real_load = prepare_module.load_page
    calls = []

    def failing_load(config: Config, entry: object):  # type: ignore[no-untyped-def]
        calls.append(entry)
        if len(calls) == 8:  # in the 3rd batch: two batches' adds are uncommitted
            raise RuntimeError("injected")
        return real_load(config, entry)  # type: ignore[arg-type]

    monkeypatch.setattr(prepare_module, "load_page", failing_load)
    with pytest.raises(RuntimeError, match="injected"):
        sync(vault)
    # rolled back: tantivy's lock on the half-built set's index is free for a new writer
    (half_built,) = (vault / ".vault-sync").glob("set-*")
    with PageIndex.open(layout.index_dir(half_built)).batch():  # IndexBusyError if held
        pass
    monkeypatch.setattr(prepare_module, "load_page", real_load)
    _, report = sync(vault)
    assert report.added == len(CROSS_BATCH)
    assert len(search_paths(vault, "shared", limit=50)) == 20


def _synced_in_process_then_pooled(make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sync CROSS_BATCH in small batches with pages prepared in process (the vault to compare
    with), then make every later sync prepare pages in worker processes, in tasks of 2."""
    import vault_sync.batch_write as batch_write
    import vault_sync.prepare as prepare_module

    monkeypatch.setattr(batch_write, "BATCH_PAGES", 3)
    monkeypatch.setattr(prepare_module, "PARALLEL_CHUNK_PAGES", 2)
    inline = make_vault(CROSS_BATCH, name="inline")
    sync(inline)
    monkeypatch.setattr(prepare_module, "PARALLEL_MIN_PAGES", 1)
    return inline


@pytest.mark.parametrize(
    ("threads", "spawn_allowed", "method"),
    [(1, False, "fork"), (2, True, "spawn"), (2, False, None)],  # None: prepared in process
)
def test_pages_prepared_in_worker_processes_are_stored_as_in_process(
    make_vault: MakeVault,
    monkeypatch: pytest.MonkeyPatch,
    threads: int,
    spawn_allowed: bool,
    method: str | None,
) -> None:
    import vault_sync.prepare as prepare_module

    inline = _synced_in_process_then_pooled(make_vault, monkeypatch)
    started: list[object] = []
    real_pool = concurrent.futures.ProcessPoolExecutor  # imported by prepare when it pools
    monkeypatch.setattr(
        concurrent.futures,
        "ProcessPoolExecutor",
        lambda *a, **kw: started.append(kw["mp_context"]) or real_pool(*a, **kw),
    )
    monkeypatch.setattr(prepare_module.threading, "active_count", lambda: threads)
    monkeypatch.setattr(prepare_module, "_spawn_allowed", spawn_allowed)
    pooled = make_vault(CROSS_BATCH, name="pooled")
    sync(pooled)
    methods = [context.get_start_method() for context in started]  # type: ignore[attr-defined]
    assert methods == ([method] if method else [])
    for table in ("pages", "aliases", "tags", "links", "evidence", "issues"):
        assert _rows(inline, table) == _rows(pooled, table), table
    for word in ("shared", "word13", "alias4", "Title", "p3"):
        assert search_paths(inline, word, limit=50) == search_paths(pooled, word, limit=50)


def test_a_page_that_cannot_be_read_is_an_error_not_an_exception(make_vault: MakeVault) -> None:
    import vault_sync.prepare as prepare_module

    vault = make_vault({"a.md": "one\n"})
    config = load_config(vault)
    entry = scan(config).pages["a.md"]
    (vault / "a.md").unlink()
    found, record, fields, error = prepare_module.prepare_page(config, entry)
    assert (found, record, fields) == (entry, None, None)
    assert error is not None and error.startswith("cannot read")


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in cmdline:
                found.append(int(entry.name))
    return found


def test_workers_of_a_killed_sync_exit_and_the_next_sync_builds(
    make_vault: MakeVault, cli: Callable[..., object]
) -> None:
    import vault_sync.prepare as prepare_module

    pages = prepare_module.PARALLEL_MIN_PAGES + 100  # enough for worker processes
    vault = make_vault({f"d{i % 7}/p{i}.md": f"word{i} common\n" for i in range(pages)})
    killed = cli("--vault", str(vault), "sync", env={"VAULT_SYNC_FAULT": "during_batch@2"})
    assert killed.code == -9  # type: ignore[attr-defined]
    deadline = time.monotonic() + 10
    while _processes_naming(str(vault)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_naming(str(vault)) == []  # no orphaned worker waits for work
    again = cli("--vault", str(vault), "sync")
    assert again.code == 0, again.err  # type: ignore[attr-defined]
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == pages


def _dying_chunk(config: Config, entries: list[object]):  # type: ignore[no-untyped-def]
    """A worker's task that kills its worker on one page (run by forked workers, by name)."""
    import vault_sync.prepare as prepare_module

    if any(getattr(e, "path", "") == "d1/p9.md" for e in entries):
        os._exit(3)
    return [prepare_module.prepare_page(config, e) for e in entries]  # type: ignore[arg-type]


def test_a_worker_that_dies_leaves_its_pages_to_this_process(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vault_sync.prepare as prepare_module

    inline = _synced_in_process_then_pooled(make_vault, monkeypatch)
    monkeypatch.setattr(prepare_module, "_prepare_chunk", _dying_chunk)
    pooled = make_vault(CROSS_BATCH, name="pooled")
    _, report = sync(pooled)
    assert report.added == len(CROSS_BATCH) and not report.errors
    for table in ("pages", "links", "evidence"):
        assert _rows(inline, table) == _rows(pooled, table), table


def test_ctrl_c_during_a_sync_with_workers_stops_it_quietly(make_vault: MakeVault) -> None:
    import signal
    import subprocess
    import sys

    import vault_sync.prepare as prepare_module

    pages = prepare_module.PARALLEL_MIN_PAGES * 3
    vault = make_vault({f"d{i % 7}/p{i}.md": f"word{i} common\n" for i in range(pages)})
    sync(vault)
    for path in vault.glob("d*/p*.md"):  # every page changed: a sync of modified pages,
        path.write_text(path.read_text() + "changed\n")  # whose workers often wait idle
    proc = subprocess.Popen(
        [sys.executable, "-m", "vault_sync", "--vault", str(vault), "sync"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # As a terminal's job gets it: Ctrl-C not ignored (a shell's background job, which may
        # run this suite, starts with SIGINT ignored, and exec keeps that).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    db = sqlite3.connect(f"file:{sidecar_path(load_config(vault))}?mode=ro", uri=True)

    def generation() -> int:
        return int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])

    before, batches = generation(), pages // 1000
    try:
        deadline = time.monotonic() + 60
        while generation() == before:  # a cheap poll: the first of six batches is committed
            assert proc.poll() is None, "the sync finished before it could be interrupted"
            assert time.monotonic() < deadline, "no first batch"
            time.sleep(0.005)
        # Stop the group where it is, so Ctrl-C lands mid-sync however loaded the machine is.
        os.killpg(proc.pid, signal.SIGSTOP)
        at = generation()
        workers = len(_processes_naming(str(vault)))
    finally:
        db.close()
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole group gets SIGINT
    os.killpg(proc.pid, signal.SIGCONT)
    assert at < before + batches, "stopped after the last batch: not mid-sync"
    assert workers >= 3, "the sync and its two (or more) workers"
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and err.strip() == "Aborted.", err
    again = subprocess.run(
        [sys.executable, "-m", "vault_sync", "--vault", str(vault), "sync"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert sql(vault, "SELECT count(*) FROM pages")[0][0] == pages


def test_file_states_of_roots_are_exactly_the_roots_and_what_is_under_them(
    make_vault: MakeVault,
) -> None:
    names = ["a.md", "a/b.md", "a/c/d.md", "a-b/x.md", "ab.md", "a0.md", "A/e.md", "%/f.md"]
    names += ["_/g.md", "é/h.md", "e/i.md"]
    vault = make_vault({name: f"{name}\n" for name in names})
    sync(vault)
    store = Sidecar.open(sidecar_path(load_config(vault)), readonly=True)
    try:
        assert set(store.file_states(["a"])) == {"a/b.md", "a/c/d.md"}
        assert set(store.file_states(["a.md", "a/c"])) == {"a.md", "a/c/d.md"}
        assert set(store.file_states(["%", "_", "é"])) == {"%/f.md", "_/g.md", "é/h.md"}
        assert set(store.file_states(["A"])) == {"A/e.md"}  # exact case, as paths are keys
        assert store.file_states(["nothing", "a/b"]) == {}
    finally:
        store.close()


def test_two_concurrent_syncs_never_both_report_the_same_changes(make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "one\n"})
    sync(vault)
    write_pages(vault, {f"n{i}.md": f"new page {i}\n" for i in range(5)})
    (vault / "a.md").write_text("one, edited\n", encoding="utf-8")
    others: list[tuple[int, int]] = []

    def another_sync_wins(total: int) -> None:
        # Called once this sync has its plan, before it takes the lock to apply it: the
        # other writer applies the same changes first (a second CLI sync started together).
        if not others:
            _, other = sync(vault)
            others.append((other.added, other.changed))

    _, ours = sync(vault, progress_start=another_sync_wins)
    assert others == [(5, 1)]
    assert (ours.added, ours.changed, ours.deleted) == (0, 0, 0)
    assert not ours.did_work
    assert ours.generation == 2


def _second_writer_gets_the_lock(config: Config) -> bool:
    """Whether another writer could take the writer lock right now (no waiting). It tries
    from another thread: in this one the lock is re-entrant (one per store folder in a
    process), so a try here would succeed while this thread holds it."""
    import threading

    from vault_sync.errors import LockTimeoutError
    from vault_sync.lock import WriterLock

    got: list[bool] = []

    def attempt() -> None:
        try:
            with WriterLock(config.store_path, timeout_s=0):
                got.append(True)
        except LockTimeoutError:
            got.append(False)

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return got == [True]


def test_pages_are_prepared_outside_the_writer_lock(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14, fault 5: a slow (hostile) page once held the lock while it parsed, and a
    second writer timed out. Each time a page is prepared, a second writer tries the lock."""
    import vault_sync.prepare as prepare_module

    vault = make_vault({"a.md": "# A\n", "b.md": "${ " * 100 + "\n"})
    sync(vault)
    (vault / "a.md").write_text("# A\n\nchanged\n", encoding="utf-8")
    (vault / "b.md").write_text("${ " * 200 + "\n", encoding="utf-8")
    real_prepare = prepare_module.prepare_page
    free: list[tuple[str, bool]] = []

    def prepare(config: Config, entry: Any) -> Any:
        free.append((entry.path, _second_writer_gets_the_lock(config)))
        return real_prepare(config, entry)

    monkeypatch.setattr(prepare_module, "prepare_page", prepare)
    _, report = sync(vault)
    assert (report.changed, report.errors) == (2, {})
    assert sorted(free) == [("a.md", True), ("b.md", True)]


def test_a_page_another_writer_stored_while_it_was_prepared_is_read_again(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Preparing outside the lock must not store an older read over a newer one: another
    writer (here nested, in the same process) stores b.md's newer text between this sync's
    read of b.md and its lock for b.md's batch; the batch reads it again under the lock."""
    import vault_sync.batch_write as batch_write
    import vault_sync.prepare as prepare_module

    vault = make_vault({"a.md": "alpha one\n", "b.md": "beta one\n"})
    sync(vault)
    monkeypatch.setattr(batch_write, "BATCH_PAGES", 1)  # a.md, then b.md: two batches
    (vault / "a.md").write_text("alpha two\n", encoding="utf-8")
    (vault / "b.md").write_text("beta two\n", encoding="utf-8")
    real_prepare = prepare_module.prepare_page
    reads: list[str] = []

    def prepare(config: Config, entry: Any) -> Any:
        prepared = real_prepare(config, entry)
        reads.append(entry.path)
        if reads == ["a.md", "b.md"]:  # the outer sync's read of b.md: now another writer
            (vault / "b.md").write_text("beta three\n", encoding="utf-8")
            os.utime(vault / "b.md", ns=(1, 1))  # a stat the outer plan never saw
            sync(vault)
        return prepared

    monkeypatch.setattr(prepare_module, "prepare_page", prepare)
    _, report = sync(vault)
    assert reads == ["a.md", "b.md", "b.md", "b.md"]  # outer, nested, outer again under lock
    assert (report.changed, report.errors) == (2, {})
    assert search_paths(vault, "three") == ["b.md"]
    assert search_paths(vault, "two") == ["a.md"]
    _, again = sync(vault)
    assert not again.did_work


def test_a_stored_page_whose_file_cannot_be_read_keeps_its_rows(open_folder: Path) -> None:
    """Issue 14, fault 1 at the file's level, as nobody: the folder lists, the page's stat
    says it changed, but reading it fails (mode 000): no proof it is gone, so its last good
    rows stay, the error names it, and once readable again the next sync stores it."""
    vault = write_pages(open_folder / "vault", {"a.md": "rfile alpha\n", "sub/p.md": "rfile in\n"})
    give_to_nobody(vault)
    env = {"HOME": str(open_folder)}

    def nobody(*args: str) -> Result:
        return run_cli("--vault", str(vault), *args, user=NOBODY, env=env)

    assert nobody("sync").code == 0
    page = vault / "sub/p.md"
    page.chmod(0o000)
    with page.open("a", encoding="utf-8") as f:  # root may still write there
        f.write("appended while unreadable\n")
    result = nobody("sync")
    assert "sub/p.md" in result.err and "Permission denied" in result.err, result.err
    hits = nobody("query", "rfile", "--json").json()["hits"]
    assert sorted(h["path"] for h in hits) == ["a.md", "sub/p.md"]
    assert nobody("status", "--json").json()["drift"]["deleted"] == 0
    page.chmod(0o644)
    assert nobody("sync").out.startswith("sync: 0 added, 1 changed, 0 moved, 0 deleted")
    hits = nobody("query", "appended", "--json").json()["hits"]
    assert [h["path"] for h in hits] == ["sub/p.md"]


def test_a_new_page_file_without_read_permission_is_counted_by_status(open_folder: Path) -> None:
    """``chmod 000`` on a page never synced (run unprivileged: root reads it): ``lint`` names
    it and ``status`` counts it too, apart from the stored pages it cannot read (fresh-user
    report: status said nothing of it)."""
    from tests.conftest import NOBODY, give_to_nobody, run_cli

    vault = write_pages(open_folder / "vault", {"p1.md": "alpha\n"})
    give_to_nobody(vault)

    def cli(*args: str) -> Any:
        return run_cli("--vault", str(vault), *args, user=NOBODY)

    assert cli("sync").code == 0
    for name in ("new.md", "sub/other.md"):
        (vault / name).parent.mkdir(exist_ok=True)
        (vault / name).write_text("secret plans\n", encoding="utf-8")
        (vault / name).chmod(0)
    give_to_nobody(vault)
    (vault / "notes.txt").write_text("an attachment\n", encoding="utf-8")
    (vault / "notes.txt").chmod(0)  # not a page: neither count holds it
    lint = cli("lint", "--json").json()
    assert sorted((p["path"], p["code"]) for p in lint["problems"]) == [
        ("new.md", "unreadable"),
        ("sub/other.md", "unreadable"),
    ]
    status = cli("status", "--json")
    assert status.code == 0, status.err
    assert status.json()["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 0,
        "unreadable_new": 2,
    }
    text = cli("status").out
    assert [line for line in text.splitlines() if line.startswith("drift:")] == [
        "drift: nothing for a sync to change; 2 new pages cannot be read (not indexed; see lint)"
    ]
    (vault / "p1.md").chmod(0)
    assert cli("status", "--json").json()["drift"]["unreadable"] == 1
    assert cli("status", "--json").json()["drift"]["unreadable_new"] == 2


def test_a_page_file_without_read_permission_is_reported_and_kept(open_folder: Path) -> None:
    """``chmod 000`` on a page (run unprivileged): ``lint`` and ``status`` name it, as they name
    an unreadable folder; after a ``touch`` sync keeps its stored page and commits no empty
    generation (fresh-user report: "nothing to do" yet generation 1 -> 2)."""
    from tests.conftest import NOBODY, give_to_nobody, run_cli

    vault = write_pages(open_folder / "vault", {"p1.md": "alpha\n", "p2.md": "beta\n"})
    give_to_nobody(vault)

    def cli(*args: str) -> Any:
        out = run_cli("--vault", str(vault), *args, "--json", user=NOBODY)
        assert out.code in (0, 1) and out.out, out.err
        return out.code, out.json()

    assert cli("sync")[1]["generation"] == 1
    (vault / "p2.md").chmod(0)
    code, lint = cli("lint")
    assert code == 1
    assert [(p["path"], p["code"]) for p in lint["problems"]] == [("p2.md", "unreadable")]
    assert cli("status")[1]["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 1,
        "unreadable_new": 0,
    }
    # fresh-user report: the text said "0 new, 0 changed, 0 deleted … (run vault-sync sync)"
    # though a sync changes nothing for an unreadable page
    status = run_cli("--vault", str(vault), "status", user=NOBODY)
    drift = [line for line in status.out.splitlines() if line.startswith("drift:")]
    assert drift == [
        "drift: nothing for a sync to change; 1 stored page cannot be read now (kept; see lint)"
    ], status.err
    (vault / "p3.md").write_text("gamma\n", encoding="utf-8")
    status = run_cli("--vault", str(vault), "status", user=NOBODY)
    assert [line for line in status.out.splitlines() if line.startswith("drift:")] == [
        "drift: 1 new, 0 changed, 0 deleted on disk since the last sync (run vault-sync sync);"
        " 1 stored page cannot be read now (kept; see lint)"
    ]
    (vault / "p3.md").unlink()
    os.utime(vault / "p2.md")
    code, report = cli("sync")
    assert code == 0
    assert (report["generation"], report["kept_unreadable"]) == (1, 1)
    assert report["errors"] == {"p2.md": "Permission denied"}
    assert sql(vault, "SELECT path FROM pages ORDER BY path") == [("p1.md",), ("p2.md",)]
    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"  # a folder name holding one
    (vault / f"keys-{token}").mkdir(mode=0)
    code, report = cli("sync")
    assert sorted(report["errors"]) == ["keys-[REDACTED:github_token]", "p2.md"]


def test_a_page_gone_while_the_batch_reads_it_is_a_delete_never_an_error(
    make_vault: MakeVault,
) -> None:
    """Judged once, when the read fails: the slow watcher run counted an error for a page
    renamed away mid-batch, then written again at its old path before the watcher looked."""
    vault = make_vault({"a.md": "alpha\n", "b.md": "beta\n"})
    sync(vault)
    (vault / "a.md").write_text("alpha changed\n", encoding="utf-8")

    def scan_then_remove(config: Any) -> Any:
        result = scan(config)
        (vault / "a.md").unlink()  # after the scan saw it changed, before the batch reads it
        return result

    _plan, report, _ = Engine.open(vault).sync(scanner=scan_then_remove)
    assert report.errors == {}
    assert sql(vault, "SELECT path FROM pages") == [("b.md",)]  # removed, as a delete is


def test_a_page_over_the_size_limit_is_read_to_it_and_named_by_lint(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 40 MB page held 1.1 GB while it was synced: a page is read up to
    ``MAX_PAGE_BYTES`` (at a line break), the rest left out, and an error says so."""
    import vault_sync.pagefile as pagefile
    import vault_sync.prepare as prepare_module

    lines = [f"line {n} lantern\n" for n in range(1, 200)] + ["ferret beyond the limit\n"]
    vault = make_vault({"big.md": "".join(lines)})
    data = (vault / "big.md").read_bytes()
    limit = data.index(b"line 100 ") + 5  # inside line 100: cut back to the end of line 99
    monkeypatch.setattr(pagefile, "MAX_PAGE_BYTES", limit)
    config = load_config(vault)
    entry = scan(config).pages["big.md"]
    page, state = prepare_module.load_page(config, entry)
    assert page.body == "".join(lines[:99])
    assert state.hash == pagefile.content_hash(data)  # of the whole file: edits are seen
    assert [(i.severity.value, i.code, i.line, i.message) for i in page.issues] == [
        (
            "error",
            "page_too_large",
            100,
            f"page of {len(data) / 2**20:.1f} MiB, over the {limit / 2**20:g} MiB a page is"
            " read to: indexed up to line 99, not from here on",
        )
    ]


def test_the_size_limit_cuts_a_long_line_between_characters(tmp_path: Path) -> None:
    import vault_sync.pagefile as pagefile

    (tmp_path / "one.md").write_bytes(b"x" * (pagefile.MAX_PAGE_BYTES - 1) + "éé\n".encode())
    entry = scan(Config(vault=tmp_path)).pages["one.md"]
    text, _digest, problem, size = pagefile.read_page(tmp_path, entry)
    assert (len(text), text[-1], problem, size) == (pagefile.MAX_PAGE_BYTES - 1, "x", None,
                                                      pagefile.MAX_PAGE_BYTES + 4)  # fmt: skip


def test_a_page_over_the_limit_is_hashed_whole_read_in_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the limit the rest is hashed chunk by chunk, never held (a 4 GB sparse file was
    read whole before it was cut: MemoryError): the hash is still the whole file's, so an
    edit past the limit is a change."""
    import vault_sync.pagefile as pagefile

    monkeypatch.setattr(pagefile, "MAX_PAGE_BYTES", 64)
    monkeypatch.setattr(pagefile, "_HASH_CHUNK", 10)
    data = b"".join(b"line %03d\n" % i for i in range(40))
    (tmp_path / "one.md").write_bytes(data)
    entry = scan(Config(vault=tmp_path)).pages["one.md"]
    text, digest, problem, size = pagefile.read_page(tmp_path, entry)
    assert (digest, size, problem) == (pagefile.content_hash(data), len(data), None)
    assert text == data[:63].decode()  # 7 whole lines of 9 bytes
    (tmp_path / "one.md").write_bytes(data[:-2] + b"X\n")
    assert pagefile.read_page(tmp_path, entry)[1] != digest


def test_the_writer_lock_is_reentrant_in_its_thread_and_never_inherited(tmp_path: Path) -> None:
    """One thread re-enters the lock through a second WriterLock of the same folder; a forked
    child (a sync's worker) holds none of it: its own try waits for the parent, and the
    parent still holds it after the child exits."""
    from vault_sync.errors import LockTimeoutError
    from vault_sync.lock import WriterLock, writer_busy

    store = tmp_path / "store"
    with WriterLock(store, timeout_s=0):
        with WriterLock(store, timeout_s=0):  # re-entered: no wait for itself
            assert writer_busy(store)
        pid = os.fork()
        if pid == 0:  # the child: exit 0 only when its try is refused
            try:
                WriterLock(store, timeout_s=0).acquire()
            except LockTimeoutError:
                os._exit(0)
            except BaseException:
                os._exit(2)
            os._exit(1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert writer_busy(store)
    assert not writer_busy(store)
