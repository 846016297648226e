"""The plan of a sync: what is on disk now against what the sidecar holds, as a plain value.

:func:`make_plan` classifies each page of a scan (:class:`~vault_sync.scan_result.ScanResult`)
against the sidecar's ``(hash, mtime_ns, size)``: unchanged (mtime, size, name on disk) skips
the hash; a changed stat with an equal content hash is only *touched*; a stored page not on
disk is *deleted* unless it lies under a folder that could not be read (*kept*: deleting
needs proof of absence, DESIGN §4); a delete and a create with equal content hash is a *move*
(``_pair_moves``). The result is a :class:`Plan` (sets plus an ``errors`` map); nothing is
written here (:mod:`vault_sync.sync` applies it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from vault_sync.config import Config
from vault_sync.pagefile import read_page
from vault_sync.scan_result import FileEntry, ScanResult, stat_proves_unchanged
from vault_sync.store import FileState


@dataclass(frozen=True)
class Plan:
    """What a sync will do; a plain value (STYLE item 4).

    Attributes:
        new: paths of pages not in the stores.
        modified: paths whose content hash changed.
        moved: ``(old_path, new_path)`` pairs with equal content hash.
        deleted: stored paths proven absent.
        touched: ``(path, state)`` of pages whose stat changed but content did not.
        kept: stored paths under unreadable folders, not deleted for lack of proof.
        unchanged: number of pages skipped by (mtime, size).
        errors: ``{path: message}`` for folders and files that could not be read.
    """

    new: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    moved: tuple[tuple[str, str], ...] = ()
    deleted: tuple[str, ...] = ()
    touched: tuple[tuple[str, FileState], ...] = ()
    kept: tuple[str, ...] = ()
    unchanged: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """True when nothing in the stores needs to change."""
        return not (self.new or self.modified or self.moved or self.deleted or self.touched)


def _hash_of(config: Config, entry: FileEntry) -> str | None:
    try:
        return read_page(config.vault, entry)[1]
    except OSError:
        return None


def make_plan(
    config: Config,
    result: ScanResult,
    stored: dict[str, FileState],
    pending: Iterable[str] = (),
) -> Plan:
    """Classify every page of a scan against the stored file states.

    Args:
        config: the vault's configuration.
        result: the scan.
        stored: ``{path: FileState}`` from the sidecar.
        pending: paths of an unfinished batch; they are redone whatever their stat says.

    Returns:
        The plan. Reads (and hashes) only files whose stat changed, and new files only when
        something was deleted (to pair moves).
    """
    redo = set(pending)
    new: list[str] = []
    modified: list[str] = []
    touched: list[tuple[str, FileState]] = []
    unchanged = 0
    errors = {u.path: u.error for u in result.unreadable}
    for path, entry in result.pages.items():
        state = stored.get(path)
        if state is None:
            new.append(path)
            continue
        # both are named tuples: indexed and unpacked, a 10k-page plan reads them at C speed
        disk_path = entry[1]
        _, stored_mtime_ns, stored_size, stored_disk_path = state
        if path in redo or stored_disk_path not in (None, disk_path):
            # a rename between spellings equal after NFC keeps the key and the stat: the
            # stored name must follow, or reads and writes look for a file that is gone
            modified.append(path)
        elif stat_proves_unchanged(entry, stored_mtime_ns, stored_size):
            unchanged += 1
        else:
            digest = _hash_of(config, entry)
            if digest == state.hash:
                touched.append((path, FileState(digest, entry.mtime_ns, entry.size)))
            else:
                modified.append(path)
    absent = [p for p in stored if p not in result.pages]
    kept = [p for p in absent if not result.absence_proven(p)]
    deleted = [p for p in absent if result.absence_proven(p)]
    moved, deleted, new = _pair_moves(config, result, stored, deleted, new)
    return Plan(
        new=tuple(sorted(new)),
        modified=tuple(sorted(modified)),
        moved=tuple(moved),
        deleted=tuple(sorted(deleted)),
        touched=tuple(sorted(touched)),
        kept=tuple(sorted(kept)),
        unchanged=unchanged,
        errors=errors,
    )


def _pair_moves(
    config: Config,
    result: ScanResult,
    stored: dict[str, FileState],
    deleted: list[str],
    new: list[str],
) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """Pair deleted and new pages of equal content hash as moves, in sorted order of the new
    paths (a deleted page pairs once). Returns ``(moved, deleted, new)`` without the pairs."""
    moved: list[tuple[str, str]] = []
    if not (deleted and new):
        return moved, deleted, new
    by_hash: dict[str, list[str]] = {}
    for path in deleted:
        by_hash.setdefault(stored[path].hash, []).append(path)
    for path in sorted(new):
        digest = _hash_of(config, result.pages[path])
        olds = by_hash.get(digest or "")
        if olds:
            moved.append((olds.pop(0), path))
    moved_old = {o for o, _ in moved}
    moved_new = {n for _, n in moved}
    return moved, [p for p in deleted if p not in moved_old], [p for p in new if p not in moved_new]
