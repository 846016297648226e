"""Where the parts are wired together: stores opened, repaired, synced (STYLE: ``engine.py``).

Writers (``sync``, ``rebuild``) call :func:`run_sync` / :func:`run_rebuild`. Readers (``query``,
``show``, ``status``, ``lint``) call :func:`open_reader`, which serves the last complete
generation and never repairs — except when there is no usable store at all (never synced,
deleted, corrupt): then it acts as a writer for that moment, syncing or rebuilding with a
notice (DESIGN §3, "Readers never repair").

This module imports the sync path (parser, pydantic, ...) lazily, so ``query`` starts fast.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vault_sync.config import Config
from vault_sync.errors import StoreError
from vault_sync.index import INDEX_NAME, PageIndex
from vault_sync.lock import WriterLock
from vault_sync.store import SIDECAR_NAME, Sidecar

if TYPE_CHECKING:
    from vault_sync.sync import Plan, ProgressFn, SyncReport
    from vault_sync.vault import ScanResult

logger = logging.getLogger(__name__)


def sidecar_path(config: Config) -> Path:
    """Path of ``sidecar.sqlite`` in the vault's store folder."""
    return config.store_path / SIDECAR_NAME


def index_path(config: Config) -> Path:
    """Path of the tantivy index folder in the vault's store folder."""
    return config.store_path / INDEX_NAME


def writer_lock(config: Config) -> WriterLock:
    """The vault's writer lock, waiting up to ``config.lock_timeout_s``."""
    return WriterLock(config.store_path, config.lock_timeout_s)


def _remove_stores(config: Config) -> None:
    shutil.rmtree(index_path(config), ignore_errors=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{sidecar_path(config)}{suffix}").unlink(missing_ok=True)


def check_stores(config: Config) -> str | None:
    """Say why the stores cannot be used as they are, or ``None`` when they agree.

    Checks: both exist, the sidecar opens with a known schema, the index opens and searches,
    and the index holds exactly as many documents as the sidecar holds pages (a damaged
    segment or a lost store must never serve a silent zero, case C2).
    """
    if not sidecar_path(config).is_file():
        return "no sidecar"
    if not index_path(config).is_dir():
        return "no index"
    try:
        store = Sidecar.open(sidecar_path(config), readonly=True)
    except StoreError as exc:
        return str(exc)
    try:
        pages = store.page_count()
        pending = bool(store.pending())
    finally:
        store.close()
    try:
        docs = PageIndex.open(index_path(config), verify=True).doc_count()
    except (StoreError, ValueError, OSError) as exc:
        return f"index unusable: {exc}"
    if docs != pages and not pending:
        return f"index holds {docs} pages, sidecar {pages}"
    return None


def _progress_none(_total: int) -> ProgressFn | None:
    return None


def run_sync(
    config: Config,
    *,
    progress_start: Callable[[int], ProgressFn | None] = _progress_none,
    scanner: Callable[[Config], ScanResult] | None = None,
) -> tuple[Plan, SyncReport, str | None]:
    """Sync the stores with the vault, rebuilding first when they are damaged.

    Args:
        config: the vault's configuration.
        progress_start: called with the number of pages to write; returns a callback fed
            the number of pages done after each batch (or ``None`` for no progress).
        scanner: replaces :func:`vault_sync.vault.scan` (a test seam).

    Returns:
        ``(plan, report, notice)``; ``notice`` says why the stores were rebuilt, or is None.

    Raises:
        LockTimeoutError: another writer held the lock too long.
        VaultUnreadableError: the vault root cannot be read.
    """
    from vault_sync.sync import sync_vault
    from vault_sync.vault import scan

    lock = writer_lock(config)
    notice = None
    with lock:
        problem = check_stores(config)
        fresh = problem in ("no sidecar", "no index") and not index_path(config).exists()
        if problem is not None and not fresh:
            notice = f"stores rebuilt from the vault: {problem}"
            logger.info("%s: %s", config.vault, notice)
            _remove_stores(config)
        elif problem is not None:
            _remove_stores(config)
    plan, report = sync_vault(
        config, lock=lock, progress_start=progress_start, scanner=scanner or scan
    )
    return plan, report, notice


def run_rebuild(
    config: Config,
    *,
    progress_start: Callable[[int], ProgressFn | None] = _progress_none,
) -> tuple[Plan, SyncReport]:
    """Delete both stores and build them again from the vault.

    Raises:
        LockTimeoutError: another writer held the lock too long.
    """
    from vault_sync.sync import sync_vault
    from vault_sync.vault import scan

    lock = writer_lock(config)
    with lock:
        _remove_stores(config)
        return sync_vault(config, lock=lock, progress_start=progress_start, scanner=scan)


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

    def close(self) -> None:
        """Close the sidecar connection."""
        self.sidecar.close()


def open_reader(config: Config) -> Reader:
    """Open both stores for reading; when none is usable, sync first (with a notice).

    Raises:
        StoreError: the stores cannot be opened even after a sync.
        LockTimeoutError: a sync was needed and another writer held the lock too long.
    """
    notice = None
    try:
        if not sidecar_path(config).is_file() or not index_path(config).is_dir():
            raise StoreError("no store yet")
        sidecar = Sidecar.open(sidecar_path(config), readonly=True)
        try:
            index = PageIndex.open(index_path(config))
        except BaseException:
            sidecar.close()
            raise
        return Reader(config, sidecar, index)
    except (StoreError, ValueError, OSError) as exc:
        reason = str(exc)
    _, report, rebuilt = run_sync(config)
    if rebuilt:
        notice = rebuilt
    elif reason == "no store yet":
        notice = f"no index yet: synced {report.added} pages of {config.vault} first"
    else:
        notice = f"stores were unusable ({reason}): synced {config.vault} first"
    sidecar = Sidecar.open(sidecar_path(config), readonly=True)
    return Reader(config, sidecar, PageIndex.open(index_path(config)), notice)
