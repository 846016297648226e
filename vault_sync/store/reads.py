"""Rows out of the sidecar: the connection, and the reads of sync, link resolution and the
reports.

Part of :mod:`vault_sync.store`. Every query the reports (:mod:`vault_sync.report`) and the
engine's checks need is a named method here, so a schema change touches the store only; the
ranking's and the briefing's reads are in :mod:`vault_sync.store.graph_reads`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_sync.store.graph_reads import GraphReads

if TYPE_CHECKING:  # link resolution and records load with the first write, not for a query
    from vault_sync.links import NameTable
    from vault_sync.store.records import FileState

#: Below this many links to resolve, names are looked up by SQL (indexed, ~20 µs each)
#: instead of loading every page's names (~60 ms at 10k pages): measured on a 10k-page vault.
SQL_LOOKUP_MAX_LINKS = 2000


class _SqlIndex:
    """A read-only mapping ``name key -> path(s)`` answered by one indexed SQL query."""

    def __init__(self, db: sqlite3.Connection, sql: str, many: bool) -> None:
        self.db, self.sql, self.many = db, sql, many

    def _rows(self, key: str) -> list[str]:
        return [row[0] for row in self.db.execute(self.sql, (key,))]

    def get(self, key: str, default: Any = None) -> Any:
        rows = self._rows(key)
        if self.many:
            return rows or default
        return rows[0] if rows else default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and bool(self._rows(key))

    def __getitem__(self, key: str) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value


class SqlNames:
    """The :class:`~vault_sync.links.NameTable` lookups, answered by SQL against the sidecar
    (pages) and a small in-memory table (attachments)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        pages = "SELECT path FROM pages WHERE {} = ? ORDER BY path"
        self.by_path = _SqlIndex(db, pages.format("path_key"), True)
        self.by_path_id = _SqlIndex(db, pages.format("path_id_key"), True)
        self.by_stem = _SqlIndex(db, pages.format("stem_key"), True)
        self.by_title = _SqlIndex(db, pages.format("title_key"), True)
        self.by_alias = _SqlIndex(
            db, "SELECT DISTINCT path FROM aliases WHERE alias_key = ? ORDER BY path", True
        )
        from vault_sync.links import NameTable

        attachments = NameTable()
        for (path,) in db.execute("SELECT path FROM attachments"):
            attachments.add_attachment(path)
        self.att_by_path = attachments.att_by_path
        self.att_by_name = attachments.att_by_name


