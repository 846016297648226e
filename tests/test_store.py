"""Tests of vault_sync.store's migrations on real SQLite (the rest runs through sync's tests)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from vault_sync.errors import StoreError
from vault_sync.store import SCHEMA_VERSION, Sidecar, split_statements
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
