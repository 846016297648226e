"""The watcher's inotify watches: which folders are watched, and re-arming them.

Two rules the plain ``Observer.schedule(vault, recursive=True)`` breaks (issue 14, fresh-user
notes):

- **A folder that appears is watched, whatever order its events arrive in.** ``mkdir g;
  mv f0 g/sub`` back to back: watchdog 7's recursive watch may learn of ``g/sub`` by walking
  ``g`` before the unpaired "moved from ``f0``" is handled; ``g/sub`` shares ``f0``'s inotify
  watch (same inode), and dropping ``f0``'s subtree ~0.5 s later drops that watch, so every
  later change under ``g/sub`` went unseen until the periodic reconcile. :meth:`Arming.arm`
  gives each folder that appeared a recursive watch of its own (its own callback on the
  shared inotify instance, so another watch's removal leaves it in place); the batch then
  scans the folder whole *after* its watch is in place, so nothing between is missed.
- **The watcher watches what ``sync`` reads.** ``sync`` follows a symlinked folder once (also
  outside the vault); inotify does not. Each symlinked folder gets a watch on its target whose
  events are named under the link's vault path (the watcher's handler with a ``prefix``);
  links nested inside a target are followed the same way, each target once (a loop or repeat
  is skipped, as the scan skips it).

Extra watches accumulate between reconciles; :meth:`Arming.rearm` (each reconcile, before its
full scan) replaces the observer by a fresh one holding one root watch plus the link watches of
the moment, so their number stays bounded (:data:`MAX_EXTRA` asks for an early reconcile).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from vault_sync.discover import mount_fs_type, pseudo_file_system

#: Extra watches (appeared folders) past which the watcher asks for a reconcile, which re-arms
#: one root watch: each watch is a thread in watchdog.
MAX_EXTRA = 64

HandlerFactory = Callable[[Path, str], FileSystemEventHandler]


def _under(rel: str, prefixes: set[str]) -> bool:
    return any(rel == p or rel.startswith(p + "/") for p in prefixes)


class Arming:
    """The observer and its watches for one vault.

    Args:
        vault: the vault root (absolute).
        store_dir: the store folder, relative to the vault (never watched through a link).
        handler_for: ``(root, prefix) -> handler``: a handler whose events under ``root`` are
            named ``prefix/...`` vault-relative (``prefix`` "" for the vault itself).
        ignored: ``rel -> bool``: whether the vault's ignore rules leave a folder out (a
            symlinked folder left out by an ``ignore`` glob is not watched either).
    """

    def __init__(
        self,
        vault: Path,
        store_dir: str,
        handler_for: HandlerFactory,
        ignored: Callable[[str], bool] = lambda _rel: False,
    ) -> None:
        self.vault = vault
        self.store_dir = store_dir.rstrip("/")
        self.handler_for = handler_for
        self.ignored = ignored
        self.root_handler = handler_for(vault, "")
        self.observer: BaseObserver | None = None
        #: vault-relative folders with a watch of their own since the last (re-)arm, with the
        #: (st_dev, st_ino) they had: a watch follows its inode, not its path
        self.extra: dict[str, tuple[int, int]] = {}
        #: vault-relative symlinked folders watched through their targets (the target's id)
        self.links: dict[str, tuple[int, int]] = {}
        #: the extra watches scheduled, by absolute path
        self._watches: dict[str, ObservedWatch] = {}

    def start(self) -> None:
        """Start a fresh observer: one recursive root watch and the symlinked folders'."""
        observer = Observer()
        observer.schedule(self.root_handler, str(self.vault), recursive=True)
        observer.start()
        old, self.observer = self.observer, observer
        self.extra = {}
        self.links = {}
        self._watches = {}
        self._arm_links("", self.vault, {_ident(self.vault)})
        if old is not None:  # after the new watches are in place: no gap between them
            _stop(old)

    rearm = start

    def stop(self) -> None:
        """Stop watching."""
        if self.observer is not None:
            _stop(self.observer)
            self.observer = None

    def arm(self, folders: set[str]) -> bool:
        """Give each appeared folder (vault-relative) still on disk a recursive watch of its own
        (a symlinked one: a watch on its target); folders under one already armed are
        skipped. Returns True when the extra watches passed :data:`MAX_EXTRA`."""
        for rel in sorted(folders, key=lambda r: (r.count("/"), r)):
            if _under(rel, {self.store_dir}) or self._covered(rel) or self.ignored(rel):
                continue
            path = self.vault / rel
            if path.is_symlink():
                self._arm_link(rel, path, {_ident(self.vault)})
            elif path.is_dir():
                ident = _ident_or_none(path)
                if ident is None:
                    continue
                self._schedule(self.root_handler, path)
                self.extra[rel] = ident
                self._arm_links(rel, path, {_ident(self.vault)})
        return len(self.extra) > MAX_EXTRA

    def _covered(self, rel: str) -> bool:
        """Whether a watch armed on ``rel`` or a folder above it still watches it: the folder
        at that path is still the one armed (a folder deleted or moved away and made again
        is not; found by the random runs: ``f2`` armed, deleted, ``mkdir f2; mv g0
        f2/sub``). Stale entries are dropped."""
        for armed, table, resolve in (
            *((a, self.extra, False) for a in list(self.extra)),
            *((a, self.links, True) for a in list(self.links)),
        ):
            if not (rel == armed or rel.startswith(armed + "/")):
                continue
            path = self.vault / armed
            with contextlib.suppress(OSError, RuntimeError):
                path = path.resolve(strict=True) if resolve else path
            if _ident_or_none(path) == table[armed]:
                return True
            del table[armed]
        return False

    # -- symlinked folders -----------------------------------------------------------------

    def _arm_links(self, prefix: str, folder: Path, seen: set[tuple[int, int]]) -> None:
        """Watch each symlinked folder under ``folder`` (named ``prefix`` in the vault)."""
        for root, dirs, _files in os.walk(folder):
            rel_root = os.path.relpath(root, folder).replace(os.sep, "/")
            keep = []
            for name in dirs:
                rel = "/".join(p for p in (prefix, rel_root, name) if p and p != ".")
                if rel == self.store_dir or name.startswith(".") or self.ignored(rel):
                    continue
                if Path(root, name).is_symlink():
                    self._arm_link(rel, Path(root, name), seen)
                else:
                    keep.append(name)
            dirs[:] = keep

    def _arm_link(self, rel: str, link: Path, seen: set[tuple[int, int]]) -> None:
        """Watch a symlinked folder through its target (events named ``rel/...``), and the
        links under that target; each target once (a loop or repeat is skipped)."""
        try:
            target = link.resolve(strict=True)
            ident = _ident(target)
        except (OSError, RuntimeError):  # broken, or a loop: the scan skips and reports it
            return
        if not target.is_dir() or ident in seen or self.links.get(rel) == ident:
            return
        if pseudo_file_system(str(target), mount_fs_type(target)):
            return  # /proc, /sys, /dev: the scan never reads there, so nothing to watch
        seen.add(ident)
        self._schedule(self.handler_for(target, rel), target)
        self.links[rel] = ident
        self._arm_links(rel, target, seen)

    def _schedule(self, handler: FileSystemEventHandler, path: Path) -> None:
        """Schedule a recursive watch on ``path``; one scheduled there before (a folder since
        moved away or deleted: its watch followed the old inode, and watchdog would hand back
        that watch for the same path) is unscheduled first."""
        assert self.observer is not None
        old = self._watches.pop(str(path), None)
        if old is not None:
            self.observer.unschedule(old)
        with contextlib.suppress(OSError):  # gone again, or unreadable: the scan reports it
            self._watches[str(path)] = self.observer.schedule(handler, str(path), recursive=True)


def _ident(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino)


def _ident_or_none(path: Path) -> tuple[int, int] | None:
    try:
        return _ident(path)
    except OSError:
        return None


def _stop(observer: BaseObserver) -> None:
    observer.stop()
    observer.join(timeout=5)
