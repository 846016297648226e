"""The watcher: watchdog events -> debounced path batches -> the same apply as ``sync``.

The only threaded module. :class:`Watcher` runs the loop: reconcile at start, apply each due
batch under the writer lock (held per batch only), reconcile on inotify queue overflow
(watchdog only logs it, on the ``watchdog.observers.inotify_c`` logger) and every
``reconcile_s``; it stops cleanly on SIGINT / SIGTERM and writes its state
(:class:`WatchState`) to ``.vault-sync/watch.json`` for ``status``. Its inputs come through
the seam of :mod:`vault_sync.watch_events` (``EventHandler`` turns events into paths,
``PathBatcher`` releases them as debounced batches), testable alone.

A batch looks again at the paths its events named, and at everything under those that are
folders (:func:`vault_sync.vault.scan_paths`), and applies the plan: deletes need proof of
absence, moves are paired by content hash, so every file operation (atomic saves, vim's dance,
folder moves, ``git checkout``) reduces to "what is on disk now". Reconciles rescan it all.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vault_sync.atomic import write_atomic
from vault_sync.config import Config
from vault_sync.errors import LockTimeoutError, VaultGoneError, VaultSyncError, WatcherRunningError
from vault_sync.ignore import build_ignore_matcher
from vault_sync.index import KeptWriter
from vault_sync.layout import WATCH_LOCK_NAME, WATCH_STATE_NAME
from vault_sync.sync import SyncReport
from vault_sync.sync_plan import Plan
from vault_sync.typed_text import scrub_data
from vault_sync.watch_arm import Arming
from vault_sync.watch_events import (
    OVERFLOW_LOGGER,
    TICK_MS,
    Batch,
    EventHandler,
    PathBatcher,
    _OverflowHandler,
)

logger = logging.getLogger(__name__)


#: After this long without a batch, the watcher finishes its index writer's merges and drops
#: it (it keeps it between close batches so a ~1 s merge never delays the next save), seconds.
IDLE_RELEASE_S = 1.0
#: ``run_sync(config, full_check=...) -> (plan, report, notice)``: the engine's sync, passed in
#: by the caller (the watcher sits below the engine, STYLE.md layers).
SyncFn = Callable[..., tuple[Plan, SyncReport, "str | None"]]


@dataclass
class WatchState:
    """What ``status`` shows of a running watcher (``.vault-sync/watch.json``).

    Attributes:
        pid: the watcher's process id.
        started: start time, ISO 8601 UTC.
        running: False once it stopped cleanly.
        batches: batches applied so far.
        last_batch: the last applied batch: ``at``, ``added``, ``changed``, ``moved``,
            ``deleted``, ``ms``, ``generation``; or None.
        errors: errors so far; ``last_error`` the newest one's text.
        queue_depth: paths waiting for the next batch.
    """

    pid: int
    started: str
    running: bool = True
    batches: int = 0
    last_batch: dict[str, Any] | None = None
    errors: int = 0
    last_error: str | None = None
    queue_depth: int = 0


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Watcher:
    """Keep both stores in step with the vault until :meth:`stop` is called.

    Args:
        config: the vault's configuration (``debounce_ms``, ``max_delay_ms``, ``reconcile_s``).
        sync: the engine's ``run_sync`` (checks and repairs stores, then scan -> plan -> apply).
        report: called with one dict per applied batch (the CLI logs it).
        after_batch: called after the first pass and each batch that changed the stores (the
            engine's briefing refresh, :meth:`vault_sync.app.Engine.write_briefs`); its time is
            logged as ``brief_ms`` (wall) and ``brief_cpu_ms`` (this thread's CPU time, which
            a busy machine stretches less), a :class:`~vault_sync.errors.VaultSyncError` or
            ``OSError`` it raises as ``brief_error`` (the watcher goes on).
    """

    def __init__(
        self,
        config: Config,
        sync: SyncFn,
        report: Callable[[dict[str, Any]], None] | None = None,
        after_batch: Callable[[], object] | None = None,
    ) -> None:
        self.config = config
        self.sync = sync
        self.after_batch = after_batch
        self.report = report or (lambda _line: None)
        self.batcher = PathBatcher(config.debounce_ms, config.max_delay_ms)
        self.stopping = threading.Event()
        self.state = WatchState(pid=os.getpid(), started=_utc_now())
        self._next_reconcile = 0.0
        self._last_apply = 0.0
        #: (st_dev, st_ino) of the vault folder at start: a watcher whose root is renamed
        #: or deleted stops, and never recreates the old path (issue 14).
        self._root_id: tuple[int, int] | None = None
        #: The index writer kept between close batches, merges running: waiting for a ~1 s
        #: merge after a commit delayed the next save by as much (IDLE_RELEASE_S).
        self.writer = KeptWriter()
        #: Inode of the store folder the state file was last written into (0: none yet).
        self._store_ino = 0
        #: The observer and its watches (while :meth:`run` runs).
        self.arming: Arming | None = None
        #: Whether ``after_batch`` ran once (the first pass runs it whatever changed).
        #: the stores' generation the targets were last refreshed at (None: not yet)
        self._briefed_generation: int | None = None
        self._armed_at_start = False
        #: Batches failed in a row (0 after one applied) and when the next may be tried.
        self._failures = 0
        self._retry_at = 0.0

    # -- one batch ------------------------------------------------------------------------

    def apply(self, batch: Batch) -> dict[str, Any] | None:
        """Apply one batch: its paths (and what is under them) are looked at again; a
        ``reconcile`` batch rescans the whole vault and checks the stores in full. Returns the
        logged line, or None when nothing changed.

        Raises:
            LockTimeoutError: another writer held the lock; the caller retries.
        """
        self._check_root()
        started = time.perf_counter()
        scope = None if batch.reconcile else batch.paths
        self._arm(batch)
        if batch.reconcile:
            self.writer.release()  # full checks read every index file: let merges finish
        _plan, report, notice = self.sync(
            self.config, full_check=batch.reconcile, scope=scope, kept_writer=self.writer
        )
        self._last_apply = time.monotonic()
        ms = round((time.perf_counter() - started) * 1000, 1)
        line: dict[str, Any] = {
            "at": _utc_now(),
            "added": report.added,
            "changed": report.changed,
            "moved": report.moved,
            "deleted": report.deleted,
            "ms": ms,
            "generation": report.generation,
            "paths": len(batch.paths),
            "reconcile": batch.reconcile,
        }
        if notice:
            line["notice"] = notice
        if report.errors:
            line["errors"] = report.errors
            # status shows the errors a batch logged, not only the watcher's own failures (a
            # page that went while the batch read it is a delete, never one of them)
            self.state.errors += len(report.errors)
            path, message = sorted(report.errors.items())[0]
            self.state.last_error = f"{path}: {message}"
        # the first pass brings the targets up to date even when the stores were (a page
        # synced while no watcher ran leaves them stale); later passes when the stores changed,
        # by this batch or by another writer since the last refresh (an agent's `remember` or
        # `reinforce` syncs its page itself, so the watcher's batch for it finds nothing to do:
        # fresh-user report, the targets stayed stale)
        moved = report.generation != self._briefed_generation
        if self.after_batch is not None and (report.did_work or notice or moved):
            self._after_batch(line)
            self._briefed_generation = report.generation
        if not report.did_work and not notice and not report.errors and "brief_error" not in line:
            return None
        self.state.batches += 1
        self.state.last_batch = line
        return line

    def _arm(self, batch: Batch) -> None:
        """Put the watches this batch needs in place *before* it scans (:mod:`watch_arm`): a
        reconcile after the first re-arms them all; folders that appeared get their own."""
        if self.arming is None:
            return
        if batch.reconcile:
            if self._armed_at_start:
                self.arming.rearm()
            self._armed_at_start = True
        elif batch.folders and self.arming.arm(batch.folders):
            self.batcher.add(reconcile=True)  # too many extra watches: re-arm one root watch

    def _after_batch(self, line: dict[str, Any]) -> None:
        """Run the after-batch step (briefings), timing it into ``line``; its failure is
        logged in ``line`` and never stops the watcher."""
        assert self.after_batch is not None
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            self.after_batch()
        except (VaultSyncError, OSError) as exc:
            line["brief_error"] = str(exc)
        line["brief_ms"] = round((time.perf_counter() - started) * 1000, 1)
        line["brief_cpu_ms"] = round((time.thread_time() - cpu) * 1000, 1)

    def _check_root(self) -> None:
        """Stop when the vault folder is gone or replaced (renamed, moved, deleted): following
        events of a moved folder would recreate the old path with an empty store.

        Raises:
            VaultGoneError: the vault path no longer names the folder the watcher started on.
        """
        try:
            st = os.stat(self.config.vault)
            now = (st.st_dev, st.st_ino)
        except OSError:
            now = None
        if self._root_id is None:
            self._root_id = now
        if now is None or now != self._root_id:
            raise VaultGoneError(
                f"vault folder {self.config.vault} was moved or deleted; stopped watching"
                " (start watch again on its new path)"
            )

    def _tick_checks(self) -> None:
        """Each tick: stop if the vault folder is gone (:meth:`_check_root`); write the state
        file again if a deleted store folder took it along and a writer (a read that synced,
        a CLI sync) made the folder again, so ``status`` never says "never ran" meanwhile.
        Two ``stat`` calls."""
        self._check_root()
        try:  # a store folder made again (another inode): its state file went with the old
            made_again = os.stat(self.config.store_path).st_ino != self._store_ino
        except OSError:
            return
        if made_again and not (self.config.store_path / WATCH_STATE_NAME).exists():
            self._write_state()

    def _flush(self, batch: Batch) -> None:
        try:
            line = self.apply(batch)
        except VaultGoneError:
            raise
        except LockTimeoutError as exc:  # never drop a batch: put it back and retry
            self.batcher.add(batch.paths, reconcile=batch.reconcile, folders=batch.folders)
            self._failed(str(exc))
            return
        except (VaultSyncError, sqlite3.DatabaseError, OSError) as exc:
            # The vault or a store failed in a way the engine did not repair: keep watching,
            # and make the next batch a reconcile (full store checks, rebuild if damaged).
            self.batcher.add(batch.paths, reconcile=True, folders=batch.folders)
            self._failed(str(exc))
            return
        except Exception as exc:
            # (fresh-user report 4 F4: a name that is not UTF-8 killed the watcher, exit 1,
            # and nothing said so). Logged with its type; the next batch is a reconcile.
            self.batcher.add(reconcile=True)
            self._failed(f"internal error ({type(exc).__name__}: {exc}); please report it")
            return
        self._failures, self._retry_at = 0, 0.0  # applied: the backoff starts over
        if line is not None:
            self.report(line)
        self._write_state()

    def _failed(self, message: str) -> None:
        """A batch failed and was put back: the next try waits ``retry_ms``, doubled for each
        failure in a row up to ``retry_max_ms`` (the ticks go on meanwhile); one warning per
        step, naming the wait, so a lasting failure logs ever more slowly."""
        first, most = self.config.retry_ms, self.config.retry_max_ms
        wait_ms = min(most, first << min(self._failures, 40))
        self._failures += 1
        self._retry_at = time.monotonic() + wait_ms / 1000
        self.state.errors += 1
        self.state.last_error = message
        logger.warning(
            "%s (failure %d in a row; next try in %d ms)", message, self._failures, wait_ms
        )
        self._write_state()

    def _write_state(self) -> None:
        self.state.queue_depth = self.batcher.depth
        # scrubbed: its errors and notices name paths, and a folder name can hold a token
        data = json.dumps(scrub_data(self.state.__dict__, self.config), sort_keys=True).encode()
        with contextlib.suppress(OSError):
            write_atomic(self.config.store_path / WATCH_STATE_NAME, data)
            self._store_ino = os.stat(self.config.store_path).st_ino

    # -- the loop -------------------------------------------------------------------------

    def run(self, on_claimed: Callable[[], object] | None = None) -> None:
        """Reconcile, then watch until :meth:`stop`; returns after a clean shutdown.
        ``on_claimed`` is called once this watcher holds the vault (no other watcher runs),
        before the first reconcile: where the CLI says "watching".

        Raises:
            WatcherRunningError: another watcher already watches this vault.
            VaultSyncError: the first reconcile failed (the vault or store is unusable).
        """
        self._check_root()
        self._claim()
        if on_claimed is not None:
            on_claimed()
        overflow = _OverflowHandler(self.batcher)
        logging.getLogger(OVERFLOW_LOGGER).addHandler(overflow)
        vault, store_dir = self.config.vault, self.config.store_dir
        matcher = build_ignore_matcher(self.config)
        self.arming = Arming(
            vault,
            store_dir,
            lambda root, prefix: EventHandler(vault, store_dir, self.batcher, root, prefix),
            lambda rel: matcher.is_ignored(rel, is_dir=True),
        )
        self.arming.start()  # before the first reconcile, so no change between them is missed
        try:
            first = self.apply(Batch(reconcile=True))
            if first is not None:
                self.report(first)
            self._write_state()
            self._next_reconcile = time.monotonic() + self.config.reconcile_s
            while not self.stopping.wait(TICK_MS / 1000):
                self._tick_checks()
                if self.config.reconcile_s and time.monotonic() >= self._next_reconcile:
                    self.batcher.add(reconcile=True)
                    self._next_reconcile = time.monotonic() + self.config.reconcile_s
                if self.batcher.due() and time.monotonic() >= self._retry_at:
                    self._flush(self.batcher.take())
                elif self._last_apply and time.monotonic() - self._last_apply >= IDLE_RELEASE_S:
                    self.writer.release()  # idle: finish merges, give tantivy's lock back
                    self._last_apply = 0.0
            pending = self.batcher.take()  # a clean stop applies what was already seen
            if pending.paths or pending.reconcile:
                self._check_root()
                self._flush(pending)
        finally:
            self.writer.release()
            self.arming.stop()
            self._life_lock.release()
            logging.getLogger(OVERFLOW_LOGGER).removeHandler(overflow)
            self.state.running = False
            self._write_state()

    def _claim(self) -> None:
        """Hold ``watch.lock`` for the watcher's lifetime: one watcher per vault.

        Raises:
            WatcherRunningError: another watcher holds it (the message names its pid).
        """
        from filelock import FileLock, Timeout

        self.config.store_path.mkdir(parents=True, exist_ok=True)
        self._life_lock = FileLock(str(self.config.store_path / WATCH_LOCK_NAME))
        try:
            self._life_lock.acquire(timeout=0)
        except Timeout as exc:
            other = "another process"
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                state = json.loads((self.config.store_path / WATCH_STATE_NAME).read_text())
                other = f"pid {state['pid']}"
            raise WatcherRunningError(
                f"a watcher already runs for {self.config.vault} ({other})"
            ) from exc

    def stop(self) -> None:
        """Ask the loop to finish (safe from a signal handler or another thread)."""
        self.stopping.set()
