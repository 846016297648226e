"""Store safety and repair, end to end through the CLI: the stores are ours alone, damage is
repaired, and readers never see a half-built store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOBODY, Result, give_to_nobody, run_cli, write_pages
from vault_sync import layout
from vault_sync.app import Engine
from vault_sync.config import load_config

CLI = Callable[..., Any]
PAGES = {f"d{i % 3}/p{i}.md": f"# Page {i}\n\nword{i} common text\n" for i in range(30)}


@pytest.fixture
def vault(make_vault: Callable[..., Path]) -> Path:
    return make_vault(PAGES)


def active(vault: Path) -> Path:
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    return folder


def hits(cli: CLI, vault: Path, text: str, *extra: str) -> list[str]:
    result = cli("--vault", str(vault), "query", text, "--json", "--limit", "100", *extra)
    assert result.code == 0, result.err
    return [h["path"] for h in result.json()["hits"]]


@pytest.mark.parametrize("store_dir", [".", "./", "notes/..", "/tmp/x", "../out"])
def test_store_dir_must_be_a_folder_of_its_own(cli: CLI, vault: Path, store_dir: str) -> None:
    (vault / "vault-sync.toml").write_text(f'store_dir = "{store_dir}"\n', encoding="utf-8")
    result = cli("--vault", str(vault), "sync")
    assert result.code == 2, result.err
    assert "store_dir" in result.err and "Traceback" not in result.err


def test_store_dir_holding_user_files_is_refused_and_nothing_is_deleted(
    cli: CLI, vault: Path
) -> None:
    notes = vault / "notes" / "index"
    notes.mkdir(parents=True)
    (notes / "Reading.md").write_text("mine\n", encoding="utf-8")
    (notes / "photo.png").write_bytes(b"img")
    (vault / "vault-sync.toml").write_text('store_dir = "notes"\n', encoding="utf-8")
    for command in ("sync", "rebuild", "status"):
        result = cli("--vault", str(vault), command)
        assert result.code == 1, (command, result.err)
        assert "did not create" in result.err
    assert (notes / "Reading.md").read_text(encoding="utf-8") == "mine\n"
    assert (notes / "photo.png").read_bytes() == b"img"


def test_store_dir_that_is_a_file_is_a_clear_error(cli: CLI, vault: Path) -> None:
    (vault / "vault-sync.toml").write_text('store_dir = "d0/p0.md"\n', encoding="utf-8")
    result = cli("--vault", str(vault), "sync")
    assert result.code == 1
    assert "is a file" in result.err and "Traceback" not in result.err


@pytest.mark.parametrize(
    "toml",
    [
        "stor_dir = 'x'\n",
        "[watch]\ndebounce = 5\n",
        "lock_timeout_s = -5\n",
        "lock_timeout_s = 1e400\n",
        "[sanitize]\nextra_patterns = ['(unclosed']\n",
        "[watch]\ndebounce_ms = true\n",
    ],
)
def test_bad_config_is_exit_2_naming_the_key(cli: CLI, vault: Path, toml: str) -> None:
    (vault / "vault-sync.toml").write_text(toml, encoding="utf-8")
    result = cli("--vault", str(vault), "status")
    assert result.code == 2, result.err
    assert "vault-sync.toml" in result.err and "Traceback" not in result.err


def test_partly_damaged_sidecar_is_detected_and_rebuilt(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    sidecar = layout.sidecar_file(active(vault))
    size = sidecar.stat().st_size
    with sidecar.open("r+b") as f:
        f.seek(size // 2)
        f.write(b"\0" * min(8192, size // 2))
    status = cli("--vault", str(vault), "status", "--json")
    assert status.code == 0, status.err
    err = status.err
    assert err.startswith("vault-sync: stores rebuilt from the vault: sidecar damaged: "), err
    assert err.count("\n") == 1, "the notice is one line"
    assert status.json()["pages"] == 30


def test_index_damaged_in_place_is_repaired_by_a_query(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    index = layout.index_dir(active(vault))
    target = max(index.glob("*.store"), key=lambda p: p.stat().st_size)
    data = bytearray(target.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 64):
        data[i] ^= 0xFF
    target.write_bytes(bytes(data))
    assert cli("--vault", str(vault), "sync").code == 0  # the writer sees the checksum
    assert len(hits(cli, vault, "common")) == 30


def test_killed_rebuild_leaves_the_old_stores_serving(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    before = active(vault)
    killed = cli("--vault", str(vault), "rebuild", env={"VAULT_SYNC_FAULT": "after_index_commit"})
    assert killed.code == -9
    assert active(vault) == before
    assert len(hits(cli, vault, "common")) == 30
    again = cli("--vault", str(vault), "rebuild")
    assert again.code == 0, again.err
    assert active(vault) != before
    sets = [n for n in os.listdir(load_config(vault).store_path) if n.startswith("set-")]
    assert sets == [active(vault).name]
    assert len(hits(cli, vault, "common")) == 30


def test_generation_keeps_counting_across_rebuilds(cli: CLI, vault: Path) -> None:
    cli("--vault", str(vault), "sync")
    first = cli("--vault", str(vault), "status", "--json").json()["generation"]
    cli("--vault", str(vault), "rebuild")
    assert cli("--vault", str(vault), "status", "--json").json()["generation"] > first


def test_touch_without_change_makes_no_generation(cli: CLI, vault: Path) -> None:
    cli("--vault", str(vault), "sync")
    generation = cli("--vault", str(vault), "status", "--json").json()["generation"]
    os.utime(vault / "d0" / "p0.md", ns=(10**9, 10**9))
    assert "nothing to do" in cli("--vault", str(vault), "sync").out
    assert cli("--vault", str(vault), "status", "--json").json()["generation"] == generation


def test_show_by_file_name_relative_and_absolute_path(cli: CLI, vault: Path) -> None:
    (vault / "d1" / "Named.md").write_text("---\ntitle: Something else\n---\nx\n", "utf-8")
    for ref in ("Named", "./d1/Named.md", str(vault / "d1" / "Named.md"), "d1/named"):
        result = cli("--vault", str(vault), "show", ref, "--json")
        assert result.code == 0, (ref, result.err)
        assert result.json()["path"] == "d1/Named.md"
    assert cli("--vault", str(vault), "show", "  ").code == 2


def test_query_may_start_with_an_exclusion(cli: CLI, vault: Path) -> None:
    found = hits(cli, vault, "-word1 common")
    assert "d1/p1.md" not in found and len(found) == 29


def test_bad_ignore_pattern_in_config_is_exit_2(cli: CLI, vault: Path) -> None:
    (vault / "vault-sync.toml").write_text('ignore = ["[z-a]"]\n', encoding="utf-8")
    result = cli("--vault", str(vault), "sync")
    assert result.code == 2, result.err
    assert "[z-a]" in result.err and "Traceback" not in result.err


def test_bad_gitignore_line_is_a_lint_warning_not_a_crash(cli: CLI, vault: Path) -> None:
    (vault / ".gitignore").write_text("d2/\n[z-a]\n", encoding="utf-8")
    assert cli("--vault", str(vault), "sync").code == 0
    assert not any(p.startswith("d2/") for p in hits(cli, vault, "common"))
    problems = cli("--vault", str(vault), "lint", "--json").json()["problems"]
    assert [(p["path"], p["line"], p["code"]) for p in problems] == [
        (".gitignore", 2, "ignore_rules")
    ]


def test_concurrent_first_syncs_never_delete_each_others_store(
    make_vault: Callable[..., Path],
) -> None:
    """Two writers on a never-synced vault each build a store set in batches (the lock is
    released between batches): neither may prune the set the other is still building."""
    import subprocess
    import sys

    pages = {f"f{i % 20}/p{i}.md": f"page {i} sharedword\n" for i in range(2500)}
    root = make_vault(pages)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "vault_sync", "--vault", str(root), "sync"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    sets = [n for n in os.listdir(load_config(root).store_path) if n.startswith("set-")]
    assert sets == [active(root).name]
    from tests.conftest import run_cli

    result = run_cli("--vault", str(root), "status", "--json")
    assert result.json()["pages"] == 2500
    assert result.json()["drift"] == {
        "new": 0,
        "changed": 0,
        "deleted": 0,
        "unreadable": 0,
        "unreadable_new": 0,
    }


def test_prune_keeps_a_set_another_live_process_is_building(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = tmp_path / "store"
    layout.claim(root)
    builder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from vault_sync import layout;"
            " print(layout.new_set(Path(sys.argv[1])).name, flush=True); time.sleep(60)",
            str(root),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert builder.stdout is not None
        name = builder.stdout.readline().strip()
        layout.prune(root)
        assert (root / name).is_dir()  # its builder is alive
    finally:
        builder.kill()
        builder.wait()
    layout.prune(root)
    assert not (root / name).exists()  # its builder died: an abandoned set


def test_half_written_files_of_a_killed_writer_do_not_look_like_damage(
    cli: CLI, vault: Path
) -> None:
    """A writer killed mid-merge leaves segment files meta.json does not name: not damage."""
    assert cli("--vault", str(vault), "sync").code == 0
    from vault_sync.engine import check_stores

    index = layout.index_dir(active(vault))
    (index / ("0123456789abcdef" * 2 + ".idx")).write_bytes(b"half a segment")
    live = next(index.glob("*.idx")).name.split(".")[0]
    (index / f"{live}.99.del").write_bytes(b"half a delete bitset")
    assert check_stores(active(vault)) is None
    result = cli("--vault", str(vault), "sync")
    assert result.code == 0 and "rebuilt" not in result.err


def test_a_second_watcher_is_refused_naming_the_first(make_vault: Callable[..., Path]) -> None:
    import subprocess
    import sys

    from tests.conftest import run_cli

    root = make_vault({"a.md": "alpha\n"})
    first = subprocess.Popen(
        [sys.executable, "-m", "vault_sync", "--vault", str(root), "watch", "--json-log"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stderr is not None
        first.stderr.readline()  # the start-up reconcile's line: it runs
        second = run_cli("--vault", str(root), "watch", timeout=30)
        assert second.code == 1
        assert f"pid {first.pid}" in second.err and "Traceback" not in second.err
        assert "watching" not in second.err, second.err  # said only by the one that runs
    finally:
        first.terminate()
        first.wait(timeout=30)
    assert first.returncode == 0


def test_a_vault_without_pages_is_not_rebuilt_at_every_sync(
    make_vault: Callable[..., Path], cli: CLI
) -> None:
    root = make_vault({})
    (root / "notes.txt").write_text("not a page\n", encoding="utf-8")
    cli("--vault", str(root), "sync")
    before = active(root)
    again = cli("--vault", str(root), "sync")
    assert again.code == 0 and "rebuilt" not in again.err
    assert active(root) == before


def test_writers_skip_the_full_check_while_the_stamp_holds(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vault_sync.engine as engine

    config = load_config(vault)
    Engine(config).sync()  # builds a set, and stamps it
    folder = active(vault)
    assert layout.stamp_matches(folder)
    checks: list[Path] = []
    real_check = engine.check_stores
    monkeypatch.setattr(engine, "check_stores", lambda f: checks.append(f) or real_check(f))

    (vault / "d0" / "p0.md").write_text("# Page 0\n\nchanged common text\n", encoding="utf-8")
    Engine(config).sync()
    assert checks == []  # the files were as the last writer left them
    assert layout.stamp_matches(folder)  # ... and are stamped again after this write

    segment = max(layout.index_dir(folder).glob("*.idx"), key=lambda p: p.stat().st_size)
    os.utime(segment, ns=(1, 1))  # any change from outside: size, mtime or inode
    assert not layout.stamp_matches(folder)
    Engine(config).sync()
    assert checks == [folder]


def test_a_cheap_check_never_stamps_a_set_it_did_not_check(vault: Path) -> None:

    config = load_config(vault)
    Engine(config).sync()
    folder = active(vault)
    (folder / layout.STAMP_NAME).unlink()
    (vault / "d1" / "p1.md").write_text("# Page 1\n\nchanged\n", encoding="utf-8")
    Engine(config).sync(full_check=False)  # a watcher batch: only "are both there?"
    assert not (folder / layout.STAMP_NAME).exists()
    Engine(config).sync()  # a full check passes: stamped again
    assert layout.stamp_matches(folder)


def test_damage_after_the_stamp_is_still_repaired_by_the_next_writer(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    sidecar = layout.sidecar_file(active(vault))
    sidecar.write_bytes(b"\0" * sidecar.stat().st_size)  # same size; mtime moves on
    result = cli("--vault", str(vault), "sync")
    assert result.code == 0, result.err
    assert result.err == (
        f"vault-sync: stores rebuilt from the vault: sidecar {sidecar}"
        " is unreadable: file is not a database\n"
    )
    assert result.out.startswith("sync: 30 added, 0 changed, 0 moved, 0 deleted"), result.out
    assert len(hits(cli, vault, "common")) == 30


def test_a_sync_prunes_the_set_a_killed_rebuild_left(cli: CLI, vault: Path) -> None:
    assert cli("--vault", str(vault), "sync").code == 0
    killed = cli("--vault", str(vault), "rebuild", env={"VAULT_SYNC_FAULT": "after_journal"})
    assert killed.code == -9
    root = load_config(vault).store_path
    assert len([n for n in os.listdir(root) if n.startswith("set-")]) == 2
    (vault / "d0" / "p0.md").write_text("# Page 0\n\nedited common\n", encoding="utf-8")
    assert cli("--vault", str(vault), "sync").code == 0
    assert [n for n in os.listdir(root) if n.startswith("set-")] == [active(vault).name]


def test_changed_sanitize_or_projects_settings_store_every_page_again(
    cli: CLI, make_vault: Callable[..., Path]
) -> None:
    vault = make_vault(
        {"a.md": "# Note\n\ninternal code ACME-SECRET-12345 here\n", "p/b.md": "b\n"}
    )
    assert cli("--vault", str(vault), "sync").code == 0

    def found(text: str) -> str:
        return cli("--vault", str(vault), "query", text, "--json").out  # type: ignore[no-any-return]

    assert "ACME-SECRET-12345" in found("internal")
    (vault / "vault-sync.toml").write_text(
        '[sanitize]\nextra_patterns = ["ACME-SECRET-[0-9]+"]\n[projects]\n"p/**" = "pay"\n',
        encoding="utf-8",
    )
    result = cli("--vault", str(vault), "sync")
    assert result.code == 0 and "[sanitize] settings" in result.err, result.err
    assert "ACME-SECRET-12345" not in found("internal")
    assert "[REDACTED:custom]" in found("internal")
    assert "custom" in cli("--vault", str(vault), "lint").out
    assert hits(cli, vault, "b", "--project", "pay") == ["p/b.md"]
    assert "nothing to do" in cli("--vault", str(vault), "sync").out  # the same settings again


@pytest.mark.parametrize("locked", ["sub", "sub/p.md"])
def test_rebuild_that_cannot_read_stored_pages_keeps_the_current_stores(
    open_folder: Path, locked: str
) -> None:
    """Issue 14, fault 2, as nobody: an unreadable folder or file is not a deleted page."""
    vault = write_pages(
        open_folder / "vault",
        {".obsidian/app.json": "{}", "a.md": "rtwo alpha\n", "sub/p.md": "rtwo inside\n"},
    )
    give_to_nobody(vault)
    env = {"HOME": str(open_folder)}

    def nobody(*args: str) -> Result:
        return run_cli("--vault", str(vault), *args, user=NOBODY, env=env)

    assert nobody("sync").code == 0
    active = layout.active_set(load_config(vault).store_path)
    (vault / locked).chmod(0o000)
    result = nobody("rebuild")
    assert (result.code, result.out) == (1, ""), result.out + result.err
    assert result.err == (
        "Error: rebuild kept the current stores: 1 stored pages cannot be read now"
        " (sub/p.md; see vault-sync lint); make them readable and rebuild again\n"
    )
    assert layout.active_set(load_config(vault).store_path) == active
    assert active is not None
    sets = [n for n in os.listdir(load_config(vault).store_path) if n.startswith("set-")]
    assert sets == [active.name], "the set built without the pages was discarded"
    query = nobody("query", "rtwo", "--json")
    assert sorted(h["path"] for h in query.json()["hits"]) == ["a.md", "sub/p.md"]
    (vault / locked).chmod(0o755 if locked == "sub" else 0o644)
    assert nobody("rebuild").code == 0


def test_pages_written_while_a_rebuild_builds_are_in_the_rebuilt_stores(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fresh-user report: a ``remember`` (or a watcher batch) during ``rebuild`` failed it
    ("1 stored pages cannot be read now"), and its page would have been lost at the switch.
    Here another writer adds, edits and deletes pages right after the build's scan."""
    import vault_sync.vault as vault_module
    from vault_sync.engine import run_rebuild, run_sync

    config = load_config(vault)
    run_sync(config)
    original, calls = vault_module.scan, []
    victim = "d0/p0.md"

    def scan_then_another_writer(cfg: Any) -> Any:
        result = original(cfg)
        calls.append(1)
        if len(calls) == 1:  # the rebuild's own scan, before anything else moved
            (vault / victim).unlink()
            wrote = run_cli(
                "--vault", str(vault), "remember", "Written meanwhile", "--kind", "note",
                "--body", "zzmeanwhile page",
            )  # fmt: skip
            assert wrote.code == 0, wrote.err  # another process, into the active set
        return result

    monkeypatch.setattr(vault_module, "scan", scan_then_another_writer)
    run_rebuild(config)
    monkeypatch.setattr(vault_module, "scan", original)
    hits, notice = Engine(config).search("zzmeanwhile", limit=5)
    assert ([h.path for h in hits], notice) == (["notes/Written meanwhile.md"], None)
    again = run_sync(config).report
    assert (again.added, again.changed, again.deleted) == (0, 0, 0)  # nothing to catch up


