"""The one-writer lock (DESIGN §1 Invariant 3, §4): short-held, cross-process, named holder.

A writer holds :class:`WriterLock` around each bounded batch only, never while idle. Beside
the lock file, ``writer.json`` names the holder (pid, command, since) so a writer that times
out can say who holds it. Built on ``filelock`` (an OS-level lock, released by the kernel when
the holder dies, even by SIGKILL).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from vault_sync.errors import LockTimeoutError, StoreError
from vault_sync.layout import HOLDER_NAME, LOCK_NAME


class WriterLock:
    """A re-entrant writer lock on a store folder; re-entrant across instances of one thread
    too (every ``WriterLock`` of one store folder in a process shares one file lock).

    Args:
        store: the store folder (created if missing).
        timeout_s: how long :meth:`acquire` waits, in seconds (config ``lock_timeout_s``).
    """

    def __init__(self, store: Path, timeout_s: float) -> None:
        from filelock import FileLock  # ~15 ms to import: only writers pay it, never `query`

        try:
            store.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot make the store folder {store}: {exc.strerror or exc}"
            ) from exc
        self.store = store
        self.timeout_s = timeout_s
        # One lock per store folder in a process (is_singleton): a writer that holds it
        # (a write command around its check and its create) can sync under it, through a
        # second WriterLock, without waiting for itself; other threads still wait.
        self._lock = FileLock(str(store / LOCK_NAME), is_singleton=True)
        #: Called once when the lock is busy, before waiting: the watcher passes a function
        #: that finishes and drops the index writer it keeps between batches, which the
        #: other writer may be waiting for.
        self.on_wait: Callable[[], None] | None = None

    def holder(self) -> str:
        """Describe the current holder from ``writer.json`` ("pid 123 (vault-sync watch)")."""
        try:
            info = json.loads((self.store / HOLDER_NAME).read_text(encoding="utf-8"))
            return f"pid {info['pid']} ({info['command']})"
        except (OSError, ValueError, KeyError, TypeError):
            return "an unknown process"

    def acquire(self) -> None:
        """Take the lock, waiting up to ``timeout_s``.

        Raises:
            LockTimeoutError: another writer held it for longer; the message names it.
            StoreError: this user cannot write the lock file (a store made by another user).
        """
        from filelock import Timeout

        first = not self._lock.is_locked
        try:
            if self.on_wait is not None and first:
                try:
                    self._lock.acquire(timeout=0)
                except Timeout:
                    self.on_wait()  # someone else writes: give back what we hold, then wait
                    self._lock.acquire(timeout=self.timeout_s)
            else:
                self._lock.acquire(timeout=self.timeout_s)
        except Timeout as exc:
            raise LockTimeoutError(
                f"the vault is being written by {self.holder()}; waited {self.timeout_s:g} s"
                " (config lock_timeout_s)"
            ) from exc
        except OSError as exc:  # filelock opens the lock file for writing: EACCES, EROFS
            raise StoreError(
                f"cannot write {self.store / LOCK_NAME}: {exc.strerror or exc}"
                " (the store belongs to another user, or is read-only)"
            ) from exc
        if first:
            info = {"pid": os.getpid(), "command": " ".join(sys.argv[:2]), "since": time.time()}
            with contextlib.suppress(OSError):  # the name is a courtesy, not a requirement
                (self.store / HOLDER_NAME).write_text(json.dumps(info), encoding="utf-8")

    def release(self) -> None:
        """Release one level of the lock."""
        self._lock.release()

    def __enter__(self) -> WriterLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def writer_busy(store: Path) -> bool:
    """Whether some process (this one included) holds the writer lock of the store folder
    ``store`` now: a shared ``flock`` tried without waiting on ``write.lock``, opened read-only
    (so a reader of another user's store can ask too) and released at once.

    ``filelock`` takes an exclusive ``flock`` on that file; a writer that tries while the probe
    holds it retries at its next poll. No lock file (never written) or one this user cannot
    open: ``False``.
    """
    try:
        fd = os.open(store / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
