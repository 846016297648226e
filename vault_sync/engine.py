"""Where the parts are wired together: stores opened, checked, repaired, synced.

Writers (``sync``, ``rebuild``, the watcher, the write commands) call :func:`run_sync` /
:func:`run_rebuild`. Readers are wired in :mod:`vault_sync.readers` (which calls
:func:`run_sync` when a read finds no usable store).

Rebuilds (asked for, or forced by damage) build a new store set beside the active one and
switch to it atomically (:mod:`vault_sync.layout`), so readers never see a half-built store.

This module imports the sync path (parser, pydantic, ...) lazily, so ``query`` starts fast.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from vault_sync import layout
from vault_sync.config import Config, content_fingerprint
from vault_sync.errors import (
    IndexCorruptError,
    IndexSchemaMismatch,
    StoreError,
    UnreadablePagesError,
    VaultGoneError,
)
from vault_sync.index import KeptWriter, PageIndex
from vault_sync.lock import WriterLock
from vault_sync.store import Sidecar

if TYPE_CHECKING:  # the ranking modules load on the first search: brief and writes never do
    from vault_sync.scan_result import ScanResult
    from vault_sync.sync import ProgressFn, SyncReport
    from vault_sync.sync_plan import Plan

R = TypeVar("R")

ProgressStart = Callable[[int], "ProgressFn | None"]
Scanner = Callable[[Config], "ScanResult"]


class SyncResult(NamedTuple):
    """What :func:`run_sync` or :func:`run_rebuild` did: a named tuple, so ``plan, report,
    notice = run_sync(config)`` unpacks as it always has. ``plan``: the plan applied
    (:class:`~vault_sync.sync_plan.Plan`); ``report``: counts, generation, errors, time
    (:class:`~vault_sync.sync.SyncReport`); ``notice``: why the stores were rebuilt first (a
    damaged or missing store), or ``None`` (always, for :func:`run_rebuild`)."""

    plan: Plan
    report: SyncReport
    notice: str | None = None


def writer_lock(config: Config) -> WriterLock:
    """The vault's writer lock (waiting up to ``lock_timeout_s``), on a claimed store folder.

    Raises:
        VaultGoneError: the vault folder no longer exists (moved or deleted): its store is
            never made again at the old path.
        StoreError: ``store_dir`` is a file or a folder holding files vault-sync did not make.
    """
    if not config.vault.is_dir():
        raise VaultGoneError(f"vault folder {config.vault} was moved or deleted")
    try:
        layout.claim(config.store_path)
    except OSError as exc:  # a vault or store folder this user cannot write
        raise StoreError(f"cannot write the store folder {config.store_path}: {exc}") from exc
    return WriterLock(config.store_path, config.lock_timeout_s)


def _verified_doc_count(index_dir: Path) -> int:
    """Open with checksums verified; on a failure look once more after a moment, since a
    watcher's writer may be finishing a merge (replacing segment files) in another process."""
    try:
        return PageIndex.open(index_dir, verify=True).doc_count()
    except (StoreError, ValueError, OSError):
        time.sleep(VERIFY_RETRY_S)
        return PageIndex.open(index_dir, verify=True).doc_count()


#: Wait before verifying an index a second time, seconds (a merge at 10k pages takes ~1 s).
VERIFY_RETRY_S = 1.5


def check_stores(folder: Path) -> str | None:
    """Say why a store set cannot be used as it is, or ``None`` when both stores agree.

    Checks: the sidecar opens with a known schema and passes SQLite's ``quick_check``; the
    index opens and its files match their checksums; the index holds exactly as many documents
    as the sidecar holds pages. A damaged store must never serve a silent zero (case C2).
    """
    if not layout.sidecar_file(folder).is_file():
        return "no sidecar"
    if not layout.index_dir(folder).is_dir():
        return "no index"
    try:
        store = Sidecar.open(layout.sidecar_file(folder), readonly=True)
    except StoreError as exc:
        return str(exc)
    try:
        verdict = store.quick_check_problem()
        if verdict is not None:
            return verdict
        pages, pending = store.page_count(), bool(store.pending())
    except sqlite3.DatabaseError as exc:
        return f"sidecar damaged: {exc}"
    finally:
        store.close()
    try:
        docs = _verified_doc_count(layout.index_dir(folder))
    except (StoreError, ValueError, OSError) as exc:
        return f"index unusable: {exc}"
    if docs != pages and not pending:
        return f"index holds {docs} pages, sidecar {pages}"
    return None


def _lost_pages(config: Config, old: Path, new: Path) -> list[str]:
    """Pages of the set ``old`` missing from the built set ``new`` whose files are not proven
    gone (an unreadable folder or file): a rebuild must not drop their last good rows."""
    from vault_sync.scan_result import proven_absent

    try:
        before = Sidecar.open(layout.sidecar_file(old), readonly=True)
    except StoreError:
        return []  # a set whose sidecar cannot be opened holds no rows to keep
    try:
        stored = before.disk_paths()
    except sqlite3.DatabaseError:
        return []
    finally:
        before.close()
    after = Sidecar.open(layout.sidecar_file(new), readonly=True)
    try:
        built = after.disk_paths()
    finally:
        after.close()
    vault = config.vault
    return sorted(p for p, d in stored.items() if p not in built and not proven_absent(vault / d))


