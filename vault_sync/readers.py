"""Where readers are wired: both stores opened read-only, one read run, damage repaired once.

Readers (``query``, ``show``, ``related``, ``status``, ``lint``, ``brief``, the MCP tools) call
:func:`open_reader`, :func:`read_stores` or :func:`search`, which serve the last complete
generation and never repair — except when there is no usable store at all (never synced,
deleted, corrupt) or a read meets damage past the writers' checks: then they act as a writer
for that moment, syncing or rebuilding through :func:`vault_sync.engine.run_sync` (imported
then, so a ``query`` process never loads the writer's wiring), with a notice (DESIGN §3,
"Readers never repair").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from vault_sync import layout
from vault_sync.config import Config
from vault_sync.errors import (
    IndexCorruptError,
    IndexSchemaMismatch,
    StoreDamagedError,
    StoreError,
)
from vault_sync.index import PageIndex
from vault_sync.store import Sidecar

if TYPE_CHECKING:  # the ranking modules load on the first search: brief and writes never do
    from vault_sync.retrieve import Hit
    from vault_sync.sync import SyncReport

R = TypeVar("R")


@dataclass
class Reader:
    """Read-only access to both stores of one vault.

    Attributes:
        config: the vault's configuration.
        sidecar: a read-only sidecar connection.
        index: the opened index.
        notice: a line for stderr when the reader had to sync first, else ``None``.
    """

    config: Config
    sidecar: Sidecar
    index: PageIndex
    notice: str | None = None

    def search(self, text: str, **options: Any) -> list[Hit]:
        """Search both stores: :func:`vault_sync.ranking.search` with ``options`` (limit,
        kind, project, tag, status, as_of, now, explain, switches, ...) and the vault's
        ``[ranking]`` settings; no repair (see :func:`search` for that).

        Raises:
            QuerySyntaxError: the query text cannot be read.
            ValueError: an option :func:`vault_sync.rank_plan.build_plan` refuses.
            IndexCorruptError: the index could not be read.
            sqlite3.DatabaseError: the sidecar could not be read.
        """
        from vault_sync.ranking import search as rank_search

        options.setdefault("settings", self.config.ranking)
        return rank_search(self.index, self.sidecar, text, **options)

    def close(self) -> None:
        """Close the sidecar connection."""
        self.sidecar.close()


def _open_set(config: Config, *, check_sidecar: bool) -> Reader:
    folder = layout.active_set(config.store_path)
    if folder is None:
        raise StoreError("no store yet")
    sidecar = Sidecar.open(layout.sidecar_file(folder), readonly=True)
    try:
        if check_sidecar:
            verdict = sidecar.quick_check_problem()
            if verdict is not None:
                raise StoreError(verdict)
        index = PageIndex.open(layout.index_dir(folder), create=False)  # never make one
    except BaseException:
        sidecar.close()
        raise
    return Reader(config, sidecar, index)


def _repair_notice(config: Config, reason: str, report: SyncReport, rebuilt: str | None) -> str:
    if rebuilt:
        return rebuilt
    if reason == "no store yet":
        pages = "page" if report.added == 1 else "pages"
        return f"no index yet: synced {report.added} {pages} of {config.vault} first"
    return f"stores were unusable ({reason}): synced {config.vault} first"


def open_reader(config: Config, *, check_sidecar: bool = False) -> Reader:
    """Open both stores for reading; when none is usable, sync first (with a notice).

    Args:
        config: the vault's configuration.
        check_sidecar: run SQLite's ``quick_check`` first (for ``show``/``status``/``lint``,
            which read the sidecar; ``query`` reads only the index and skips it).

    Raises:
        StoreError: the stores cannot be opened even after a sync.
        LockTimeoutError: a sync was needed and another writer held the lock too long.
    """
    try:
        return _open_set(config, check_sidecar=check_sidecar)
    except IndexCorruptError as exc:  # an index gone or emptied: the next writer rebuilds
        reason = "damaged store found while reading: " + " ".join(str(exc).split())
        _flag(config, reason)
    except (StoreError, ValueError, OSError, sqlite3.DatabaseError) as exc:
        reason = str(exc)
    report, rebuilt = _sync_for_reader(config, reason)
    reader = _open_set(config, check_sidecar=False)
    return replace(reader, notice=_repair_notice(config, reason, report, rebuilt))


#: What a read may meet in stores damaged past the writers' checks (a byte flip that passes
#: quick_check: "Could not decode to UTF-8"; rows that contradict each other).
READ_DAMAGE = (sqlite3.DatabaseError, StoreDamagedError, IndexCorruptError, IndexSchemaMismatch)


def read_stores(
    config: Config, report: Callable[[Reader], R], *, check_sidecar: bool = True
) -> tuple[R, str | None]:
    """Run one read (``query``, ``show``, ``status``, ``lint``) against the stores; damage
    met while reading flags the set, which is rebuilt (as a read with no usable store syncs
    first) and read once more.

    Args:
        config: the vault's configuration.
        report: reads what it needs from an open :class:`Reader`.
        check_sidecar: run ``quick_check`` first (``query`` reads only the index: skips it).

    Returns:
        ``(result, notice)``; ``notice`` is a line for stderr when the stores were synced or
        rebuilt first.

    Raises:
        StoreError: the stores are unusable even after a rebuild, or the rebuild a read
            needed could not be made (one line naming both).
    """
    reader = open_reader(config, check_sidecar=check_sidecar)
    try:
        return report(reader), reader.notice
    except READ_DAMAGE as exc:
        reason = "damaged store found while reading: " + " ".join(str(exc).split())
        _flag(config, reason)
    finally:
        reader.close()
    sync_report, rebuilt = _sync_for_reader(config, reason)
    reader = _open_set(config, check_sidecar=False)
    try:
        return report(reader), _repair_notice(config, reason, sync_report, rebuilt)
    except READ_DAMAGE as exc:
        raise StoreError(f"the stores are still damaged after a rebuild: {exc}") from exc
    finally:
        reader.close()


def _flag(config: Config, reason: str) -> None:
    folder = layout.active_set(config.store_path)
    if folder is not None:
        layout.flag_damaged(folder, reason)


def _sync_for_reader(config: Config, reason: str) -> tuple[SyncReport, str | None]:
    """A read that found no usable store acts as a writer (DESIGN §3); when it cannot (the
    store is another user's, read-only), one line says what the read needed and why not.

    Raises:
        StoreError: the sync could not be made (the message names both reasons).
    """
    from vault_sync.engine import run_sync

    try:
        _, report, rebuilt = run_sync(config)
    except StoreError as exc:
        raise StoreError(f"the stores need a sync ({reason}), which failed: {exc}") from exc
    return report, rebuilt


def search(config: Config, text: str, **options: Any) -> tuple[list[Hit], str | None]:
    """Search the vault: open, search, and on a damaged index repair once and search again.

    Args:
        config: the vault's configuration.
        text: the query text.
        **options: passed to :func:`vault_sync.retrieve.search` (limit, kind, project, tag,
            explain).

    Returns:
        ``(hits, notice)``; ``notice`` is a line for stderr when stores were synced or rebuilt.

    Raises:
        QuerySyntaxError: the query text cannot be read.
        StoreError: the stores are unusable even after a rebuild.
    """
    return read_stores(config, lambda reader: reader.search(text, **options), check_sidecar=False)


def lint_report(config: Config, sidecar: Sidecar) -> list[dict[str, Any]]:
    """``lint``'s problems (:func:`vault_sync.lint.lint_vault`), from a fresh scan and the
    vault's sanitizer as sync compiles it (:func:`vault_sync.clean.scrubber_for`).

    Args:
        config: the vault's configuration.
        sidecar: an open (read-only) sidecar of the active set.
    """
    from vault_sync.clean import scrubber_for
    from vault_sync.lint import lint_vault
    from vault_sync.vault import scan

    return lint_vault(config, sidecar, result=scan(config), scrubber=scrubber_for(config))