class SidecarReads(GraphReads):
    """One connection to ``sidecar.sqlite`` and everything read from it (the base of
    :class:`~vault_sync.store.Sidecar`); the reads of the ranking and the briefing come from
    :class:`~vault_sync.store.graph_reads.GraphReads`."""

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        #: ``CREATE INDEX`` statements dropped by ``begin_bulk_load``, to run at its end.
        self._dropped_indexes: list[str] | None = None

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back if the block raises)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[int]:
        """A read transaction: every read inside the block sees one commit, whose generation
        it yields (a pinned snapshot, so a batch committed meanwhile is seen by none of them).
        Inside a transaction already open on this connection, that one is used."""
        if self.db.in_transaction:
            yield self.generation
            return
        self.db.execute("BEGIN")  # deferred: the snapshot is taken by the first read, below
        try:
            yield self.generation
        finally:
            if self.db.in_transaction:
                self.db.execute("COMMIT")

    # -- meta -----------------------------------------------------------------------------

    def get_meta(self, key: str, default: str = "") -> str:
        """Return a ``meta`` value, or ``default``."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Set a ``meta`` value (inside the caller's transaction, if any)."""
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @property
    def generation(self) -> int:
        """The last generation recorded as complete (0 for a new sidecar)."""
        return int(self.get_meta("generation", "0"))

    def pending(self) -> set[str]:
        """Paths of a batch that started but was never recorded complete (redo them)."""
        return {row[0] for row in self.db.execute("SELECT path FROM pending")}

    def quick_check(self) -> str:
        """SQLite's ``PRAGMA quick_check`` verdict: ``"ok"``, or the first problem found.

        Raises:
            sqlite3.DatabaseError: the file is too damaged to run it.
        """
        return str(self.db.execute("PRAGMA quick_check").fetchone()[0])

    def quick_check_problem(self) -> str | None:
        """:meth:`quick_check` as one line (``sidecar damaged: ...``), or ``None`` when "ok":
        its verdict can span lines (one per damaged b-tree page), a notice is one line.

        Raises:
            sqlite3.DatabaseError: the file is too damaged to run it.
        """
        verdict = self.quick_check()
        return None if verdict == "ok" else "sidecar damaged: " + " ".join(verdict.split())

    # -- reads ----------------------------------------------------------------------------

    def file_states(self, roots: Iterable[str] | None = None) -> dict[str, FileState]:
        """Return ``{path: FileState}`` for every stored page, or only for pages equal to or
        under one of ``roots`` (vault-relative NFC paths: a watcher batch's scope)."""
        from vault_sync.store.records import FileState  # here: a query reads no file state

        sql = "SELECT path, hash, mtime_ns, size, disk_path FROM pages"
        if roots is None:
            return {p: FileState(h, m, s, d) for p, h, m, s, d in self.db.execute(sql)}
        # The root itself, and the paths under it as a range of the primary key: `root/` up
        # to `root0` ('0' follows '/'), exact code-point order, one index seek per root. (A
        # `LIKE 'root/%'` scanned the whole table per root: a 3,000-path watcher batch on an
        # 8,000-page vault took 7.5 s instead of ~0.1 s; found by the fresh-user run.)
        found: dict[str, FileState] = {}
        for root in roots:
            rows = self.db.execute(
                f"{sql} WHERE path = ? OR (path >= ? AND path < ?)", (root, f"{root}/", f"{root}0")
            )
            found.update((p, FileState(h, m, s, d)) for p, h, m, s, d in rows)
        return found

    def disk_paths(self) -> dict[str, str]:
        """Return ``{path: disk_path}`` of every stored page (the on-disk name of each)."""
        return dict(self.db.execute("SELECT path, disk_path FROM pages"))

    def page_count(self) -> int:
        """Number of stored pages."""
        return int(self.db.execute("SELECT count(*) FROM pages").fetchone()[0])

    def attachments(self) -> set[str]:
        """Paths of the vault's non-Markdown files, as last scanned."""
        return {row[0] for row in self.db.execute("SELECT path FROM attachments")}

    def name_table(self) -> NameTable:
        """Build the link-resolution tables from every stored page and attachment."""
        from vault_sync.links import NameTable

        table = NameTable()
        aliases: dict[str, list[str]] = {}
        for path, alias in self.db.execute("SELECT path, alias FROM aliases"):
            aliases.setdefault(path, []).append(alias)
        for path, title in self.db.execute("SELECT path, title FROM pages"):
            table.add_page(path, title, aliases.get(path, ()))
        for (path,) in self.db.execute("SELECT path FROM attachments"):
            table.add_attachment(path)
        return table

    # -- reports --------------------------------------------------------------------------

    def paths_named(self, key: str) -> list[list[str]]:
        """Pages a name key (:func:`~vault_sync.page.name_key`) names, by tier: id or path,
        file stem, title, alias (``show``'s order); each tier's paths sorted."""
        tiers = (
            ("SELECT path FROM pages WHERE id_key = ? OR path_key = ? OR path_id_key = ?",
             (key, key, key)),
            ("SELECT path FROM pages WHERE stem_key = ?", (key.removesuffix(".md"),)),
            ("SELECT path FROM pages WHERE title_key = ?", (key,)),
            ("SELECT DISTINCT path FROM aliases WHERE alias_key = ?", (key,)),
        )  # fmt: skip
        return [sorted({str(row[0]) for row in self.db.execute(s, p)}) for s, p in tiers]

    def page_row(self, path: str) -> sqlite3.Row:
        """The ``pages`` row of ``path`` (columns by name).

        Raises:
            IndexError: no page is stored at ``path``.
        """
        return self.query("SELECT * FROM pages WHERE path = ?", (path,))[0]

    def links_from(self, path: str) -> list[sqlite3.Row]:
        """The page's own links, in line order."""
        return self.query("SELECT * FROM links WHERE source = ? ORDER BY line, rowid", (path,))

    def links_into(self, path: str) -> list[sqlite3.Row]:
        """Links of other pages resolved to ``path``, by source and line."""
        return self.query(
            "SELECT * FROM links WHERE target_path = ? AND source != ? ORDER BY source, line",
            (path, path),
        )

    def evidence_of(self, path: str) -> list[sqlite3.Row]:
        """The page's evidence rows, in line order."""
        return self.query("SELECT * FROM evidence WHERE path = ? ORDER BY line", (path,))

    def issues_of(self, path: str) -> list[sqlite3.Row]:
        """The page's issues, in line order."""
        return self.query("SELECT * FROM issues WHERE path = ? ORDER BY line", (path,))

    def tags_of(self, path: str) -> list[str]:
        """The page's tags, as stored."""
        return [r[0] for r in self.db.execute("SELECT tag FROM tags WHERE path = ?", (path,))]

    def aliases_of(self, path: str) -> list[str]:
        """The page's aliases, as stored."""
        sql = "SELECT alias FROM aliases WHERE path = ?"
        return [r[0] for r in self.db.execute(sql, (path,))]

    def _counts(self, sql: str) -> dict[str, int]:
        return {str(k): int(n) for k, n in self.db.execute(sql)}

    def _count(self, sql: str) -> int:
        return int(self.db.execute(sql).fetchone()[0])

    def status_counts(self) -> dict[str, Any]:
        """The counts ``status`` shows: pages (by kind), links (by status; resolved and
        unresolved by type; ambiguous), evidence rows, parse errors and secrets."""
        return {
            "pages_by_kind": self._counts(
                "SELECT kind, count(*) FROM pages GROUP BY kind ORDER BY kind"
            ),
            "links_by_status": self._counts("SELECT status, count(*) FROM links GROUP BY status"),
            "links_by_type": self._counts(
                "SELECT type, count(*) FROM links WHERE status IN ('resolved', 'unresolved')"
                " GROUP BY type ORDER BY type"
            ),
            "links_ambiguous": self._count(
                "SELECT count(*) FROM links WHERE candidates IS NOT NULL"
            ),
            "evidence_rows": self._count("SELECT count(*) FROM evidence"),
            "parse_errors": self._count(
                "SELECT count(*) FROM issues WHERE severity = 'error' AND code != 'secret'"
            ),
            "secrets": self._count("SELECT count(*) FROM issues WHERE code = 'secret'"),
        }

    def all_issues(self) -> list[sqlite3.Row]:
        """Every stored issue."""
        return self.query("SELECT * FROM issues")

    def problem_links(self) -> list[sqlite3.Row]:
        """Links not resolved to one page: unresolved, missing attachments, ties."""
        return self.query(
            "SELECT * FROM links WHERE status != 'resolved' OR candidates IS NOT NULL"
        )

    def filter_values(self) -> dict[str, list[str]]:
        """The values ``query``'s exact filters can take: ``{"kind": [...], "project":
        [...], "status": [...]}``, each sorted, projects without ``None`` (for a filter that
        found nothing)."""
        return {
            "kind": [k for (k,) in self.db.execute("SELECT DISTINCT kind FROM pages ORDER BY 1")],
            "status": [
                s for (s,) in self.db.execute("SELECT DISTINCT status FROM pages ORDER BY 1")
            ],
            "project": [
                p
                for (p,) in self.db.execute(
                    "SELECT DISTINCT project FROM pages WHERE project IS NOT NULL ORDER BY 1"
                )
            ],
        }

    def page_paths(self) -> list[str]:
        """Every stored page's path."""
        return [path for (path,) in self.db.execute("SELECT path FROM pages")]

    def written_since(self, generation: int) -> tuple[int, list[str], int]:
        """``(generation, paths, pages)`` from one snapshot: the last complete generation,
        the pages whose rows (and evidence, tags, links) a batch of a later generation than
        ``generation`` wrote, and how many pages are stored."""
        self.db.execute("BEGIN")  # a read transaction: the three answers agree
        try:
            now = self.generation
            sql = "SELECT path FROM pages WHERE generation > ?"
            paths = [str(path) for (path,) in self.db.execute(sql, (generation,))]
            return now, paths, self._count("SELECT count(*) FROM pages")
        finally:
            self.db.execute("COMMIT")

    def duplicate_ids(self) -> list[tuple[str, list[str]]]:
        """``(id key, sorted paths)`` for each id key more than one page has, by key."""
        groups: dict[str, list[str]] = {}
        for key, path in self.db.execute("SELECT id_key, path FROM pages"):
            groups.setdefault(key, []).append(path)
        return [(k, sorted(v)) for k, v in sorted(groups.items()) if len(v) > 1]

    def pages_with_evidence(self, kind: str, source: str) -> list[str]:
        """Paths of the pages citing evidence ``kind:source`` (``session:ID``), by path."""
        rows = self.query(
            "SELECT DISTINCT path FROM evidence WHERE kind = ? AND source = ? ORDER BY path",
            (kind, source),
        )
        return [str(row[0]) for row in rows]
