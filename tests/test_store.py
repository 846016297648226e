"""Tests of vault_sync.store's migrations on real SQLite (the rest runs through sync's tests)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from vault_sync import layout
from vault_sync.config import load_config
from vault_sync.errors import StoreError
from vault_sync.store import RULE_LINK_TYPES, SCHEMA_VERSION, Sidecar, split_statements
from vault_sync.store.columns import EVIDENCE_SUMS, FACT_KEYS, RULE_LINKS_WHERE, fact_key_sql
from vault_sync.store.schema import _script


def test_statements_split_where_sqlite_ends_them_not_at_every_semicolon() -> None:
    sql = """
        CREATE TABLE t (a TEXT); -- a comment; with a semicolon
        INSERT INTO t VALUES ('one; two');
        INSERT INTO t VALUES ('it''s; three');
    """
    assert list(split_statements(sql)) == [
        "CREATE TABLE t (a TEXT);",
        "-- a comment; with a semicolon\n        INSERT INTO t VALUES ('one; two');",
        "INSERT INTO t VALUES ('it''s; three');",
    ]


def test_an_unfinished_statement_is_an_error() -> None:
    with pytest.raises(StoreError, match="incomplete SQL statement"):
        list(split_statements("CREATE TABLE t (a TEXT); INSERT INTO t VALUES ('x')"))


def test_a_script_with_a_semicolon_literal_runs_inside_the_callers_transaction() -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("BEGIN IMMEDIATE")
    _script(db, "INSERT INTO meta VALUES ('note', 'a;b'); INSERT INTO meta VALUES ('x', ';');")
    assert db.in_transaction  # executescript would have committed here
    assert dict(db.execute("SELECT key, value FROM meta")) == {"note": "a;b", "x": ";"}
    db.execute("ROLLBACK")
    assert list(db.execute("SELECT * FROM meta")) == []


def test_a_new_sidecar_records_every_migration(tmp_path: Path) -> None:
    store = Sidecar.open(tmp_path / "sidecar.sqlite")
    try:
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
        rows = store.db.execute("SELECT count(*) FROM migrations").fetchone()[0]
        assert rows == SCHEMA_VERSION
        assert store.quick_check() == "ok"
    finally:
        store.close()


def test_a_sidecar_of_the_previous_version_gains_the_generation_stamps(tmp_path: Path) -> None:
    """Migration 005 on a store made by migrations 001-004: its links read as generation 0
    (older than any batch a reader has seen), the new ones as the batch that wrote them."""
    from vault_sync.store.schema import MIGRATIONS

    path = tmp_path / "sidecar.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    for name, step in MIGRATIONS[:4]:
        step(db)
        db.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
    db.execute("INSERT INTO meta VALUES ('schema_version', '4')")
    old = ("a.md", "b", "b", "b", None, "fixes", "", None, 3, "wikilink", "unresolved", None)
    db.execute("INSERT INTO links VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", old)
    db.close()
    store = Sidecar.open(path)
    try:
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert store.typed_links_since(-1, ["fixes"]) == [("a.md", 3, 1, "fixes", "b", None)]
        assert store.typed_links_since(0, ["fixes"]) == []
        assert store.written_since(0) == (0, [], 0)
    finally:
        store.close()


def test_rule_links_come_from_their_own_index_and_match_the_resolved_links(
    make_vault: Callable[..., Path], cli: Callable[..., Result]
) -> None:
    vault = make_vault(
        {
            "A.md": "---\nsuperseded_by: '[[B]]'\nrelated: '[[C]]'\n---\nold\n",
            "B.md": (
                "---\nsupersedes: ['[[A]]', '[[B]]', '[[Gone]]']\ntags: [b1, b2]\n---\n"
                "new [[A]] #b3\n"
            ),
            "C.md": "---\ncontradicts: '[[B]]'\nfixes: '[[A]]'\n---\nno\n",
            "D.md": "---\ncauses: '[[C]]'\n---\n![[C]]\n",
        }
    )
    assert cli("--vault", str(vault), "sync").code == 0
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    store = Sidecar.open(layout.sidecar_file(folder), readonly=True)
    try:
        assert store.rule_links_touching(["A.md"]) == [
            ("A.md", "superseded_by", "B.md"),
            ("B.md", "supersedes", "A.md"),
        ]
        assert store.rule_links_touching(["C.md", "D.md"]) == [("C.md", "contradicts", "B.md")]
        assert store.resolved_links_touching(["D.md"]) == [
            ("D.md", "causes", "C.md"),
            ("D.md", "embeds", "C.md"),
        ]
        for paths in (["A.md"], ["B.md", "D.md"], ["A.md", "B.md", "C.md", "D.md"], []):
            every = store.resolved_links_touching(paths)
            rules = [edge for edge in every if edge[1] in RULE_LINK_TYPES]
            assert store.rule_links_touching(paths) == sorted(rules), paths
            read = store.rank_rows(paths)
            assert sorted({link for _, links, _ in read for link in links}) == sorted(rules)
            for row, links, tags in read:
                assert list(links) == store.rule_links_touching([row[0]]), paths
                assert tags == store.tags_of(row[0])
            assert [row for row, _, _ in read] == store.fact_rows(paths=paths)
        assert store.tags_of("B.md") == ["b1", "b2", "b3"]
        plan = store.db.execute(
            f"EXPLAIN QUERY PLAN SELECT source, type, target_path FROM links INDEXED BY"
            f" links_rule_into WHERE {RULE_LINKS_WHERE} AND source != target_path"
            " AND target_path IN (SELECT value FROM json_each(?))",
            ['["A.md"]'],
        ).fetchall()
        assert plan[0][3].endswith("USING COVERING INDEX links_rule_into (target_path=?)")
    finally:
        store.close()


_FACT_PAGES = {
    "A.md": "---\ndate: 2024-05-01\nagent: codex\nsummary: one line\n---\nbody\n",
    "B.md": "---\ndate: [1, 2]\nagent: {a: 1}\nnote: '\"date\" in a value'\n---\nbody\n",
    "C.md": '---\nsummary: "s"\n---\nno keys read as dates\n',
    "D.md": "plain page\n",
}
#: What fact_rows read out of the JSON before migration 005 (key values that are strings).
_FACTS = {
    "A.md": ("2024-05-01", "codex", "one line"),
    "B.md": (None, None, None),
    "C.md": (None, None, "s"),
    "D.md": (None, None, None),
}


def _synced_sidecar(vault: Path, cli: Callable[..., Result]) -> Path:
    """The sidecar file of ``vault`` after a ``sync`` through the CLI."""
    assert cli("--vault", str(vault), "sync").code == 0
    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    return layout.sidecar_file(folder)


def test_fact_keys_are_filled_on_write_and_by_the_migration(
    make_vault: Callable[..., Path], cli: Callable[..., Result]
) -> None:
    path = _synced_sidecar(make_vault(_FACT_PAGES), cli)
    store = Sidecar.open(path)
    try:
        assert {r[0]: tuple(r[7:10]) for r in store.fact_rows()} == _FACTS
        # the columns hold what reading the JSON gives (the SQL fact_rows ran before 006)
        read = ", ".join(fact_key_sql(key, "frontmatter") for key in FACT_KEYS)
        from_json = store.db.execute(f"SELECT path, {read} FROM pages ORDER BY path")
        assert {row[0]: tuple(row[1:]) for row in from_json} == _FACTS
        # a sidecar of migration 005: the columns empty until 006 fills them from the JSON
        store.db.execute("UPDATE pages SET date_key = NULL, agent_key = NULL, summary_key = NULL")
        store.db.execute("DELETE FROM migrations WHERE name IN ('006_fact_keys', '010_page_facts')")
        store.db.execute("DROP INDEX pages_facts")  # an indexed column cannot be dropped
        for key in ("date", "agent", "summary"):
            store.db.execute(f"ALTER TABLE pages DROP COLUMN {key}_key")
    finally:
        store.close()
    store = Sidecar.open(path)
    try:
        assert {r[0]: tuple(r[7:10]) for r in store.fact_rows(paths=sorted(_FACTS))} == _FACTS
    finally:
        store.close()


_EVIDENCE_PAGES = {
    "E.md": (
        "---\nevidence:\n  - session:a @2024-01-02\n  - session:a @2025-01-01\n  - session:b\n"
        "  - ticket:T-1 @2024-03-04T10:00:00Z\n  - doc:x @not-a-date\n---\nbody\n"
    ),
    "F.md": "---\nevidence: [doc:y]\n---\nundated\n",
    "G.md": "no evidence\n",
}
#: (entries, sessions, other entries, newest day) of each page: a repeated source once.
_SUMS = {"E.md": (4, 2, 2, "2024-03-04"), "F.md": (1, 0, 1, ""), "G.md": (0, 0, 0, "")}


def test_evidence_sums_are_filled_on_write_and_by_the_migration(
    make_vault: Callable[..., Path], cli: Callable[..., Result]
) -> None:
    path = _synced_sidecar(make_vault(_EVIDENCE_PAGES), cli)
    store = Sidecar.open(path)
    try:
        assert {r[0]: tuple(r[10:]) for r in store.fact_rows()} == _SUMS
        rows = store.db.execute("SELECT path, kind, source, at FROM evidence ORDER BY path, line")
        assert [r[1:3] for r in rows if r[0] == "E.md"] == [
            ("session", "a"), ("session", "b"), ("ticket", "T-1"), ("doc", "x")
        ]  # fmt: skip
        # a sidecar of migration 007: no sums until 008 counts the evidence rows
        store.db.execute(
            "DELETE FROM migrations WHERE name IN ('008_evidence_sums', '010_page_facts')"
        )
        store.db.execute("DROP INDEX pages_facts")  # an indexed column cannot be dropped
        for column in EVIDENCE_SUMS:
            store.db.execute(f"ALTER TABLE pages DROP COLUMN {column}")
    finally:
        store.close()
    store = Sidecar.open(path)
    try:
        assert {r[0]: tuple(r[10:]) for r in store.fact_rows(paths=sorted(_SUMS))} == _SUMS
    finally:
        store.close()
