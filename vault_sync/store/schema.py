"""The sidecar's schema: an ordered list of small, named migrations (simonw/llm's pattern).

Part of :mod:`vault_sync.store`. :func:`migrate` applies those not yet recorded in the
``migrations`` table, each in one transaction with its row; a sidecar written by a newer
version is refused. The derived columns and index names the migrations make are defined in
:mod:`vault_sync.store.columns`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from vault_sync.errors import StoreError
from vault_sync.store.columns import (
    EVIDENCE_SUMS,
    FACT_COLUMNS,
    FACT_KEYS,
    PAGE_FACTS_INDEX,
    RANK_COLUMNS,
    RULE_LINKS_FROM,
    RULE_LINKS_INTO,
    RULE_LINKS_WHERE,
    evidence_sums,
    fact_key_sql,
    fill_rule_links,
    tags_json,
)


def split_statements(sql: str) -> Iterator[str]:
    """The complete SQL statements of ``sql``, in order, found by SQLite's own tokenizer
    (:func:`sqlite3.complete_statement`), so a ``;`` inside a string literal or a comment does
    not split a statement.

    Raises:
        StoreError: text is left after the last complete statement (a missing ``;``).
    """
    pieces = sql.split(";")
    pending = ""
    for piece in pieces[:-1]:  # each ends where a ";" was: a statement may end there
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""
    pending += pieces[-1]
    if any(line.strip() and not line.strip().startswith("--") for line in pending.splitlines()):
        raise StoreError(f"incomplete SQL statement in a migration: {pending.strip()[:80]!r}")


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run the statements of ``sql`` inside the caller's transaction.

    (``executescript`` would COMMIT the open transaction first on Python 3.11, so a migration
    and its ``migrations`` row could land apart.)
    """
    for statement in split_statements(sql):
        db.execute(statement)


