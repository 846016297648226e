"""The store folder's layout: a folder of its own, holding sets of stores and a pointer.

::

    .vault-sync/                 (config ``store_dir``)
        VAULT_SYNC_STORE         marker: this folder belongs to vault-sync
        write.lock, writer.json  the writer lock and its holder (lock.py)
        current                  the name of the active set, e.g. ``set-000002``
        set-000002/index/        tantivy index
        set-000002/sidecar.sqlite

Readers open the set named by ``current``. A rebuild (or a repair) builds a new set beside the
active one and then switches ``current`` with one atomic rename, so readers see the old stores
until the new ones are complete — never a half-built store — and a crash mid-rebuild leaves the
old set active. Sets that are not current are pruned by the next writer.

vault-sync only ever deletes what this module recognises as its own: a folder that holds other
files is refused as a store folder, so a ``store_dir`` pointing at a folder of notes can never
lose them.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from vault_sync.config import WATCH_STATE_NAME
from vault_sync.errors import StoreError
from vault_sync.index import INDEX_NAME
from vault_sync.lock import HOLDER_NAME, LOCK_NAME
from vault_sync.store import SIDECAR_NAME

MARKER_NAME = "VAULT_SYNC_STORE"
CURRENT_NAME = "current"
_SET = re.compile(r"set-(\d{6})\Z")
_OWN_FILES = {
    MARKER_NAME,
    CURRENT_NAME,
    LOCK_NAME,
    HOLDER_NAME,
    WATCH_STATE_NAME,
    "watch.lock",  # watch.WATCH_LOCK_NAME (watch sits above this module)
}


def _is_own(name: str) -> bool:
    return name in _OWN_FILES or bool(_SET.match(name)) or name.startswith(f"{CURRENT_NAME}.tmp")


def claim(root: Path) -> None:
    """Make ``root`` the store folder, or refuse a folder that is not ours.

    Raises:
        StoreError: ``root`` is a file, or a folder without the marker that holds anything
            vault-sync did not create (the message lists a few names).
    """
    if root.exists() and not root.is_dir():
        raise StoreError(f"store_dir {root} is a file; set store_dir to a folder of its own")
    if (root / MARKER_NAME).is_file():
        return
    if root.is_dir():
        foreign = sorted(n for n in os.listdir(root) if not _is_own(n))
        if foreign:
            listed = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise StoreError(
                f"store_dir {root} holds files vault-sync did not create ({listed});"
                " set store_dir to a folder of its own"
            )
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER_NAME).write_text(
        "This folder holds vault-sync's derived stores. Delete it at will:"
        " `vault-sync rebuild` makes it again from the vault.\n",
        encoding="utf-8",
    )


def active_set(root: Path) -> Path | None:
    """The active set's folder, or ``None`` when there is none (never synced, deleted)."""
    try:
        name = (root / CURRENT_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = root / name
    return folder if _SET.match(name) and folder.is_dir() else None


BUILDING_NAME = "BUILDING"


def new_set(root: Path) -> Path:
    """Create and return an empty set folder numbered after every existing one, marked as
    being built by this process (``BUILDING`` holds the pid) until :func:`activate`."""
    numbers = [int(m[1]) for n in os.listdir(root) if (m := _SET.match(n))]
    folder = root / f"set-{max(numbers, default=0) + 1:06d}"
    folder.mkdir()
    (folder / BUILDING_NAME).write_text(str(os.getpid()), encoding="utf-8")
    return folder


def activate(root: Path, folder: Path) -> None:
    """Point ``current`` at ``folder`` with one atomic rename (readers switch at once)."""
    tmp = root / f"{CURRENT_NAME}.tmp{os.getpid()}"
    tmp.write_text(folder.name + "\n", encoding="utf-8")
    os.replace(tmp, root / CURRENT_NAME)
    (folder / BUILDING_NAME).unlink(missing_ok=True)


def _being_built(folder: Path) -> bool:
    """Whether a live process (not this one) is still building ``folder``."""
    try:
        pid = int((folder / BUILDING_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prune(root: Path) -> None:
    """Delete every set folder that is neither active nor being built by another live
    process (a rebuild in another process builds its set in batches, releasing the lock
    between them). Call under the writer lock."""
    keep = active_set(root)
    for name in os.listdir(root):
        if not _SET.match(name) or (keep is not None and name == keep.name):
            continue
        if not _being_built(root / name):
            shutil.rmtree(root / name, ignore_errors=True)


def sidecar_file(folder: Path) -> Path:
    """The sidecar database of a set."""
    return folder / SIDECAR_NAME


def index_dir(folder: Path) -> Path:
    """The tantivy index folder of a set."""
    return folder / INDEX_NAME
