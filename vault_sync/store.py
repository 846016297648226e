"""The SQLite sidecar: pages, links with type, aliases, tags, evidence, issues, meta (DESIGN §3).

WAL mode, so readers never block the one writer. Schema changes are an ordered list of small,
named migrations recorded in the ``migrations`` table (the pattern of simonw/llm's
``migrations.py``); a sidecar written by a newer version is refused with a clear message.

Tables (one row per thing; ``path`` is the page's vault-relative NFC path)::

    meta(key, value)               schema_version, generation, pending_generation, last_sync ...
    pages(path, disk_path, id, title, kind, status, project, valid_from, valid_to,
          hash, mtime_ns, size, frontmatter JSON, generation, *_key lookup columns)
    aliases(path, alias, alias_key)          tags(path, tag)
    links(source, target_text, target_key, target_last_key, target_path, type, anchor,
          display, line, origin, status, candidates JSON)
    evidence(path, kind, source, at, note, line)   UNIQUE(path, kind, source)
    issues(path, severity, code, message, line, key)
    attachments(path)                        pending(path)   -- the redo journal of a batch
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

from vault_sync.errors import StoreError
from vault_sync.links import LinkStatus, NameTable, Resolver, link_keys, page_keys
from vault_sync.page import Page, name_key, path_id, path_stem


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction.

    (``executescript`` would COMMIT the open transaction first, so a migration and its
    ``migrations`` row could land apart.)
    """
    for statement in sql.split(";"):
        if statement.strip():
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


#: Ordered, named migrations; append only. The schema version is the list's length.
MIGRATIONS: tuple[tuple[str, Callable[[sqlite3.Connection], None]], ...] = (
    ("001_initial", _m001_initial),
    ("002_name_indexes", _m002_name_indexes),
)
SCHEMA_VERSION = len(MIGRATIONS)

_PAGE_TABLES = ("pages", "aliases", "tags", "evidence", "issues")


@dataclass(frozen=True)
class FileState:
    """What the sidecar knows of a page's file: content hash, mtime (ns), size (bytes)."""

    hash: str
    mtime_ns: int
    size: int


Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class PageRecord:
    """A page as the sidecar stores it: its file state and its rows, ready to insert.

    Plain tuples of str / int / None, so a record built in a worker process crosses to the
    writer cheaply (pickling ~10k pages of rows: 0.5 s; of :class:`Page` objects: 1.6 s).
    Build with :meth:`of`.

    Attributes:
        path: the page's vault-relative NFC path.
        title: its title; with ``aliases``, the names other pages link it by.
        aliases: its aliases.
        state: its file state.
        page_row: the ``pages`` row without its last column, ``generation``.
        alias_rows, tag_rows, evidence_rows, issue_rows: rows of those tables.
        link_rows: ``links`` rows for (source, target_text, target_key, target_last_key,
            type, anchor, display, line, origin).
    """

    path: str
    title: str
    aliases: tuple[str, ...]
    state: FileState
    page_row: Row
    alias_rows: tuple[Row, ...]
    tag_rows: tuple[Row, ...]
    evidence_rows: tuple[Row, ...]
    issue_rows: tuple[Row, ...]
    link_rows: tuple[Row, ...]

    @classmethod
    def of(cls, page: Page, disk_path: str, state: FileState) -> PageRecord:
        """The record of a parsed (and sanitized) page whose file is ``disk_path``."""
        path = page.path
        return cls(
            path=path,
            title=page.title,
            aliases=page.aliases,
            state=state,
            page_row=(
                path,
                disk_path,
                page.id,
                name_key(page.id),
                name_key(path),
                name_key(path_id(path)),
                name_key(path_stem(path)),
                page.title,
                name_key(page.title),
                page.kind,
                page.status,
                page.project,
                page.valid_from,
                page.valid_to,
                state.hash,
                state.mtime_ns,
                state.size,
                json.dumps(page.frontmatter, ensure_ascii=False, sort_keys=True, default=str),
            ),
            alias_rows=tuple((path, a, name_key(a)) for a in page.aliases),
            tag_rows=tuple((path, t) for t in page.tags),
            evidence_rows=tuple(
                (path, e.kind, e.source, e.at, e.note, e.line) for e in page.evidence
            ),
            issue_rows=tuple(
                (path, i.severity.value, i.code, i.message, i.line, i.key) for i in page.issues
            ),
            link_rows=tuple(
                (
                    path,
                    link.target,
                    *link_keys(link.target),
                    link.type,
                    link.anchor,
                    link.display,
                    link.line,
                    link.origin.value,
                )
                for link in page.links
            ),
        )


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
        attachments = NameTable()
        for (path,) in db.execute("SELECT path FROM attachments"):
            attachments.add_attachment(path)
        self.att_by_path = attachments.att_by_path
        self.att_by_name = attachments.att_by_name


