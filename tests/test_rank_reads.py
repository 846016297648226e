"""The ranking's reads kept in each page's row (migration 011_rank_reads): its tags and the
resolved rule links touching it equal what the tables say, after a cold sync (a bulk load),
after every kind of change a later sync makes (in one batch and across batches), and after
the migration fills them in an older sidecar."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from vault_sync import batch_write, layout
from vault_sync.config import load_config
from vault_sync.store import Sidecar
from vault_sync.store.columns import PAGE_FACTS_INDEX, RANK_COLUMNS

PAGES = {
    "A.md": "---\nsupersedes: '[[Foo]]'\ntags: [a1, a2]\n---\nold [[B]] #a3\n",
    "B.md": "---\ntitle: Foo\ncontradicts: '[[C]]'\n---\nthe foo page\n",
    "C.md": "---\nsuperseded_by: '[[D]]'\nrelated: '[[A]]'\ntags: [c]\n---\nsee [[D]]\n",
    "D.md": "---\ncontradicts: ['[[C]]', '[[D]]', '[[Gone]]']\n---\nself and missing\n",
    "E.md": "---\nfixes: '[[A]]'\n---\nno rule links\n",
}


def _store(vault: Path) -> Sidecar:
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    return Sidecar.open(layout.sidecar_file(folder), readonly=True)


def _same(vault: Path) -> dict[str, list[tuple[str, str, str]]]:
    """Assert every page's kept reads equal the tables; give each page's rule links."""
    store = _store(vault)
    try:
        paths = sorted(store.page_paths())
        read = store.rank_rows(paths)
        assert [row for row, _, _ in read] == store.fact_rows(paths=paths)
        out = {}
        for row, links, tags in read:
            assert list(links) == store.rule_links_touching([row[0]]), row[0]
            assert tags == store.tags_of(row[0]), row[0]
            out[row[0]] = list(links)
        return out
    finally:
        store.close()


@pytest.mark.parametrize("batch_pages", [1000, 2], ids=["one-batch", "across-batches"])
def test_kept_rank_reads_equal_the_tables_after_every_kind_of_change(
    make_vault: Callable[..., Path],
    cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
    batch_pages: int,
) -> None:
    monkeypatch.setattr(batch_write, "BATCH_PAGES", batch_pages)
    vault = make_vault(PAGES)

    def sync() -> dict[str, list[tuple[str, str, str]]]:
        assert cli("--vault", str(vault), "sync").code == 0
        return _same(vault)

    links = sync()  # a cold sync: a bulk load, the links resolved at its end
    assert links["A.md"] == [("A.md", "supersedes", "B.md")]
    assert links["B.md"] == [("A.md", "supersedes", "B.md"), ("B.md", "contradicts", "C.md")]
    assert links["D.md"] == [("C.md", "superseded_by", "D.md"), ("D.md", "contradicts", "C.md")]
    assert links["E.md"] == []
    (vault / "Foo.md").write_text("the stem wins over the title\n")
    links = sync()  # a new page takes the link's resolution from B
    assert links["B.md"] == [("B.md", "contradicts", "C.md")]
    assert links["Foo.md"] == [("A.md", "supersedes", "Foo.md")]
    (vault / "E.md").write_text("---\nsuperseded_by: '[[A]]'\ntags: [e]\n---\nnow one\n")
    links = sync()  # a page edited: its own rule link and tags, and the far end's
    assert links["A.md"] == [("A.md", "supersedes", "Foo.md"), ("E.md", "superseded_by", "A.md")]
    (vault / "A.md").unlink()
    links = sync()  # a source gone: the far ends lose the links (E's target unresolved)
    assert links["Foo.md"] == [] and links["E.md"] == []
    (vault / "C.md").rename(vault / "Moved.md")
    links = sync()  # a target moved: the link by its old name resolves no more
    assert links["D.md"] == links["Moved.md"] == [("Moved.md", "superseded_by", "D.md")]
    (vault / "C.md").write_text("---\ntags: [back]\n---\nback again\n")
    links = sync()  # the old name back: the link by that name resolves to it again
    assert links["C.md"] == [("B.md", "contradicts", "C.md"), ("D.md", "contradicts", "C.md")]
    assert links["D.md"] == [("D.md", "contradicts", "C.md"), ("Moved.md", "superseded_by", "D.md")]


def test_the_migration_fills_the_kept_rank_reads(
    make_vault: Callable[..., Path], cli: Callable[..., Result]
) -> None:
    vault = make_vault(PAGES)
    assert cli("--vault", str(vault), "sync").code == 0
    before = _same(vault)
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    store = Sidecar.open(layout.sidecar_file(folder))
    try:  # a sidecar of migration 010: no such columns
        store.db.execute("DELETE FROM migrations WHERE name = '011_rank_reads'")
        store.db.execute(f"DROP INDEX {PAGE_FACTS_INDEX}")  # an indexed column cannot go
        for column in RANK_COLUMNS:
            store.db.execute(f"ALTER TABLE pages DROP COLUMN {column}")
    finally:
        store.close()
    Sidecar.open(layout.sidecar_file(folder)).close()  # the writer's open migrates
    assert _same(vault) == before
    store = _store(vault)
    try:
        plan = store.db.execute(
            f"EXPLAIN QUERY PLAN SELECT {', '.join(RANK_COLUMNS)} FROM pages INDEXED BY"
            f" {PAGE_FACTS_INDEX} WHERE path = 'A.md'"
        ).fetchall()
        assert plan[0][3].startswith(f"SEARCH pages USING COVERING INDEX {PAGE_FACTS_INDEX}")
    finally:
        store.close()