def _build_new_set(
    config: Config,
    lock: WriterLock,
    progress_start: ProgressStart | None,
    scanner: Scanner,
    generation: int,
    keep_from: Path | None = None,
) -> tuple[Plan, SyncReport]:
    """Build a complete store set beside the active one, then switch to it and prune.

    Raises:
        UnreadablePagesError: ``keep_from`` (the active set of a ``rebuild``) holds pages the
            build could not read; the built set is discarded and ``keep_from`` stays active.
    """
    from vault_sync.sync import WriteOptions, sync_vault

    root = config.store_path
    with lock:
        layout.prune(root)
        folder = layout.new_set(root)
        PageIndex.open(layout.index_dir(folder))  # exists even when the vault has no page
        store = Sidecar.open(layout.sidecar_file(folder))
        try:  # generations keep counting up across rebuilds
            with store.transaction():
                store.set_meta("generation", str(generation))
                store.set_meta(CONTENT_KEY, content_fingerprint(config))
        finally:
            store.close()
    plan, report = sync_vault(
        config,
        folder,
        lock=lock,
        # nobody reads this set until it is activated below
        options=WriteOptions(progress_start=progress_start, building=True),
        scanner=scanner,
    )
    with lock:
        # Pages written while the set was built (an agent's `remember`, a watcher batch) went
        # into the active set only: bring the built set in step with the vault under the
        # lock, so nothing they wrote is lost at the switch and none is taken for unreadable
        # (fresh-user report: a `remember` during `rebuild` failed the rebuild).
        catch_up, _ = sync_vault(config, folder, lock=lock, scanner=scanner)
        plan = replace(plan, errors={**plan.errors, **catch_up.errors})
        lost = _lost_pages(config, keep_from, folder) if keep_from is not None else []
        if lost:
            layout.prune(root)  # the built set, never activated
            shown = ", ".join(lost[:5]) + (", ..." if len(lost) > 5 else "")
            raise UnreadablePagesError(
                f"rebuild kept the current stores: {len(lost)} stored pages cannot be read now"
                f" ({shown}; see vault-sync lint); make them readable and rebuild again"
            )
        layout.write_stamp(folder)  # built from the vault by this process: consistent
        layout.activate(root, folder)
        layout.prune(root)
    return plan, report


#: The sidecar ``meta`` key holding :func:`~vault_sync.config.content_fingerprint`.
CONTENT_KEY = "content_fingerprint"


def _meta_of(folder: Path, key: str) -> str | None:
    """A ``meta`` value of the set's sidecar, or ``None`` when it cannot be read (the store
    checks report why)."""
    try:
        store = Sidecar.open(layout.sidecar_file(folder), readonly=True)
    except StoreError:
        return None
    try:
        return store.get_meta(key)
    except sqlite3.DatabaseError:
        return None
    finally:
        store.close()


def _content_changed(config: Config, folder: Path) -> str | None:
    """Say why the set's pages must all be stored again, or ``None``: it was built with other
    ``[projects]`` / ``[sanitize]`` settings (or by a vault-sync that stored pages otherwise),
    so a pattern added to ``[sanitize]`` redacts pages already stored, too."""
    built_with = _meta_of(folder, CONTENT_KEY)
    if built_with is None or built_with == content_fingerprint(config):
        return None
    return "the [projects] or [sanitize] settings (or vault-sync's page format) changed"


def _generation_of(folder: Path | None) -> int:
    value = None if folder is None else _meta_of(folder, "generation")
    return int(value) if value else 0


def _present(folder: Path) -> str | None:
    """The cheap check of each watcher batch: both stores are still there (not deleted)."""
    if not layout.sidecar_file(folder).is_file():
        return "sidecar deleted"
    if not (layout.index_dir(folder) / "meta.json").is_file():
        return "index deleted"
    return None


def _index_schema_problem(folder: Path) -> str | None:
    """Why the set's index must be rebuilt for this version of vault-sync (another schema or
    analyzers, :class:`~vault_sync.errors.IndexSchemaMismatch`), or ``None``; other failures
    to open it are the full checks' and the writers' to find."""
    try:
        PageIndex.open(layout.index_dir(folder))
    except IndexSchemaMismatch as exc:
        return f"index unusable: {exc}"
    except (StoreError, ValueError, OSError):
        return None
    return None


