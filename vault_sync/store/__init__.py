"""The SQLite sidecar: pages, links with type, aliases, tags, evidence, issues, meta (DESIGN §3).

Layer 3. A package: :mod:`~vault_sync.store.columns` (derived columns, index names),
:mod:`~vault_sync.store.schema` (migrations), :mod:`~vault_sync.store.records`
(rows in, as values), :mod:`~vault_sync.store.reads` (rows out, one named method per report
query) on :mod:`~vault_sync.store.graph_reads` (the ranking's and the briefing's rows),
:mod:`~vault_sync.store.writes` (the journal and the batch); :class:`Sidecar` here
opens them. All SQL against the sidecar lives in this package.

WAL mode, so readers never block the one writer. Schema changes are an ordered list of small,
named migrations recorded in the ``migrations`` table (the pattern of simonw/llm's
``migrations.py``); a sidecar written by a newer version is refused with a clear message.

Tables (one row per thing; ``path`` is the page's vault-relative NFC path)::

    meta(key, value)               schema_version, generation, pending_generation, last_sync ...
    pages(path, disk_path, id, title, kind, status, project, valid_from, valid_to,
          hash, mtime_ns, size, frontmatter JSON, generation, *_key lookup columns,
          date_key, agent_key, summary_key: string values of those frontmatter keys)
    aliases(path, alias, alias_key)          tags(path, tag)
    links(source, target_text, target_key, target_last_key, target_path, type, anchor,
          display, line, origin, status, candidates JSON)
    evidence(path, kind, source, at, note, line)   UNIQUE(path, kind, source)
    issues(path, severity, code, message, line, key)
    attachments(path)                        pending(path)   -- the redo journal of a batch
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_sync.errors import StoreError
from vault_sync.store.columns import RULE_LINK_TYPES
from vault_sync.store.reads import SQL_LOOKUP_MAX_LINKS, SqlNames
from vault_sync.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate, split_statements
from vault_sync.store.writes import SidecarWrites

if TYPE_CHECKING:  # the records sync builds: imported on first use (a query builds none)
    from vault_sync.store.records import FileState, PageRecord, Row


def __getattr__(name: str) -> Any:
    """``FileState``, ``PageRecord`` and ``Row`` (:mod:`~vault_sync.store.records`), imported
    on first use (PEP 562): a query never builds a record."""
    if name in ("FileState", "PageRecord", "Row"):
        from vault_sync.store import records

        return getattr(records, name)
    raise AttributeError(f"module 'vault_sync.store' has no attribute {name!r}")


__all__ = [
    "MIGRATIONS",
    "RULE_LINK_TYPES",
    "SCHEMA_VERSION",
    "SQL_LOOKUP_MAX_LINKS",
    "FileState",
    "PageRecord",
    "Row",
    "Sidecar",
    "SqlNames",
    "split_statements",
]


#: Page cache of a read-only connection, KiB (SQLite's default is 2,000): one ranked query
#: reads the rows of ~150 pages, their evidence and links, ~500 pages of the file at 10k
#: pages, which the default cache cannot hold, so a long-lived reader (MCP, the benchmarks)
#: read them again every query (~0.7 ms of ~7 at 10k, benchmarks/run.py). Filled only as
#: pages are read.
READER_CACHE_KIB = 8192
#: Bytes of the database a read-only connection reads through ``mmap`` (SQLite's memory-mapped
#: I/O) instead of copying each page into its cache: a fresh process's first read of every
#: page row (``brief`` at 10k pages) took 110-150 ms through ``read()`` and ~23 ms mapped, the
#: warm reads alike (measured on the 10k benchmark vault). Readers only: a writer's connection
#: keeps SQLite's default.
READER_MMAP_BYTES = 256 * 1024 * 1024


class Sidecar(SidecarWrites):
    """One open connection to ``sidecar.sqlite``.

    Readers use :meth:`open` with ``readonly=True`` and never write; the one writer (holding the
    vault lock) applies batches with :meth:`apply_batch`.
    """

    #: True when SQLite opened the file ``immutable`` (a reader that cannot make its ``-shm``
    #: file): a snapshot that never sees a later commit, so never to be kept open for long.
    immutable = False

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
            migrate(db, path)
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
            store = cls._connect_readonly(f"{uri}?immutable=1", path)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"sidecar {path} is unreadable: {exc}") from exc
        store.immutable = True
        return store

    @classmethod
    def _connect_readonly(cls, uri: str, path: Path) -> Sidecar:
        db = sqlite3.connect(uri, uri=True, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout=10000")
            db.execute(f"PRAGMA cache_size=-{READER_CACHE_KIB}")
            db.execute(f"PRAGMA mmap_size={READER_MMAP_BYTES}")
            store = cls(db, path)
            store._check_version()
        except BaseException:
            db.close()
            raise
        return store

    def _check_version(self) -> None:
        version = int(self.get_meta("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"sidecar {self.path} has schema version {version}, newer than this"
                f" vault-sync ({SCHEMA_VERSION}); upgrade vault-sync or run `vault-sync rebuild`"
            )
        if version < SCHEMA_VERSION:
            raise StoreError(f"sidecar {self.path} has an old schema version {version}")