def _root_store_vault(open_folder: Path) -> tuple[Path, Callable[..., Result]]:
    """A vault and its stores made by root; the returned function runs the CLI as nobody."""
    vault = write_pages(
        open_folder / "vault",
        {".obsidian/app.json": "{}", "a.md": "rthree alpha [[b]]\n", "b.md": "# B\n\nrthree\n"},
    )
    assert run_cli("--vault", str(vault), "sync").code == 0  # as root

    def nobody(*args: str) -> Result:
        return run_cli("--vault", str(vault), *args, user=NOBODY, env={"HOME": str(open_folder)})

    return vault, nobody


def _store_files(vault: Path) -> dict[str, tuple[int, int]]:
    root = load_config(vault).store_path
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_a_store_another_user_made_is_read_read_only(open_folder: Path) -> None:
    """Issue 14, fault 3: every read command answers as nobody, from a store root made (no
    write lock, no -shm, no repair), and leaves every store file as it was."""
    vault, nobody = _root_store_vault(open_folder)
    before = _store_files(vault)
    query = nobody("query", "rthree", "--json")
    assert (query.code, query.err) == (0, ""), query.err
    assert sorted(h["path"] for h in query.json()["hits"]) == ["a.md", "b.md"]
    status = nobody("status", "--json")
    assert (status.code, status.err, status.json()["pages"]) == (0, "", 2), status.err
    show = nobody("show", "b", "--json")
    assert (show.code, show.err) == (0, ""), show.err
    lint = nobody("lint", "--json")
    assert (lint.code, lint.err, lint.json()["errors"]) == (0, "", 0), lint.err
    assert _store_files(vault) == before