def _check_active(config: Config, lock: WriterLock, full_check: bool) -> _Checked:
    """Under the lock: prune half-built sets and check the active one (see :func:`run_sync`)."""
    with lock:
        layout.prune(config.store_path)  # e.g. the half-built set of a killed rebuild
        folder = layout.active_set(config.store_path)
        if folder is None:
            return _Checked(None, False, None)
        # Files as a writer left them (the stamp) need no full check; an unbroken chain of
        # such writers may stamp again after writing (a watcher batch's cheap check alone
        # may not: it would vouch for damage it never looked for).
        trusted = layout.stamp_matches(folder)
        # The stamp vouches for the files, not for the code that reads them: an index written
        # by another version of vault-sync (its schema) is rebuilt though no file changed
        # (an upgrade: `sync` said "nothing to do" and every query failed). ~1 ms at 10k.
        problem = _index_schema_problem(folder) if trusted and full_check else None
        flagged = layout.damage_flag(folder)
        if flagged is not None:  # a reader met damage the checks did not see: rebuild
            return _Checked(folder, False, f"a reader found the store damaged: {flagged}")
        if not trusted:
            problem = check_stores(folder) if full_check else _present(folder)
            trusted = full_check and problem is None
        # A watcher reads its config once, so its cheap per-batch runs need not ask again.
        if problem is None and full_check:
            problem = _content_changed(config, folder)
        return _Checked(folder, trusted, problem)


class _Checked(NamedTuple):
    """The active store set (``None``: there is none), whether its files are as a writer of
    this chain left them (``trusted``), and why it must be rebuilt (``problem``, or None)."""

    folder: Path | None
    trusted: bool
    problem: str | None


def run_sync(
    config: Config,
    *,
    progress_start: ProgressStart | None = None,
    scanner: Scanner | None = None,
    full_check: bool = True,
    scope: Iterable[str] | None = None,
    kept_writer: KeptWriter | None = None,
) -> SyncResult:
    """Sync the stores with the vault, rebuilding them first when they are damaged.

    Args:
        config: the vault's configuration.
        progress_start: called with the number of pages to write; returns a callback fed
            the number of pages done after each batch (or ``None`` for no progress).
        scanner: replaces :func:`vault_sync.vault.scan` (a test seam).
        full_check: check the stores in full first (:func:`check_stores`, ~80 ms at 10k
            pages) unless their files are as the last writer left them (the stamp); ``False``
            only checks both are present (the watcher's per-batch check).
        scope: only these vault-relative paths and what is under them (a watcher batch);
            ``None`` for the whole vault. A rebuild always scans the whole vault.
        kept_writer: the caller's writer, kept open afterwards with merges running (the
            watcher's, released when idle and while this waits for another's writer lock).

    Returns:
        A :class:`SyncResult`, ``(plan, report, notice)``.

    Raises:
        LockTimeoutError: another writer held the lock too long.
        StoreError: the store folder is not vault-sync's own.
        VaultUnreadableError: the vault root cannot be read.
    """
    from vault_sync.sync import WriteOptions, sync_vault
    from vault_sync.vault import scan

    scanner, lock = scanner or scan, writer_lock(config)
    if kept_writer is not None:
        lock.on_wait = kept_writer.release
    folder, trusted, problem = _check_active(config, lock, full_check)
    if folder is not None and problem is None:
        options = WriteOptions(progress_start=progress_start, kept_writer=kept_writer)
        try:
            plan, report = sync_vault(
                config, folder, lock=lock, options=options, scanner=scanner, scope=scope
            )
            if trusted:
                with lock:
                    layout.write_stamp(folder)
            return SyncResult(plan, report)
        except (sqlite3.DatabaseError, IndexCorruptError, IndexSchemaMismatch) as exc:
            # Damage the cheap check cannot see (a watcher batch): rebuild, never crash.
            problem = f"damaged store found while writing: {exc}"
    notice = None
    if folder is not None:
        notice = f"stores rebuilt from the vault: {problem}"
        import logging  # here: a reader never needs it (~4 ms of each `query` process)

        logging.getLogger(__name__).info("%s: %s", config.vault, notice)
    elif (config.store_path / layout.CURRENT_NAME).exists():
        notice = "stores rebuilt from the vault: the active store set was missing"
    plan, report = _build_new_set(config, lock, progress_start, scanner, _generation_of(folder))
    return SyncResult(plan, report, notice)


def run_rebuild(config: Config, *, progress_start: ProgressStart | None = None) -> SyncResult:
    """Build both stores again from the vault; readers keep the old ones until the switch.

    Returns:
        A :class:`SyncResult` (``notice`` is ``None``).

    Raises:
        LockTimeoutError: another writer held the lock too long.
        StoreError: the store folder is not vault-sync's own.
        UnreadablePagesError: pages the current stores hold cannot be read now (under an
            unreadable folder, or unreadable files): the current stores stay active.
    """
    from vault_sync.vault import scan

    lock = writer_lock(config)
    with lock:
        active = layout.active_set(config.store_path)
        generation = _generation_of(active)
    plan, report = _build_new_set(config, lock, progress_start, scan, generation, keep_from=active)
    return SyncResult(plan, report)
