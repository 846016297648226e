"""The writer's checks of a store set and a rebuild's kept pages, exactly (issue 14's mutation
testing of engine.check_stores and engine._lost_pages), on real sets made by a real sync."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from vault_sync import engine, layout
from vault_sync.config import load_config
from vault_sync.engine import _lost_pages, check_stores, run_sync

MakeVault = Callable[..., Path]


def _synced(make_vault: MakeVault, pages: dict[str, str]) -> tuple[Path, Path]:
    vault = make_vault(pages)
    run_sync(load_config(vault))
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    return vault, folder


def _sql(folder: Path, statement: str) -> None:
    db = sqlite3.connect(layout.sidecar_file(folder))
    try:
        db.execute(statement)
        db.commit()
    finally:
        db.close()


def test_a_healthy_set_passes_and_each_missing_part_is_named(make_vault: MakeVault) -> None:
    _vault, folder = _synced(make_vault, {"a.md": "alpha\n", "b.md": "beta\n"})
    assert check_stores(folder) is None
    shutil.rmtree(layout.index_dir(folder))
    assert check_stores(folder) == "no index"
    layout.sidecar_file(folder).unlink()
    assert check_stores(folder) == "no sidecar"


def test_a_count_mismatch_is_damage_unless_a_batch_is_pending(make_vault: MakeVault) -> None:
    _vault, folder = _synced(make_vault, {"a.md": "alpha\n", "b.md": "beta\n"})
    _sql(folder, "DELETE FROM pages WHERE path = 'b.md'")
    assert check_stores(folder) == "index holds 2 pages, sidecar 1"
    _sql(folder, "INSERT INTO pending VALUES ('b.md')")  # an unfinished batch explains it
    assert check_stores(folder) is None


def test_a_sidecar_that_is_not_a_database_and_an_unusable_index_are_named(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    _vault, folder = _synced(make_vault, {"a.md": "alpha\n"})
    monkeypatch.setattr(engine, "VERIFY_RETRY_S", 0.0)
    meta = layout.index_dir(folder) / "meta.json"
    meta.write_text("{not json", encoding="utf-8")
    verdict = check_stores(folder)
    assert verdict is not None and verdict.startswith("index unusable: "), verdict
    sidecar = layout.sidecar_file(folder)
    for extra in (
        sidecar.with_name(sidecar.name + "-wal"),
        sidecar.with_name(sidecar.name + "-shm"),
    ):
        extra.unlink(missing_ok=True)
    sidecar.write_bytes(b"this is not a database" * 100)
    verdict = check_stores(folder)
    assert verdict is not None and verdict != "no sidecar", verdict
    assert "not a database" in verdict, verdict


def test_a_rebuild_keeps_only_the_pages_whose_files_are_not_proven_gone(
    make_vault: MakeVault, tmp_path: Path
) -> None:
    vault, old = _synced(make_vault, {"a.md": "a\n", "d/b.md": "b\n", "d/c.md": "c\n"})
    new = tmp_path / "built-set"
    shutil.copytree(old, new)
    _sql(new, "DELETE FROM pages WHERE path IN ('d/b.md', 'd/c.md')")
    config = load_config(vault)
    assert _lost_pages(config, old, new) == ["d/b.md", "d/c.md"]  # on disk, not in the build
    (vault / "d" / "c.md").unlink()
    assert _lost_pages(config, old, new) == ["d/b.md"]  # a deleted file is not lost
    assert _lost_pages(config, new, old) == []
    layout.sidecar_file(old).write_bytes(b"garbage" * 1000)
    assert _lost_pages(config, old, new) == []  # no rows to keep from a sidecar that is gone


def test_a_flipped_byte_in_an_index_segment_fails_the_checksums(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index opens and counts its documents without reading a segment's bytes: only the
    checksums see a flipped byte in the middle of its largest file."""
    _vault, folder = _synced(make_vault, {f"p{i}.md": f"page {i} " * 50 + "\n" for i in range(20)})
    monkeypatch.setattr(engine, "VERIFY_RETRY_S", 0.0)
    segment = max(
        (p for p in layout.index_dir(folder).iterdir() if p.suffix in {".store", ".idx", ".pos"}),
        key=lambda p: p.stat().st_size,
    )
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF
    segment.write_bytes(bytes(data))
    verdict = check_stores(folder)
    assert verdict is not None and verdict.startswith("index unusable: "), verdict


def test_a_sidecar_that_opens_but_fails_quick_check_is_named(make_vault: MakeVault) -> None:
    pages = {f"p{i}.md": f"common c2word{i} " + "filler text " * 40 + "\n" for i in range(80)}
    _vault, folder = _synced(make_vault, pages)
    sidecar = layout.sidecar_file(folder)
    size = sidecar.stat().st_size
    assert size > 3 * 8192, size
    with sidecar.open("r+b") as f:  # b-tree pages zeroed: the header still opens
        f.seek(size // 2)
        f.write(b"\0" * 8192)
    verdict = check_stores(folder)
    assert verdict is not None and verdict.startswith("sidecar damaged: "), verdict
    assert "\n" not in verdict


@pytest.mark.parametrize("kind", ["idx", "pos", "term", "store", "fast", "fieldnorm"])
@pytest.mark.parametrize("damage", ["garbage", "empty"])
def test_a_damaged_segment_file_is_rebuilt_by_the_next_reader_never_a_traceback(
    make_vault: MakeVault, cli: Callable[..., Any], kind: str, damage: str
) -> None:
    """Each kind of segment file written over (7 bytes) or emptied: tantivy panics opening or
    reading it (pyo3's PanicException, a BaseException, got past the readers' handlers and
    ended `query` in a traceback, exit 1, every time: the store was never rebuilt). Now the
    reader reports the damage, the stores are rebuilt from the vault, and the answer is right."""
    vault, folder = _synced(make_vault, {"a.md": "alpha storm\n", "b.md": "beta calm\n"})
    (segment,) = layout.index_dir(folder).glob(f"*.{kind}")
    segment.write_bytes(b"garbage" if damage == "garbage" else b"")
    out = cli("--vault", str(vault), "query", "storm", "--json")
    assert "Traceback" not in out.err and "PanicException" not in out.err, out.err
    assert out.code == 0, out.err
    assert [hit["path"] for hit in out.json()["hits"]] == ["a.md"]
    assert "stores rebuilt from the vault" in out.err
    again = cli("--vault", str(vault), "query", "calm", "--json")
    assert again.code == 0 and again.err == "", again.err
    assert [hit["path"] for hit in again.json()["hits"]] == ["b.md"]
