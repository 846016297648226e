"""Sync: scan -> plan -> apply, the same code for ``sync``, ``rebuild`` and (later) the watcher.

- **scan** (:func:`vault_sync.vault.scan`) lists the vault's pages with (mtime, size).
- **plan** (:func:`vault_sync.sync_plan.make_plan`) classifies by what is on disk, as a
  plain :class:`~vault_sync.sync_plan.Plan` value:
  unchanged (mtime, size, name on disk) skips the hash; a changed stat with an equal content
  hash is only *touched*; a delete and a create with equal content hash is a *move*; a stored
  page under a folder that could not be read is *kept* (deleting needs proof of absence,
  DESIGN §4).
- **apply** (:func:`apply_plan`) splits the work into bounded batches; each batch's pages are
  read, parsed and scrubbed first, then the batch takes the writer lock, journals its paths,
  commits the tantivy index, then the SQLite sidecar (which records the generation complete
  and clears the journal), and releases the lock. A batch that never completed is redone by
  the next writer (:func:`redo_pending`).

One batch's write under the lock is :mod:`vault_sync.batch_write`, with the test-only fault
seam (``VAULT_SYNC_FAULT``: a point at which the process kills itself).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from vault_sync import layout, prepare
from vault_sync.batch_write import Batch, BatchWriter, split_batches
from vault_sync.clean import scrubber_for, without_secret_names
from vault_sync.config import Config
from vault_sync.index import KeptWriter
from vault_sync.lock import WriterLock
from vault_sync.prepare import Preparer
from vault_sync.scan_result import ScanResult
from vault_sync.store import Sidecar
from vault_sync.sync_plan import Plan, make_plan
from vault_sync.vault import scan, scan_paths
from vault_sync.vault_walk import is_utf8

logger = logging.getLogger(__name__)

ProgressFn = Callable[[int], None]


@dataclass(frozen=True)
class SyncReport:
    """What a sync did.

    Attributes:
        added, changed, moved, deleted, unchanged: page counts.
        generation: the stores' generation afterwards.
        batches: number of batches applied (each one generation).
        errors: ``{path: message}`` of unreadable folders and files.
        took_ms: wall time in milliseconds.
    """

    added: int
    changed: int
    moved: int
    deleted: int
    unchanged: int
    generation: int
    batches: int
    errors: dict[str, str]
    took_ms: float

    @property
    def did_work(self) -> bool:
        """True when any page was added, changed, moved or deleted."""
        return bool(self.added or self.changed or self.moved or self.deleted)


@dataclass(frozen=True)
class WriteOptions:
    """How a sync writes its batches: a plain value in place of flags (STYLE item 4).

    Attributes:
        progress_start: called with the number of pages to write; returns a callback fed
            the number of pages done after each batch (or ``None`` for no progress).
        kept_writer: the caller's :class:`~vault_sync.index.KeptWriter`: its writer of the
            index is used and, after the last batch, kept open with merges running (the
            watcher's); ``None`` drops the writer after each commit. A set being built keeps
            its uncommitted writer in one of its own instead.
        building: the stores are a set being built, which no one reads until it is activated:
            the sidecar is bulk-loaded (:meth:`~vault_sync.store.Sidecar.begin_bulk_load`),
            and links are resolved and the index committed once, in the last batch, instead
            of in every batch (a crash loses the set, which is discarded anyway).
    """

    progress_start: Callable[[int], ProgressFn | None] | None = None
    kept_writer: KeptWriter | None = None
    building: bool = False


def _parts(plan: Plan, result: ScanResult, building: bool) -> list[Batch]:
    """The plan cut into bounded batches, in apply order (at least one, maybe empty): the
    first carries the deletes and touched pages, the last the attachment list."""
    upserts = [*plan.new, *plan.modified, *(new for _, new in plan.moved)]
    deletes = [*plan.deleted, *(old for old, _ in plan.moved)]
    work = split_batches(upserts, result.pages) or [[]]
    attachments = set(result.attachments) if not result.unreadable else None
    last = len(work) - 1
    return [
        Batch(
            paths=paths,
            deletes=deletes if number == 0 else [],
            touched=plan.touched if number == 0 else (),
            attachments=attachments if number == last else None,
            building=building,
            complete=number == last or not building,
        )
        for number, paths in enumerate(work)
    ]


def _report(
    plan: Plan, errors: dict[str, str], generation: int, batches: int, started: float
) -> SyncReport:
    """The report of an applied plan; pages that could not be read when applied (in
    ``errors`` but not in the plan's) are not counted as written."""
    failed = set(errors) - set(plan.errors)
    return SyncReport(
        added=sum(1 for p in plan.new if p not in failed),
        changed=sum(1 for p in plan.modified if p not in failed),
        moved=sum(1 for _, p in plan.moved if p not in failed),
        deleted=len(plan.deleted),
        unchanged=plan.unchanged + len(plan.touched),
        generation=generation,
        batches=batches,
        errors=errors,
        took_ms=(time.perf_counter() - started) * 1000,
    )


def apply_plan(
    config: Config,
    plan: Plan,
    result: ScanResult,
    *,
    lock: WriterLock,
    store: Sidecar,
    index_dir: Path,
    options: WriteOptions = WriteOptions(),
    planned_at: int | None = None,
) -> SyncReport:
    """Apply a plan in bounded batches, one generation each (DESIGN §4).

    A batch's pages are read, parsed and scrubbed before the writer lock is taken, so a slow
    page never holds it (issue 14, fault 5), and read again under it when another writer's
    batch landed meanwhile, so an older read never overwrites a newer one.

    Args:
        config, plan, result: the configuration, a plan from :func:`make_plan`, and the
            scan it came from (file entries, attachments).
        lock, store, index_dir: the writer lock (taken around each batch's writes only), an
            open writable sidecar, and the tantivy index folder of the same store set.
        options: progress, kept writer and building mode (:class:`WriteOptions`).
        planned_at: the generation the plan was read from; when the stores are at another
            one once the lock is taken, nothing is applied (another writer did this work).

    Returns:
        The report. Raises :class:`~vault_sync.errors.LockTimeoutError` when another writer
        held the lock longer than ``lock_timeout_s``, ``StoreError`` when a store cannot open.
    """
    started = time.perf_counter()
    parts = _parts(plan, result, options.building)
    total = len(plan.new) + len(plan.modified) + len(plan.moved)
    progress = options.progress_start(total) if options.progress_start else None
    keep = KeptWriter() if options.building else options.kept_writer
    writer = BatchWriter(config, store, index_dir, keep, dict(plan.errors))
    if options.building:
        store.begin_bulk_load()  # its last batch ends it
    generation = 0
    try:
        with Preparer(config, [part.paths for part in parts], result) as preparer:
            for number, part in enumerate(parts):
                read_at = store.generation
                prepared = list(preparer.batch(number))
                with lock:
                    now = store.generation
                    if number == 0 and planned_at is not None and now != planned_at:
                        raise _StalePlan
                    if now != read_at:  # another writer's batch since: these reads may be old
                        pages = result.pages
                        prepared = [prepare.prepare_page(config, pages[p]) for p in part.paths]
                    generation = writer.apply(part, prepared)
                if progress is not None:
                    progress(len(part.paths))
    except BaseException:
        if options.building and keep is not None:
            keep.discard()  # roll back the adds not yet committed; releases tantivy's lock
        raise
    return _report(plan, writer.errors, generation, len(parts), started)


#: How often a writer plans again when another writer applied a batch between its plan and
#: its first batch (the last attempt applies without checking: apply is idempotent).
PLAN_ATTEMPTS = 3


class _StalePlan(Exception):  # control flow inside this module, never raised out of it
    """The stores moved on (a newer generation) between reading them for a plan and taking
    the lock to apply it: the plan may repeat another writer's work and report it as ours."""


def _scan_and_plan(
    config: Config,
    store: Sidecar,
    scanner: Callable[[Config], ScanResult],
    scope: Iterable[str] | None,
) -> tuple[Plan, ScanResult, bool]:
    """Scan (the vault, or ``scope``) and plan against ``store``. Returns ``(plan, scan,
    current)``; ``current`` is False when the stored attachment list must be rewritten."""
    pending = store.pending()
    stored_attachments = store.attachments()
    if scope is None or pending:
        result = scanner(config)
        stored = store.file_states()
    else:
        result, in_scope = scan_paths(config, scope)
        # a name that is not UTF-8 is no key (scan_paths reported it)
        roots = {unicodedata.normalize("NFC", p.strip("/")) for p in scope if is_utf8(p)}
        stored = store.file_states(roots)
        kept = {a for a in stored_attachments if not in_scope(a)}
        result = replace(result, attachments=frozenset(kept | result.attachments))
    known = stored.keys() | stored_attachments
    result, name_errors = without_secret_names(result, scrubber_for(config), known)
    plan = make_plan(config, result, stored, pending)
    plan.errors.update(name_errors)
    gone = tuple(sorted(p for p in pending if p not in result.pages and p not in stored))
    plan = replace(plan, deleted=plan.deleted + gone)
    current = bool(result.unreadable) or stored_attachments == set(result.attachments)
    return plan, result, current


def sync_vault(
    config: Config,
    store_dir: Path,
    *,
    lock: WriterLock,
    options: WriteOptions = WriteOptions(),
    scanner: Callable[[Config], ScanResult] = scan,
    scope: Iterable[str] | None = None,
) -> tuple[Plan, SyncReport]:
    """Bring both stores in step with the vault: scan, plan (redoing any unfinished batch), apply.

    Args:
        config: the vault's configuration.
        store_dir: the store set to bring in step (holding ``index/`` and ``sidecar.sqlite``).
        lock: the writer lock.
        options: progress, kept writer and building mode (:class:`WriteOptions`).
        scanner: the scan function (a seam for tests that inject unreadable folders).
        scope: vault-relative paths (a watcher batch): scan and plan only these and what is
            under them (:func:`~vault_sync.vault.scan_paths`); ``None`` scans the whole vault.
            A pending (unfinished) batch always widens the scope to the whole vault.

    Returns:
        ``(plan, report)``.
    """
    with lock:
        store = Sidecar.open(layout.sidecar_file(store_dir))
    try:
        for attempt in range(PLAN_ATTEMPTS):
            seen = store.generation
            plan, result, current = _scan_and_plan(config, store, scanner, scope)
            if plan.is_empty and current:
                gen = store.generation
                report = SyncReport(0, 0, 0, 0, plan.unchanged, gen, 0, plan.errors, 0)
                return plan, report
            try:
                report = apply_plan(
                    config,
                    plan,
                    result,
                    lock=lock,
                    store=store,
                    index_dir=layout.index_dir(store_dir),
                    options=options,
                    planned_at=seen if attempt < PLAN_ATTEMPTS - 1 else None,
                )
            except _StalePlan:
                continue  # another writer applied a batch since: plan again from its result
            return plan, report
        raise AssertionError("unreachable: the last attempt never checks for a stale plan")
    finally:
        store.close()