def test_a_store_another_user_made_opens_as_a_snapshot_that_is_never_kept(
    open_folder: Path,
) -> None:
    # a sidecar SQLite opens `immutable` never sees a later commit: the flag tells the MCP
    # server (which keeps its connection between queries) to open it again for each query
    vault, _ = _root_store_vault(open_folder)
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    code = (
        "import sys; from pathlib import Path; from vault_sync.store import Sidecar\n"
        "print(Sidecar.open(Path(sys.argv[1]), readonly=True).immutable)\n"
    )
    runs = {
        who: subprocess.run(
            [*user, sys.executable, "-c", code, str(layout.sidecar_file(folder))],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for who, user in (("nobody", NOBODY), ("owner", ()))
    }
    assert runs == {"nobody": "True\n", "owner": "False\n"}


def test_a_read_that_needs_a_sync_it_cannot_make_says_so_in_one_line(open_folder: Path) -> None:
    vault, nobody = _root_store_vault(open_folder)
    store = load_config(vault).store_path
    shutil.rmtree(store)
    result = nobody("query", "rthree")
    assert result.code == 1, result.err
    assert result.err.startswith("Error: the stores need a sync (no store yet), which failed: ")
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert not store.exists()


def test_a_sidecar_with_a_wal_but_no_shm_is_refused_in_one_line(open_folder: Path) -> None:
    """mode=ro needs the -shm of a WAL database; immutable=1 would skip the -wal's commits."""
    vault, nobody = _root_store_vault(open_folder)
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    sidecar = layout.sidecar_file(folder)
    script = (  # a root writer that dies leaving its commits in the -wal
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "db.execute('PRAGMA wal_autocheckpoint=0')\n"
        "db.execute(\"UPDATE meta SET value = value WHERE key = 'generation'\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script, str(sidecar)], check=True)
    assert Path(f"{sidecar}-wal").exists()
    Path(f"{sidecar}-shm").unlink()
    result = nobody("status")
    assert result.code == 1, result.out
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    assert "sidecar.sqlite-wal file holds commits that need a sidecar.sqlite-shm" in result.err


def _remove_a_positions_file(vault: Path) -> str:
    pos = sorted(layout.index_dir(active(vault)).glob("*.pos"))
    assert pos, "the index has a positions file"
    pos[0].unlink()
    return pos[0].name


def test_a_missing_index_file_is_found_by_the_next_writer(cli: CLI, vault: Path) -> None:
    """Issue 14, fault 4: the writer's checks cover every file a live segment needs."""
    assert cli("--vault", str(vault), "sync").code == 0
    name = _remove_a_positions_file(vault)
    again = cli("--vault", str(vault), "sync")
    assert again.code == 0, again.err
    assert again.err.startswith("vault-sync: stores rebuilt from the vault: index unusable:")
    assert f"missing {name}" in again.err
    assert len(hits(cli, vault, "common")) == 30


def test_damage_a_reader_meets_is_flagged_and_repaired(cli: CLI, vault: Path) -> None:
    """A query that meets a damaged index flags the set: the repair rebuilds it even where a
    writer's check would pass (here the stamp says the files are as the writer left them)."""
    assert cli("--vault", str(vault), "sync").code == 0
    folder = active(vault)
    _remove_a_positions_file(vault)
    layout.write_stamp(folder)  # the damage hides from the stamp
    result = cli("--vault", str(vault), "query", '"common text"', "--json")
    assert result.code == 0, result.err
    assert "stores rebuilt from the vault: a reader found the store damaged" in result.err
    assert len(result.json()["hits"]) == 10
    assert active(vault) != folder


def _empty_the_index(vault: Path, how: str) -> None:
    index = layout.index_dir(active(vault))
    if how == "folder-gone":
        shutil.rmtree(index)
        return
    for file in index.iterdir():  # "rm -rf index/*": tantivy's hidden files stay
        if how == "all-files" or not file.name.startswith("."):
            file.unlink()


@pytest.mark.parametrize("how", ["visible-files", "all-files", "folder-gone"])
@pytest.mark.parametrize("command", ["query", "status"])
def test_an_emptied_index_is_damage_never_zero_hits(
    cli: CLI, vault: Path, command: str, how: str
) -> None:
    """A reader meeting an index folder emptied or gone made a new empty index there
    (tantivy creates one in an empty folder): ``query`` said "no pages found" (exit 0) and
    ``status`` took every page for drift, until a ``sync``. A reader never makes an index:
    it flags the set, which is rebuilt with a one-line notice, and answers (issue 14 fault 4)."""
    assert cli("--vault", str(vault), "sync").code == 0
    folder = active(vault)
    _empty_the_index(vault, how)
    args = ("query", "common", "--limit", "100") if command == "query" else ("status",)
    result = cli("--vault", str(vault), *args, "--json")
    assert result.code == 0, result.err
    assert result.err == (
        "vault-sync: stores rebuilt from the vault: a reader found the store damaged:"
        " damaged store found while reading: index at"
        f" {layout.index_dir(folder)} is damaged: its meta.json is missing\n"
    )
    if command == "query":
        assert len(result.json()["hits"]) == 30
    else:
        assert result.json()["pages"] == 30
        drift = {"new": 0, "changed": 0, "deleted": 0, "unreadable": 0, "unreadable_new": 0}
        assert result.json()["drift"] == drift
    assert active(vault) != folder
    assert len(hits(cli, vault, "common")) == 30


@pytest.mark.parametrize("first", ["sync", "query"])
def test_an_index_of_another_version_is_rebuilt_though_no_file_changed(
    cli: CLI, vault: Path, first: str
) -> None:
    """An upgrade that changes the index schema leaves the files as the last writer stamped
    them: ``sync`` said "nothing to do" and every query failed ("has another schema: rebuild
    it"). The writer's check now opens the index under this version's schema."""
    assert cli("--vault", str(vault), "sync").code == 0
    folder = active(vault)
    meta = layout.index_dir(folder) / "meta.json"
    text = meta.read_text(encoding="utf-8")
    from vault_sync.index import SCHEMA_VERSION

    older = text.replace(f"_v{SCHEMA_VERSION}", f"_v{SCHEMA_VERSION - 1}")
    assert older != text
    meta.write_text(older, encoding="utf-8")  # the index as the previous version wrote it
    layout.write_stamp(folder)  # ... and stamped by that version
    if first == "sync":
        result = cli("--vault", str(vault), "sync")
        assert result.code == 0, result.err
        assert result.err.startswith("vault-sync: stores rebuilt from the vault: index unusable:")
        assert "has another schema" in result.err
    result = cli("--vault", str(vault), "query", "common", "--json")
    assert result.code == 0, result.err
    assert len(result.json()["hits"]) == 10
    assert active(vault) != folder


@pytest.mark.parametrize("command", ["show", "lint", "status"])
def test_a_sidecar_value_that_is_not_utf8_is_repaired_by_the_read(
    cli: CLI, vault: Path, command: str
) -> None:
    """Bytes that are not UTF-8 in a TEXT column pass quick_check; reading them fails."""
    import sqlite3

    assert cli("--vault", str(vault), "sync").code == 0
    db = sqlite3.connect(layout.sidecar_file(active(vault)))
    bad = "CAST(x'ff' AS TEXT)"
    db.execute(f"UPDATE pages SET title = {bad}, id = {bad}, kind = {bad}, status = {bad}")
    db.execute(  # lint reads the issues
        "INSERT INTO issues (path, severity, code, message)"
        f" VALUES ('d0/p1.md', 'error', {bad}, 'x')"
    )
    db.commit()
    assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    db.close()
    args = {"show": ["show", "d0/p0", "--json"], "lint": ["lint"], "status": ["status"]}
    result = cli("--vault", str(vault), *args[command])
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    assert result.err.startswith(
        "vault-sync: stores rebuilt from the vault: a reader found the store damaged:"
        " damaged store found while reading: Could not decode to UTF-8 column"
    ), result.err
    assert result.err.count("\n") == 1
    if command == "show":
        assert result.json()["title"] == "p0"  # the file stem, as rebuilt


def test_a_missing_pages_row_is_repaired_by_show(cli: CLI, make_vault: Callable[..., Path]) -> None:
    import sqlite3

    vault = make_vault({"a.md": "---\naliases: [first]\n---\nbody\n"})
    assert cli("--vault", str(vault), "sync").code == 0
    db = sqlite3.connect(layout.sidecar_file(active(vault)))
    db.execute("DELETE FROM pages")
    db.commit()
    db.close()
    result = cli("--vault", str(vault), "show", "first", "--json")
    assert result.code == 0, result.err
    assert "no pages row" in result.err and "Traceback" not in result.err
    assert result.json()["path"] == "a.md"


def test_the_engine_object_is_the_one_entry_of_a_front_end(tmp_path: Path) -> None:
    """Issue 15: one object, opened once with a config, wires sync, search, reads, lint,
    redact and the watcher (the CLI goes through it)."""

    token = "ghp_" + "dZ3kQ9xLmP2vR8sT4wY6bN1cF5hJ7gA0eK3u"
    vault = write_pages(tmp_path / "v", {"a.md": "lantern [[b]]\n", "b.md": f"key {token}\n"})
    engine = Engine.open(vault)
    assert engine.config.vault == vault.resolve()
    _plan, report, notice = engine.sync()
    assert (report.added, notice) == (2, None)
    hits, notice = engine.search("lantern")
    assert [h.path for h in hits] == ["a.md"] and notice is None
    count, _ = engine.read(lambda reader: reader.sidecar.page_count())
    assert count == 2
    problems, _ = engine.lint()
    assert [(p["path"], p["code"]) for p in problems] == [("b.md", "secret")]
    found = engine.redact([], every_page=True, write=False)
    assert [(r.path, len(r.found)) for r in found if r.found] == [("b.md", 1)]
    assert engine.rebuild().report.added == 2
    watcher = engine.watcher(lambda line: None)
    assert watcher.config == engine.config


def test_a_read_leaves_the_stamp_intact(vault: Path) -> None:
    """A reader opening the sidecar creates an empty WAL file; that is no change of the
    stores, so the next writer skips the full check (it ran after every read: ~130 ms at 10k
    pages, on every agent write)."""
    config = load_config(vault)
    Engine(config).sync()
    folder = active(vault)
    assert layout.stamp_matches(folder)
    count, _ = Engine(config).read(lambda r: r.sidecar.page_count(), check_sidecar=False)
    assert count > 0
    assert (folder / "sidecar.sqlite-wal").exists()
    assert layout.stamp_matches(folder)


def test_a_store_made_in_a_git_repository_is_never_offered_for_a_commit(tmp_path: Path) -> None:
    """A read command on a repository holding only a README (named with ``--vault``: found
    from inside it, a git repository is no vault by its Markdown alone) syncs first and makes
    the store there (no ``init``, so no ``.gitignore`` line): the store folder ignores itself, so
    ``git status`` shows nothing new; a store made before the file existed gets it at the next
    writer."""
    repo = write_pages(tmp_path / "repo", {"README.md": "# readme\n\nhow to build\n"})
    git = ("git", "-c", "user.name=t", "-c", "user.email=t@x", "-c", "init.defaultBranch=main")
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "init"], check=True)

    def untracked() -> str:
        status = [*git, "-C", str(repo), "status", "--porcelain", "--untracked-files=all"]
        return subprocess.run(status, check=True, capture_output=True, text=True).stdout

    result = run_cli("--vault", str(repo), "query", "readme", "--json", cwd=repo)
    assert result.code == 0, result.err
    assert (repo / ".vault-sync" / layout.MARKER_NAME).is_file()
    assert untracked() == ""
    (repo / ".vault-sync" / layout.GITIGNORE_NAME).unlink()  # a store from before the file
    assert untracked() != ""
    assert run_cli("--vault", str(repo), "sync", cwd=repo).code == 0
    assert untracked() == ""