class Sidecar:
    """One open connection to ``sidecar.sqlite``.

    Readers use :meth:`open` with ``readonly=True`` and never write; the one writer (holding the
    vault lock) applies batches with :meth:`apply_batch`.
    """

    def __init__(self, db: sqlite3.Connection, path: Path) -> None:
        self.db = db
        self.path = path
        #: ``CREATE INDEX`` statements dropped by :meth:`begin_bulk_load`, to run at its end.
        self._dropped_indexes: list[str] | None = None

    @classmethod
    def open(cls, path: Path, *, readonly: bool = False) -> Sidecar:
        """Open (and, for a writer, create and migrate) the sidecar at ``path``.

        Raises:
            StoreError: the file is not a SQLite database, is from a newer schema version, or
                (read-only) does not exist.
        """
        if readonly and not path.is_file():
            raise StoreError(f"no sidecar at {path}")
        if readonly:
            return cls._open_readonly(path)
        try:
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
            store = cls(db, path)
            store._migrate()
            store._check_version()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"sidecar {path} is unreadable: {exc}") from exc
        return store

    @classmethod
    def _open_readonly(cls, path: Path) -> Sidecar:
        """Open for reading only, even where this user cannot write (a store made by another
        user, a read-only mount).

        SQLite's ``mode=ro`` still needs the ``-shm`` file of a WAL database, and creates it
        (fails) when it is absent. Then, if no ``-wal`` file exists either, every committed
        page is in the main file and ``immutable=1`` reads it without any lock or side file;
        with a ``-wal`` file (a writer's commits not yet checkpointed) there is no safe way to
        read it here, and the error says so.

        Raises:
            StoreError: the sidecar is unreadable, damaged, from a newer version, or needs a
                ``-shm`` file this user cannot make while a ``-wal`` file exists.
        """
        uri = path.resolve().as_uri()
        try:
            return cls._connect_readonly(f"{uri}?mode=ro", path)
        except sqlite3.OperationalError as exc:
            if "readonly" not in str(exc) and "unable to open" not in str(exc):
                raise StoreError(f"sidecar {path} is unreadable: {exc}") from exc
            wal = Path(f"{path}-wal")
            if wal.exists():
                raise StoreError(
                    f"sidecar {path} cannot be read by this user: its {wal.name} file holds"
                    f" commits that need a {path.name}-shm file it cannot create ({exc})"
                ) from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"sidecar {path} is unreadable: {exc}") from exc
        try:
            return cls._connect_readonly(f"{uri}?immutable=1", path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"sidecar {path} is unreadable: {exc}") from exc

    @classmethod
    def _connect_readonly(cls, uri: str, path: Path) -> Sidecar:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=10000")
            store = cls(db, path)
            store._check_version()
        except BaseException:
            db.close()
            raise
        return store

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

    def _migrate(self) -> None:
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
        )
        done = {row[0] for row in self.db.execute("SELECT name FROM migrations")}
        known = {name for name, _ in MIGRATIONS}
        if done - known:
            newer = ", ".join(sorted(done - known))
            raise StoreError(
                f"sidecar {self.path} was written by a newer vault-sync (migrations {newer});"
                " upgrade vault-sync or run `vault-sync rebuild`"
            )
        for name, step in MIGRATIONS:
            if name in done:
                continue
            with self.transaction() as db:
                step(db)
                db.execute(
                    "INSERT INTO migrations VALUES (?, datetime('now'))",
                    (name,),
                )
                db.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )

    def _check_version(self) -> None:
        version = int(self.get_meta("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"sidecar {self.path} has schema version {version}, newer than this"
                f" vault-sync ({SCHEMA_VERSION}); upgrade vault-sync or run `vault-sync rebuild`"
            )
        if version < SCHEMA_VERSION:
            raise StoreError(f"sidecar {self.path} has an old schema version {version}")

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

    # -- the redo journal -----------------------------------------------------------------

    def begin_pending(self, generation: int, paths: Iterable[str]) -> None:
        """Record, durably, that ``generation`` is about to change ``paths`` in both stores."""
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO pending VALUES (?)", ((p,) for p in paths))
            self.set_meta("pending_generation", str(generation))

    def pending(self) -> set[str]:
        """Paths of a batch that started but was never recorded complete (redo them)."""
        return {row[0] for row in self.db.execute("SELECT path FROM pending")}

    # -- reads ----------------------------------------------------------------------------

    def file_states(self, roots: Iterable[str] | None = None) -> dict[str, FileState]:
        """Return ``{path: FileState}`` for every stored page, or only for pages equal to or
        under one of ``roots`` (vault-relative NFC paths: a watcher batch's scope)."""
        sql = "SELECT path, hash, mtime_ns, size FROM pages"
        if roots is None:
            return {p: FileState(h, m, s) for p, h, m, s in self.db.execute(sql)}
        # The root itself, and the paths under it as a range of the primary key: `root/` up
        # to `root0` ('0' follows '/'), exact code-point order, one index seek per root. (A
        # `LIKE 'root/%'` scanned the whole table per root: a 3,000-path watcher batch on an
        # 8,000-page vault took 7.5 s instead of ~0.1 s; found by the fresh-user run.)
        found: dict[str, FileState] = {}
        for root in roots:
            rows = self.db.execute(
                f"{sql} WHERE path = ? OR (path >= ? AND path < ?)", (root, f"{root}/", f"{root}0")
            )
            found.update((p, FileState(h, m, s)) for p, h, m, s in rows)
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
        table = NameTable()
        aliases: dict[str, list[str]] = {}
        for path, alias in self.db.execute("SELECT path, alias FROM aliases"):
            aliases.setdefault(path, []).append(alias)
        for path, title in self.db.execute("SELECT path, title FROM pages"):
            table.add_page(path, title, aliases.get(path, ()))
        for (path,) in self.db.execute("SELECT path FROM attachments"):
            table.add_attachment(path)
        return table

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read-only SQL statement and return rows addressable by column name."""
        cursor = self.db.execute(sql, params)
        cursor.row_factory = sqlite3.Row
        return list(cursor.fetchall())

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
            "INSERT INTO pages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(*r.page_row, generation) for r in records],
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
            " display, line, origin, status) VALUES (?,?,?,?,?,?,?,?,?,'new')",
            chain(*(r.link_rows for r in records)),
        )

    def _resolve_links(self, where: str, params: Sequence[Any]) -> int:
        rows = self.db.execute(
            f"SELECT rowid, target_text, source, origin FROM links WHERE {where}", params
        ).fetchall()
        # Few links (a watcher batch): look names up by SQL; many (a cold sync), or no
        # indexes to look them up by (a bulk load): load them all.
        few = len(rows) < SQL_LOOKUP_MAX_LINKS and self._dropped_indexes is None
        table: NameTable | SqlNames = SqlNames(self.db) if few else self.name_table()
        resolver = Resolver(table)

        def updates() -> Iterator[tuple[str | None, str, str | None, int]]:
            # A generator, not a list: 822k links at 100k pages would hold ~130 MB more.
            # (SqlNames' lookups read pages and aliases, which this UPDATE never changes.)
            for rowid, target, source, origin in rows:
                found = resolver(target, source, origin)
                candidates = found.candidates
                shown = json.dumps(candidates, ensure_ascii=False) if candidates else None
                yield found.target_path, found.status.value, shown, rowid

        self.db.executemany(
            "UPDATE links SET target_path = ?, status = ?, candidates = ? WHERE rowid = ?",
            updates(),
        )
        return len(rows)

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
        keys: set[str] = set()
        # A bulk load resolves all its links at its end (every one is still ``new``).
        if resolve and self._dropped_indexes is None:
            for path in [*changed, *gone]:
                row = self.db.execute("SELECT title FROM pages WHERE path = ?", (path,)).fetchone()
                if row:
                    sql = "SELECT alias FROM aliases WHERE path = ?"
                    aliases = [a for (a,) in self.db.execute(sql, (path,))]
                    keys |= page_keys(path, row[0], aliases)
            for record in upserts:
                keys |= page_keys(record.path, record.title, record.aliases)
        with self.transaction():
            if self._dropped_indexes is None:  # a bulk load writes each page once, into a
                self._delete_rows([*changed, *gone])  # new set: no rows to delete, no indexes

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
                self.db.execute("CREATE TEMP TABLE IF NOT EXISTS batch_keys (k TEXT PRIMARY KEY)")
                self.db.execute("DELETE FROM batch_keys")
                self.db.executemany(
                    "INSERT OR IGNORE INTO batch_keys VALUES (?)", ((k,) for k in keys)
                )
                self.db.execute("CREATE TEMP TABLE IF NOT EXISTS batch_paths (p TEXT PRIMARY KEY)")
                self.db.execute("DELETE FROM batch_paths")
                self.db.executemany(
                    "INSERT OR IGNORE INTO batch_paths VALUES (?)",
                    ((p,) for p in [*changed, *gone]),
                )
                self._resolve_links(
                    "status = 'new'"
                    " OR target_path IN (SELECT p FROM batch_paths)"
                    " OR target_key IN (SELECT k FROM batch_keys)"
                    " OR target_last_key IN (SELECT k FROM batch_keys)"
                    + (
                        " OR status IN ('attachment', 'missing_attachment')"
                        if attachments_changed
                        else ""
                    ),
                    (),
                )
            self.db.execute("DELETE FROM pending")
            self.set_meta("generation", str(generation))
            self.set_meta("last_sync", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
            self.db.execute("DELETE FROM meta WHERE key = 'pending_generation'")

    def clear(self) -> None:
        """Delete every page row (used by ``rebuild`` before a full apply)."""
        with self.transaction() as db:
            for table in (*_PAGE_TABLES, "links", "attachments"):
                db.execute(f"DELETE FROM {table}")


def link_status_counts(store: Sidecar) -> dict[str, int]:
    """Return ``{status: count}`` over every stored link (statuses of :class:`LinkStatus`)."""
    rows = store.db.execute("SELECT status, count(*) FROM links GROUP BY status ORDER BY status")
    counts = {s.value: 0 for s in LinkStatus}
    counts.update({status: n for status, n in rows})
    return counts
