"""The one-writer lock (DESIGN §1 Invariant 3, §4): short-held, cross-process, named holder.

A writer holds :class:`WriterLock` around each bounded batch only, never while idle. Beside
the lock file, ``writer.json`` names the holder (pid, command, since) so a writer that times
out can say who holds it. An exclusive ``flock(2)`` on ``write.lock`` (an OS-level lock,
released by the kernel when the holder dies, even by SIGKILL), taken here with :mod:`fcntl`
(:class:`_FileLock`) rather than through ``filelock``, whose import cost ~20 ms of every
``sync`` process (2026-12-05; the watcher's own life lock still uses it).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from vault_sync.errors import LockTimeoutError, StoreError
from vault_sync.layout import HOLDER_NAME, LOCK_NAME

#: How often a writer waiting for the lock tries again, seconds (``filelock``'s default).
POLL_S = 0.05
#: ``flock`` errors that mean another holder (some file systems answer EACCES).
_BUSY = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK})


class _Busy(Exception):  # control flow inside this module: the lock is held elsewhere
    """The lock stayed held by another process or thread for the whole wait."""


class _FileLock:
    """One lock file of this process: an exclusive ``flock`` on it, re-entrant in the thread
    that holds it; other threads (and processes) wait. Shared by every :class:`WriterLock` of
    one store folder (:func:`_file_lock`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._guard = threading.Lock()  # guards the three fields below
        self._owner: int | None = None  # the thread that holds the lock
        self._depth = 0
        self._fd = -1

    def held_here(self) -> bool:
        """Whether the calling thread holds the lock."""
        return self._owner == threading.get_ident()

    def _try(self) -> bool:
        me = threading.get_ident()
        with self._guard:
            if self._owner == me:
                self._depth += 1
                return True
            if self._owner is not None:
                return False
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # OSError: to the caller
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in _BUSY:
                    return False
                raise
            self._owner, self._depth, self._fd = me, 1, fd
            return True

    def acquire(self, timeout_s: float) -> None:
        """Take the lock, trying every :data:`POLL_S` for up to ``timeout_s`` seconds (0: once).

        Raises:
            _Busy: still held elsewhere when the time was up.
            OSError: the lock file cannot be opened for writing.
        """
        deadline = time.monotonic() + timeout_s
        while not self._try():
            if time.monotonic() >= deadline:
                raise _Busy(self.path)
            time.sleep(POLL_S)

    def release(self) -> None:
        """Release one level; the last one unlocks and closes the file. A thread that does
        not hold the lock releases nothing."""
        with self._guard:
            if self._owner != threading.get_ident():
                return
            self._depth -= 1
            if self._depth:
                return
            fd, self._owner, self._fd = self._fd, None, -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


_FILE_LOCKS: dict[str, _FileLock] = {}
_FILE_LOCKS_GUARD = threading.Lock()


def _file_lock(path: str) -> _FileLock:
    """The one :class:`_FileLock` of ``path`` in this process."""
    with _FILE_LOCKS_GUARD:
        lock = _FILE_LOCKS.get(path)
        if lock is None:
            lock = _FILE_LOCKS[path] = _FileLock(path)
        return lock


def _after_fork_in_child() -> None:
    """In a forked child (a sync's worker process), hold none of the parent's locks: close the
    child's copy of each lock file (the parent's lock stays the parent's, and the child of a
    killed writer no longer keeps it held) and forget who held what."""
    global _FILE_LOCKS_GUARD
    _FILE_LOCKS_GUARD = threading.Lock()  # another thread may have held it at the fork
    for lock in _FILE_LOCKS.values():
        if lock._fd >= 0:
            os.close(lock._fd)
        lock._guard = threading.Lock()
        lock._owner, lock._depth, lock._fd = None, 0, -1


os.register_at_fork(after_in_child=_after_fork_in_child)


class WriterLock:
    """A re-entrant writer lock on a store folder; re-entrant across instances of one thread
    too (every ``WriterLock`` of one store folder in a process shares one file lock).

    Args:
        store: the store folder (created if missing).
        timeout_s: how long :meth:`acquire` waits, in seconds (config ``lock_timeout_s``).
    """

    def __init__(self, store: Path, timeout_s: float) -> None:
        try:
            store.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot make the store folder {store}: {exc.strerror or exc}"
            ) from exc
        self.store = store
        self.timeout_s = timeout_s
        # One lock per store folder in a process: a writer that holds it (a write command
        # around its check and its create) can sync under it, through a second WriterLock,
        # without waiting for itself; other threads still wait.
        self._lock = _file_lock(str(store / LOCK_NAME))
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
        first = not self._lock.held_here()
        try:
            if self.on_wait is not None and first:
                try:
                    self._lock.acquire(0)
                except _Busy:
                    self.on_wait()  # someone else writes: give back what we hold, then wait
                    self._lock.acquire(self.timeout_s)
            else:
                self._lock.acquire(self.timeout_s)
        except _Busy as exc:
            raise LockTimeoutError(
                f"the vault is being written by {self.holder()}; waited {self.timeout_s:g} s"
                " (config lock_timeout_s)"
            ) from exc
        except OSError as exc:  # the lock file is opened for writing: EACCES, EROFS
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

    A writer takes an exclusive ``flock`` on that file; a writer that tries while the probe
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
