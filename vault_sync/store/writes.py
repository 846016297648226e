"""Rows into the sidecar: the redo journal, bulk loads and one transaction per batch.

Part of :mod:`vault_sync.store`. Only the one writer (holding the vault's writer lock) calls
these.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from itertools import chain
from typing import TYPE_CHECKING, Any

from vault_sync.store.columns import (
    EVIDENCE_SUMS,
    FACT_KEYS,
    RULE_LINK_TYPES,
    RULE_LINKS_FROM,
    RULE_LINKS_WHERE,
    fact_key_sql,
    fill_rule_links,
    rule_links_json,
    tags_json,
)
from vault_sync.store.reads import SQL_LOOKUP_MAX_LINKS, SidecarReads, SqlNames

if TYPE_CHECKING:  # link resolution and records load with the first write, not for a query
    from vault_sync.links import NameTable
    from vault_sync.store.records import FileState, PageRecord

_PAGE_TABLES = ("pages", "aliases", "tags", "evidence", "issues")
#: A ``pages`` row: ``PageRecord.page_row`` and the generation (``?1``-``?19``; the
#: frontmatter JSON is ``?18``), then the :data:`FACT_KEYS` columns read out of that JSON,
#: then ``PageRecord.evidence_sums`` (``?20``-``?23``, :data:`EVIDENCE_SUMS`), then the
#: :data:`~vault_sync.store.columns.RANK_COLUMNS`: its tags (``?24``) and its rule links
#: (written at the batch's end, once its links are resolved).
_INSERT_PAGE = (
    "INSERT INTO pages VALUES ("
    + ", ".join(f"?{n}" for n in range(1, 20))
    + "".join(f", {fact_key_sql(key, '?18')}" for key in FACT_KEYS)
    + "".join(f", ?{n}" for n in range(20, 20 + len(EVIDENCE_SUMS)))
    + f", ?{20 + len(EVIDENCE_SUMS)}, NULL)"
)


class SidecarWrites(SidecarReads):
    """The writes of :class:`~vault_sync.store.Sidecar`."""

    # -- bulk load ------------------------------------------------------------------------

    def begin_bulk_load(self) -> None:
        """Prepare a sidecar that no one reads yet (a store set being built) for many batches.

        Drops the secondary indexes (those the migrations created by ``CREATE INDEX``; primary
        keys and ``UNIQUE`` constraints stay, so inserts mean the same) and turns off fsync
        (``synchronous=OFF``): a crash loses the set being built, which is discarded anyway
        (``layout``'s ``BUILDING`` marker). Links resolve against in-memory name tables
        meanwhile. :meth:`end_bulk_load` puts both back. Building each index once, by sorting,
        instead of keeping it in step row by row took the SQLite part of a 10k-page cold sync
        from ~2.9 s to ~1 s (benchmarks/run.py, 2026-12-01).
        """
        rows = self.db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            " ORDER BY name"
        ).fetchall()
        self.db.execute("PRAGMA synchronous=OFF")
        with self.transaction() as db:
            for name, _sql in rows:
                db.execute(f'DROP INDEX "{name}"')
        self._dropped_indexes = [sql for _, sql in rows]

    def end_bulk_load(self) -> None:
        """Create the indexes :meth:`begin_bulk_load` dropped, and make commits durable again
        (``synchronous=NORMAL``, as :meth:`open` sets it)."""
        statements, self._dropped_indexes = self._dropped_indexes or [], None
        with self.transaction() as db:
            for sql in statements:
                db.execute(sql)
        self.db.execute("PRAGMA synchronous=NORMAL")

    # -- the redo journal -----------------------------------------------------------------

    def begin_pending(self, generation: int, paths: Iterable[str]) -> None:
        """Record, durably, that ``generation`` is about to change ``paths`` in both stores."""
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO pending VALUES (?)", ((p,) for p in paths))
            self.set_meta("pending_generation", str(generation))

    # -- the batch ------------------------------------------------------------------------

    def _delete_rows(self, paths: Sequence[str]) -> None:
        rows = [(p,) for p in paths]
        for table in _PAGE_TABLES:
            self.db.executemany(f"DELETE FROM {table} WHERE path = ?", rows)
        self.db.executemany("DELETE FROM links WHERE source = ?", rows)

    def _insert_pages(self, records: Sequence[PageRecord], generation: int) -> None:
        """Insert a batch's pages and their rows, one ``executemany`` per table for the whole
        batch."""
        db = self.db
        db.executemany(
            _INSERT_PAGE,
            [
                (*r.page_row, generation, *r.evidence_sums, tags_json(t for _, t in r.tag_rows))
                for r in records
            ],
        )
        db.executemany(
            "INSERT INTO aliases VALUES (?,?,?)", chain(*(r.alias_rows for r in records))
        )
        db.executemany("INSERT INTO tags VALUES (?,?)", chain(*(r.tag_rows for r in records)))
        db.executemany(
            "INSERT OR IGNORE INTO evidence VALUES (?,?,?,?,?,?)",
            chain(*(r.evidence_rows for r in records)),
        )
        db.executemany(
            "INSERT INTO issues VALUES (?,?,?,?,?,?)", chain(*(r.issue_rows for r in records))
        )
        db.executemany(
            "INSERT INTO links (source, target_text, target_key, target_last_key, type, anchor,"
            " display, line, origin, status, generation) VALUES (?,?,?,?,?,?,?,?,?,'new',?)",
            ((*row, generation) for row in chain(*(r.link_rows for r in records))),
        )

    def _resolve_links(
        self, where: str, params: Sequence[Any], generation: int, ends: set[str]
    ) -> int:
        """Resolve the links matching ``where`` again; add to ``ends`` both ends (before and
        after) of each rule link among them (their ``rule_links_json`` may change)."""
        rows = self.db.execute(
            f"SELECT rowid, target_text, source, origin, type, target_path FROM links"
            f" WHERE {where}",
            params,
        ).fetchall()
        # Few links (a watcher batch): look names up by SQL; many (a cold sync), or no
        # indexes to look them up by (a bulk load): load them all.
        from vault_sync.links import Resolver

        few = len(rows) < SQL_LOOKUP_MAX_LINKS and self._dropped_indexes is None
        table: NameTable | SqlNames = SqlNames(self.db) if few else self.name_table()
        resolver = Resolver(table)

        def updates() -> Iterator[tuple[str | None, str, str | None, int, int]]:
            # A generator, not a list: 822k links at 100k pages would hold ~130 MB more.
            # (SqlNames' lookups read pages and aliases, which this UPDATE never changes.)
            for rowid, target, source, origin, link_type, before in rows:
                found = resolver(target, source, origin)
                if link_type in RULE_LINK_TYPES:
                    ends.update(p for p in (source, before, found.target_path) if p is not None)
                candidates = found.candidates
                shown = json.dumps(candidates, ensure_ascii=False) if candidates else None
                yield found.target_path, found.status.value, shown, generation, rowid

        self.db.executemany(
            "UPDATE links SET target_path = ?, status = ?, candidates = ?, generation = ?"
            " WHERE rowid = ?",
            updates(),
        )
        return len(rows)

    def _rule_link_ends(self, sources: Sequence[str]) -> set[str]:
        """The far ends of the resolved rule links from the pages at ``sources`` (before the
        batch deletes them: those pages lose a link)."""
        sql = (
            f"SELECT target_path FROM links INDEXED BY {RULE_LINKS_FROM} WHERE"
            f" {RULE_LINKS_WHERE} AND source IN (SELECT value FROM json_each(?))"
        )
        return {row[0] for row in self.db.execute(sql, (json.dumps(list(sources)),))}

    def _write_rule_links(self, paths: set[str]) -> None:
        """Write ``rule_links_json`` (:data:`~vault_sync.store.columns.RANK_COLUMNS`) of the
        stored pages at ``paths`` from the links as they now stand."""
        if not paths:
            return
        wanted = sorted(paths)
        values = rule_links_json(self.rule_links_touching(wanted), wanted)
        self.db.executemany(
            "UPDATE pages SET rule_links_json = ? WHERE path = ?",
            ((value, path) for path, value in values.items()),
        )

    def _batch_keys(self, upserts: Sequence[PageRecord], gone: Sequence[str]) -> set[str]:
        """Every name key (:func:`~vault_sync.links.page_keys`) of the batch's pages, as
        stored before the batch and as written by it; empty during a bulk load (whose last
        batch resolves every link)."""
        from vault_sync.links import page_keys

        keys: set[str] = set()
        if self._dropped_indexes is not None:
            return keys
        for path in [*(r.path for r in upserts), *gone]:
            row = self.db.execute("SELECT title FROM pages WHERE path = ?", (path,)).fetchone()
            if row:
                sql = "SELECT alias FROM aliases WHERE path = ?"
                aliases = [a for (a,) in self.db.execute(sql, (path,))]
                keys |= page_keys(path, row[0], aliases)
        for record in upserts:
            keys |= page_keys(record.path, record.title, record.aliases)
        return keys

    def _resolve_affected(
        self,
        keys: set[str],
        paths: Sequence[str],
        attachments_changed: bool,
        generation: int,
        ends: set[str],
    ) -> None:
        """Re-resolve the links a batch can change (see :meth:`apply_batch`): new links,
        links into ``paths``, links whose target or its last part is one of ``keys``, and
        attachment links when the attachment list changed; each stamped with the batch's
        ``generation``; the ends of the rule links among them are added to ``ends``."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS batch_keys (k TEXT PRIMARY KEY)")
        self.db.execute("DELETE FROM batch_keys")
        self.db.executemany("INSERT OR IGNORE INTO batch_keys VALUES (?)", ((k,) for k in keys))
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS batch_paths (p TEXT PRIMARY KEY)")
        self.db.execute("DELETE FROM batch_paths")
        self.db.executemany("INSERT OR IGNORE INTO batch_paths VALUES (?)", ((p,) for p in paths))
        where = (
            "status = 'new'"
            " OR target_path IN (SELECT p FROM batch_paths)"
            " OR target_key IN (SELECT k FROM batch_keys)"
            " OR target_last_key IN (SELECT k FROM batch_keys)"
        )
        if attachments_changed:
            where += " OR status IN ('attachment', 'missing_attachment')"
        self._resolve_links(where, (), generation, ends)

    def apply_batch(
        self,
        generation: int,
        upserts: Sequence[PageRecord],
        deletes: Sequence[str],
        attachments: set[str] | None = None,
        touched: Sequence[tuple[str, FileState]] = (),
        resolve: bool = True,
    ) -> None:
        """Write one batch as one transaction and record ``generation`` complete.

        Args:
            generation: the batch's generation (the index was committed with it first).
            upserts: pages to insert or replace.
            deletes: paths whose rows go (pages deleted or moved away).
            attachments: the vault's full set of non-Markdown files from a complete scan, or
                ``None`` to keep the stored set.
            touched: pages whose mtime changed but content did not: only their state is updated.
            resolve: resolve links now. A store set being built (not yet read by anyone) passes
                False for all batches but its last, whose resolution then covers every link
                still ``new``: one pass over the names instead of one per batch.

        Links are re-resolved where the batch can change the answer: links of the batch's
        pages, links into changed or deleted pages, links whose target (whole, or its last
        path part) equals a key of a page written or deleted now — its path without ``.md``,
        stem, title or an alias, before or after the change: the only ways an unresolved or
        tied link can change — and attachment links when attachments changed.
        """
        changed = [r.path for r in upserts]
        gone = list(deletes)
        # A bulk load resolves all its links at its end (every one is still ``new``).
        keys = self._batch_keys(upserts, gone) if resolve else set()
        bulk = self._dropped_indexes is not None
        with self.transaction():
            ends = set(changed)  # pages whose rule_links_json the batch may change
            if not bulk:  # a bulk load writes each page once, into a new set: no rows to
                ends |= self._rule_link_ends([*changed, *gone])  # delete, no indexes
                self._delete_rows([*changed, *gone])

            self._insert_pages(upserts, generation)
            attachments_changed = False
            if attachments is not None and attachments != self.attachments():
                self.db.execute("DELETE FROM attachments")
                self.db.executemany(
                    "INSERT INTO attachments VALUES (?)", ((a,) for a in sorted(attachments))
                )
                attachments_changed = True
            self.db.executemany(
                "UPDATE pages SET mtime_ns = ?, size = ? WHERE path = ?",
                ((s.mtime_ns, s.size, p) for p, s in touched),
            )
            if resolve and (changed or gone or attachments_changed):
                self._resolve_affected(
                    keys, [*changed, *gone], attachments_changed, generation, ends
                )
            if not bulk:
                self._write_rule_links(ends)
            elif resolve:  # the bulk load's last batch resolved every link
                fill_rule_links(self.db)
            self.db.execute("DELETE FROM pending")
            self.set_meta("generation", str(generation))
            self.set_meta("last_sync", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
            self.db.execute("DELETE FROM meta WHERE key = 'pending_generation'")