def _m001_initial(db: sqlite3.Connection) -> None:
    _script(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE pages (
            path TEXT PRIMARY KEY,
            disk_path TEXT NOT NULL,
            id TEXT NOT NULL,
            id_key TEXT NOT NULL,
            path_key TEXT NOT NULL,
            path_id_key TEXT NOT NULL,
            stem_key TEXT NOT NULL,
            title TEXT NOT NULL,
            title_key TEXT NOT NULL,
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            project TEXT,
            valid_from TEXT,
            valid_to TEXT,
            hash TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            frontmatter TEXT NOT NULL,
            generation INTEGER NOT NULL
        );
        CREATE INDEX pages_id_key ON pages(id_key);
        CREATE INDEX pages_title_key ON pages(title_key);
        CREATE INDEX pages_path_id_key ON pages(path_id_key);
        CREATE TABLE aliases (path TEXT NOT NULL, alias TEXT NOT NULL, alias_key TEXT NOT NULL);
        CREATE INDEX aliases_path ON aliases(path);
        CREATE INDEX aliases_key ON aliases(alias_key);
        CREATE TABLE tags (path TEXT NOT NULL, tag TEXT NOT NULL);
        CREATE INDEX tags_path ON tags(path);
        CREATE TABLE links (
            source TEXT NOT NULL,
            target_text TEXT NOT NULL,
            target_key TEXT NOT NULL,
            target_last_key TEXT NOT NULL,
            target_path TEXT,
            type TEXT NOT NULL,
            anchor TEXT NOT NULL,
            display TEXT,
            line INTEGER NOT NULL,
            origin TEXT NOT NULL,
            status TEXT NOT NULL,
            candidates TEXT
        );
        CREATE INDEX links_source ON links(source);
        CREATE INDEX links_target_path ON links(target_path);
        CREATE INDEX links_target_key ON links(target_key);
        CREATE INDEX links_target_last_key ON links(target_last_key);
        CREATE INDEX links_status ON links(status);
        CREATE TABLE evidence (
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            at TEXT,
            note TEXT,
            line INTEGER NOT NULL,
            UNIQUE (path, kind, source)
        );
        CREATE TABLE issues (
            path TEXT NOT NULL,
            severity TEXT NOT NULL,
            code TEXT NOT NULL,
            message TEXT NOT NULL,
            line INTEGER,
            key TEXT
        );
        CREATE INDEX issues_path ON issues(path);
        CREATE TABLE attachments (path TEXT PRIMARY KEY);
        CREATE TABLE pending (path TEXT PRIMARY KEY);
        """,
    )


def _m002_name_indexes(db: sqlite3.Connection) -> None:
    """Index the path and stem keys, so link names can be looked up one at a time."""
    _script(
        db,
        """
        CREATE INDEX pages_path_key ON pages(path_key);
        CREATE INDEX pages_stem_key ON pages(stem_key);
        """,
    )


def _m003_links_type(db: sqlite3.Connection) -> None:
    """Index links by type: ``brief`` reads the ``contradicts`` and ``fixes`` edges of the
    whole vault (a scan of every link otherwise: 23 ms at 10k pages, 82k links)."""
    _script(db, "CREATE INDEX links_type ON links(type);")


def _m004_rule_links(db: sqlite3.Connection) -> None:
    """Covering partial indexes of the resolved supersession and contradiction links, from
    either end: the ranking reads those of every candidate page (~100 a query) in two index
    lookups instead of reading ~1,600 link rows (4-8 ms at 10k pages, 82k links; these
    indexes hold 2.7k of them)."""
    _script(
        db,
        f"""
        CREATE INDEX links_rule_source ON links(source, type, target_path)
            WHERE {RULE_LINKS_WHERE};
        CREATE INDEX links_rule_target ON links(target_path, type, source)
            WHERE {RULE_LINKS_WHERE};
        """,
    )


def _m005_generations(db: sqlite3.Connection) -> None:
    """Say which rows a batch wrote, for the watcher's briefing refresh
    (:mod:`vault_sync.brief_cache`): pages indexed by the generation that wrote them (a scan
    of every page row otherwise: ~6 ms CPU at 10k pages), and links stamped with the
    generation that inserted or last resolved them (a batch's new page can resolve the links
    of pages it did not write), indexed the same way."""
    _script(
        db,
        """
        CREATE INDEX pages_generation ON pages(generation);
        ALTER TABLE links ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX links_generation ON links(generation);
        """,
    )


def _m006_fact_keys(db: sqlite3.Connection) -> None:
    """The string values of :data:`FACT_KEYS` stored beside the frontmatter they come from
    (the writes fill them from the same SQL): each query read them out of the JSON of ~150
    pages (~0.23 ms of ~0.58 at 10k pages), ``brief`` out of every page's."""
    for key in FACT_KEYS:
        db.execute(f"ALTER TABLE pages ADD COLUMN {key}_key TEXT")
    sets = ", ".join(f"{key}_key = {fact_key_sql(key, 'frontmatter')}" for key in FACT_KEYS)
    db.execute(f"UPDATE pages SET {sets}")


def _m007_brief_reads(db: sqlite3.Connection) -> None:
    """Covering indexes for the two whole-table reads of ``brief`` (every page's evidence in
    page and line order, and the typed links it shows): read from the index alone, with no
    sort and no lookup of each row (10k pages, a fresh process: evidence 14 -> 9 ms, typed
    links 14 -> 8 ms)."""
    _script(
        db,
        """
        CREATE INDEX evidence_by_line ON evidence(path, line, kind, source, at);
        CREATE INDEX links_typed ON links(type, source, line, target_text, target_path);
        """,
    )


def _m008_evidence_sums(db: sqlite3.Connection) -> None:
    """What ranking and ``brief`` read of a page's evidence, kept in its ``pages`` row
    (:data:`EVIDENCE_SUMS`, filled on write from the page's evidence rows): the entries, the
    distinct sessions, the other entries and the newest day. A ranked query read the
    evidence rows of ~150 pages and counted them (~0.3 ms of ~7 at 10k pages), ``brief``
    every page's."""
    _script(
        db,
        """
        ALTER TABLE pages ADD COLUMN evidence_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE pages ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE pages ADD COLUMN other_evidence INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE pages ADD COLUMN newest_evidence TEXT NOT NULL DEFAULT '';
        """,
    )
    found: dict[str, list[tuple[str, str, str, str | None]]] = {}
    for row in db.execute("SELECT path, kind, source, at FROM evidence ORDER BY path, line"):
        found.setdefault(row[0], []).append(row)
    sets = ", ".join(f"{column} = ?" for column in EVIDENCE_SUMS)
    db.executemany(
        f"UPDATE pages SET {sets} WHERE path = ?",
        ((*evidence_sums(rows), path) for path, rows in found.items()),
    )


def _m009_rule_links_by_page(db: sqlite3.Connection) -> None:
    """The indexes of :func:`_m004_rule_links` ordered by both ends first, then the type: a
    page's rule links are one range of each (one seek from each end, not one per rule type:
    the ranking reads them for ~80 pages a query, 0.31 -> 0.20 ms at 10k pages)."""
    _script(
        db,
        f"""
        DROP INDEX links_rule_source;
        DROP INDEX links_rule_target;
        CREATE INDEX {RULE_LINKS_FROM} ON links(source, target_path, type)
            WHERE {RULE_LINKS_WHERE};
        CREATE INDEX {RULE_LINKS_INTO} ON links(target_path, source, type)
            WHERE {RULE_LINKS_WHERE};
        """,
    )


def _m010_page_facts(db: sqlite3.Connection) -> None:
    """A covering index of :data:`FACT_COLUMNS`: a page's facts in one index entry, in path
    order, instead of an entry of the primary key and a row of the table (which holds the
    frontmatter JSON too): ~80 candidate pages of a ranked query 0.30 -> 0.23 ms, and
    ``brief``'s read of every page's facts ~20 -> ~15 ms at 10k pages; +1.5 MB."""
    db.execute(f"CREATE INDEX {PAGE_FACTS_INDEX} ON pages({', '.join(FACT_COLUMNS)})")


def _m011_rank_reads(db: sqlite3.Connection) -> None:
    """Each page's tags and the resolved rule links touching it kept in its row
    (:data:`RANK_COLUMNS`, filled on write; the rule links of the pages a batch can change
    written again at its end), in the covering index of its facts: the ranking read them
    for ~80 candidate pages a query in three statements (rule links from each end, tags),
    one seek a page into each of three indexes; now one seek a page, beside its facts
    (a query on pages not read before at 10k pages, ~0.3 ms less)."""
    for column in RANK_COLUMNS:
        db.execute(f"ALTER TABLE pages ADD COLUMN {column} TEXT")
    found: dict[str, list[str]] = {}
    for path, tag in db.execute("SELECT path, tag FROM tags ORDER BY path, rowid"):
        found.setdefault(path, []).append(tag)
    db.executemany(
        "UPDATE pages SET tags_json = ? WHERE path = ?",
        ((tags_json(tags), path) for path, tags in found.items()),
    )
    fill_rule_links(db)
    db.execute(f"DROP INDEX IF EXISTS {PAGE_FACTS_INDEX}")
    db.execute(
        f"CREATE INDEX {PAGE_FACTS_INDEX} ON pages({', '.join((*FACT_COLUMNS, *RANK_COLUMNS))})"
    )


#: Ordered, named migrations; append only. The schema version is the list's length.
MIGRATIONS: tuple[tuple[str, Callable[[sqlite3.Connection], None]], ...] = (
    ("001_initial", _m001_initial),
    ("002_name_indexes", _m002_name_indexes),
    ("003_links_type", _m003_links_type),
    ("004_rule_links", _m004_rule_links),
    ("005_generations", _m005_generations),
    ("006_fact_keys", _m006_fact_keys),
    ("007_brief_reads", _m007_brief_reads),
    ("008_evidence_sums", _m008_evidence_sums),
    ("009_rule_links_by_page", _m009_rule_links_by_page),
    ("010_page_facts", _m010_page_facts),
    ("011_rank_reads", _m011_rank_reads),
)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """Apply every migration not yet recorded, each in one transaction with its row, and set
    ``meta.schema_version``.

    Raises:
        StoreError: the sidecar at ``path`` records a migration this version does not know
            (it was written by a newer vault-sync).
    """
    db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    done = {row[0] for row in db.execute("SELECT name FROM migrations")}
    known = {name for name, _ in MIGRATIONS}
    if done - known:
        newer = ", ".join(sorted(done - known))
        raise StoreError(
            f"sidecar {path} was written by a newer vault-sync (migrations {newer});"
            " upgrade vault-sync or run `vault-sync rebuild`"
        )
    for name, step in MIGRATIONS:
        if name in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            step(db)
            db.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
