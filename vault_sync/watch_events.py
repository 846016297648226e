"""The watcher's seam: watchdog events -> vault-relative paths -> debounced batches.

:class:`EventHandler` turns watchdog events into vault-relative paths: a file's ``src`` (and a
move's ``dest``) are "look again"; reads (``opened``, ``closed_no_write``), folder
``modified`` events and the engine's own ``.vault-sync/`` writes are dropped (TECH-NOTES §2).
It never decides what happened: the batch is classified by what is on disk at flush time.
:class:`PathBatcher` is the seam (watchfiles' pattern): paths in, :class:`Batch` values out,
with a quiet window (``debounce_ms``) and a longest wait (``max_delay_ms``), polled every
:data:`TICK_MS`, so a lone save is never stranded waiting for another event. An inotify
queue overflow, which watchdog only logs on :data:`OVERFLOW_LOGGER`, becomes a reconcile
request (``_OverflowHandler``). No threads are started here; :mod:`vault_sync.watch` runs the
loop and :mod:`vault_sync.import_watch` reuses the batcher.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.events import (
    DirModifiedEvent,
    FileClosedNoWriteEvent,
    FileOpenedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

#: watchdog's inotify backend reports a queue overflow only as a log record here (TECH-NOTES §2).
OVERFLOW_LOGGER = "watchdog.observers.inotify_c"
#: How often the loop looks at the batcher, in ms: a lone save waits at most this past its
#: quiet window.
TICK_MS = 25

logger = logging.getLogger(__name__)

Clock = Callable[[], float]


@dataclass
class Batch:
    """Paths to look at again (vault-relative, as the events named them) and whether a full
    reconcile was asked for (overflow, period, start)."""

    paths: set[str] = field(default_factory=set)
    reconcile: bool = False
    #: folders that appeared (created, moved in, a symlink to a folder made): each gets a
    #: watch of its own before the batch scans it (:mod:`vault_sync.watch_arm`)
    folders: set[str] = field(default_factory=set)


class PathBatcher:
    """Collect paths and release them as debounced batches (thread-safe).

    A batch is due when ``debounce_ms`` passed since its last path, or ``max_delay_ms`` since
    its first, whichever comes first (DESIGN §3 config table: 150 / 1000 ms by default).

    Args:
        debounce_ms: the quiet window, in milliseconds.
        max_delay_ms: the longest wait from a batch's first path, in milliseconds.
        clock: seconds, monotonic (a seam for tests).
    """

    def __init__(self, debounce_ms: int, max_delay_ms: int, clock: Clock = time.monotonic):
        self.debounce_s = debounce_ms / 1000
        self.max_delay_s = max(max_delay_ms, debounce_ms) / 1000
        self.clock = clock
        self._lock = threading.Lock()
        self._batch = Batch()
        self._first = 0.0
        self._last = 0.0

    def add(
        self, paths: Iterable[str] = (), *, reconcile: bool = False, folders: Iterable[str] = ()
    ) -> None:
        """Add paths (and/or a reconcile request, and/or folders that appeared) to the open
        batch."""
        now = self.clock()
        with self._lock:
            empty = not self._batch.paths and not self._batch.reconcile
            self._batch.paths.update(paths)
            self._batch.folders.update(folders)
            self._batch.reconcile |= reconcile
            if empty and (self._batch.paths or self._batch.reconcile):
                self._first = now
            self._last = now

    @property
    def depth(self) -> int:
        """Number of paths waiting."""
        with self._lock:
            return len(self._batch.paths)

    def due(self) -> bool:
        """Whether the open batch should be applied now."""
        now = self.clock()
        with self._lock:
            if not self._batch.paths and not self._batch.reconcile:
                return False
            return now - self._last >= self.debounce_s or now - self._first >= self.max_delay_s

    def take(self) -> Batch:
        """Return the open batch and start a new, empty one."""
        with self._lock:
            batch, self._batch = self._batch, Batch()
            return batch


class EventHandler(FileSystemEventHandler):
    """Feed a :class:`PathBatcher` with the vault-relative paths watchdog events name.

    A folder created or moved in, or a symlink to a folder made, is also recorded as a folder
    that appeared (:attr:`Batch.folders`).

    Args:
        vault: the vault root (absolute).
        store_dir: the store folder, relative to the vault; its events are the engine's own.
        batcher: where paths go.
        root: the folder this handler's watch is on (default: the vault); a symlinked folder's
            target, whose events are named under ``prefix``.
        prefix: the vault-relative path of ``root`` ("" for the vault).
    """

    def __init__(
        self,
        vault: Path,
        store_dir: str,
        batcher: PathBatcher,
        root: Path | None = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.vault = str(vault)
        self.root = str(root or vault)
        self.prefix = prefix
        self.store_prefix = store_dir.rstrip("/") + "/"
        self.batcher = batcher

    def _relative(self, path: str | bytes) -> str | None:
        text = os.fsdecode(path)
        rel = os.path.relpath(text, self.root)
        if rel == "." or rel.startswith(".."):
            return None
        rel = rel.replace(os.sep, "/")
        if self.prefix:
            rel = f"{self.prefix}/{rel}"
        if rel == self.store_prefix[:-1] or rel.startswith(self.store_prefix):
            return None
        return rel

    def on_any_event(self, event: FileSystemEvent) -> None:
        """Record the paths of one event (reads and folder-modified events are dropped). An
        error here would end watchdog's thread, and the watcher would hear nothing more: it is
        logged, and a reconcile asked for instead."""
        try:
            self._record(event)
        except Exception as exc:
            logger.warning("watch event not read (%s: %s); rescanning", type(exc).__name__, exc)
            self.batcher.add(reconcile=True)

    def _record(self, event: FileSystemEvent) -> None:
        if isinstance(event, FileOpenedEvent | FileClosedNoWriteEvent | DirModifiedEvent):
            return
        paths = [event.src_path]
        dest = getattr(event, "dest_path", "")
        if dest:
            paths.append(dest)
        rels = [r for r in (self._relative(p) for p in paths) if r is not None]
        if not rels:
            return
        appeared = ""
        if event.event_type in ("created", "moved"):
            last = os.fsdecode(paths[-1])
            if event.is_directory or (os.path.islink(last) and os.path.isdir(last)):
                appeared = self._relative(last) or ""
        self.batcher.add(rels, folders=[appeared] if appeared else ())


class _OverflowHandler(logging.Handler):
    """Turn watchdog's "Inotify queue overflowed" log record into a reconcile request."""

    def __init__(self, batcher: PathBatcher) -> None:
        super().__init__(level=logging.WARNING)
        self.batcher = batcher

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.batcher.add(reconcile=True)
