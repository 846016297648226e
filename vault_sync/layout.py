"""The store folder's layout: a folder of its own, holding sets of stores and a pointer.

::

    .vault-sync/                 (config ``store_dir``)
        VAULT_SYNC_STORE         marker: this folder belongs to vault-sync
        .gitignore               ``*``: git ignores the folder wherever it is made
        write.lock, writer.json  the writer lock and its holder (lock.py)
        watch.lock, watch.json   held by a running watcher; its state, read by ``status``
        current                  the name of the active set, e.g. ``set-000002``
        set-000002/index/        tantivy index
        set-000002/sidecar.sqlite
        set-000002/checked.json  the store files as the last writer left them (write_stamp)
        set-000002/BUILDING      while a set is being built: the builder's pid

Every one of these names is defined here, once (``*_NAME``), and used from here.

Readers open the set named by ``current``. A rebuild (or a repair) builds a new set beside the
active one and then switches ``current`` with one atomic rename, so readers see the old stores
until the new ones are complete — never a half-built store — and a crash mid-rebuild leaves the
old set active. Sets that are not current are pruned by the next writer.

vault-sync only ever deletes what this module recognises as its own: a folder that holds other
files is refused as a store folder, so a ``store_dir`` pointing at a folder of notes can never
lose them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from vault_sync.atomic import write_atomic
from vault_sync.config import STORE_MARKER_NAME
from vault_sync.errors import StoreError

#: Marks the store folder as vault-sync's own (:func:`claim`); named in the config module,
#: which discovery (below this layer) reads it from.
MARKER_NAME = STORE_MARKER_NAME
#: Written with the marker: git ignores the whole store folder (``*`` matches the file
#: itself too), so a store made in a repository that never ran ``init`` (a read command in a
#: folder of Markdown files syncs first) is never offered for a commit (gitignore(5)).
GITIGNORE_NAME = ".gitignore"
_GITIGNORE_TEXT = "# vault-sync's derived stores: rebuilt from the vault, never committed\n*\n"
#: Names the active set (:func:`activate`).
CURRENT_NAME = "current"
#: The writer lock (``lock.WriterLock``) and the file naming its holder.
LOCK_NAME = "write.lock"
HOLDER_NAME = "writer.json"
#: Held by a running watcher for its lifetime (a second watcher on the vault is refused).
WATCH_LOCK_NAME = "watch.lock"
#: The watcher's state file, read by ``status``.
WATCH_STATE_NAME = "watch.json"
#: Inside a set: the SQLite sidecar, the tantivy index folder, the build marker, the stamp.
SIDECAR_NAME = "sidecar.sqlite"
INDEX_NAME = "index"
BUILDING_NAME = "BUILDING"
#: A set's stamp: the (size, mtime, inode) of every store file, as the last writer left them.
STAMP_NAME = "checked.json"
#: Written in a set by a reader that met damage the writers' checks missed (one line: what it
#: met); the next writer rebuilds the set (readers never repair, DESIGN §3).
DAMAGED_NAME = "DAMAGED"
#: Set folders: ``set-`` and six digits, numbered up (:func:`new_set`).
_SET_FORMAT = "set-{:06d}"
_SET = re.compile(r"set-(\d{6})\Z")
_OWN_FILES = {
    MARKER_NAME,
    GITIGNORE_NAME,
    CURRENT_NAME,
    LOCK_NAME,
    HOLDER_NAME,
    WATCH_STATE_NAME,
    WATCH_LOCK_NAME,
}


#: A temporary file :func:`~vault_sync.atomic.write_atomic` left behind (killed mid-write).
_TEMP = re.compile(r"\.(.+)\.vault-sync-\d+\.tmp\Z")


def _is_own(name: str) -> bool:
    if name in _OWN_FILES or _SET.match(name) or name.startswith(f"{CURRENT_NAME}.tmp"):
        return True
    temp = _TEMP.match(name)
    return temp is not None and temp[1] in _OWN_FILES


def claim(root: Path) -> None:
    """Make ``root`` the store folder, or refuse a folder that is not ours.

    Raises:
        StoreError: ``root`` is a file, or a folder without the marker that holds anything
            vault-sync did not create (the message lists a few names).
    """
    if root.exists() and not root.is_dir():
        raise StoreError(f"store_dir {root} is a file; set store_dir to a folder of its own")
    if (root / MARKER_NAME).is_file():
        if not (root / GITIGNORE_NAME).exists():  # a store made before the file was written
            _write_gitignore(root)
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
    _write_gitignore(root)


def _write_gitignore(root: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only store folder still works without it
        (root / GITIGNORE_NAME).write_text(_GITIGNORE_TEXT, encoding="utf-8")


def active_set(root: Path) -> Path | None:
    """The active set's folder, or ``None`` when there is none (never synced, deleted)."""
    try:
        name = (root / CURRENT_NAME).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = root / name
    return folder if _SET.match(name) and folder.is_dir() else None


def new_set(root: Path) -> Path:
    """Create and return an empty set folder numbered after every existing one, marked as
    being built by this process (``BUILDING`` holds the pid) until :func:`activate`."""
    numbers = [int(m[1]) for n in os.listdir(root) if (m := _SET.match(n))]
    folder = root / _SET_FORMAT.format(max(numbers, default=0) + 1)
    folder.mkdir()
    (folder / BUILDING_NAME).write_text(str(os.getpid()), encoding="utf-8")
    return folder


def activate(root: Path, folder: Path) -> None:
    """Point ``current`` at ``folder`` with one atomic rename (readers switch at once)."""
    write_atomic(root / CURRENT_NAME, f"{folder.name}\n".encode())
    (folder / BUILDING_NAME).unlink(missing_ok=True)


def _being_built(folder: Path) -> bool:
    """Whether a live process (not this one) is still building ``folder``."""
    try:
        pid = int((folder / BUILDING_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return pid != os.getpid() and process_alive(pid)


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 probes without sending anything).

    The one liveness check of the pids the store folder records (``BUILDING``, the watcher's
    ``watch.json``). A pid another user owns (``EPERM``) or one the OS cannot take (too large)
    counts as alive: nothing is deleted, nothing is claimed on a guess.
    """
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
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
            import shutil  # here: most syncs prune nothing (its archive modules cost ~2.5 ms)

            shutil.rmtree(root / name, ignore_errors=True)


def sidecar_file(folder: Path) -> Path:
    """The sidecar database of a set."""
    return folder / SIDECAR_NAME


def index_dir(folder: Path) -> Path:
    """The tantivy index folder of a set."""
    return folder / INDEX_NAME


def _store_files(folder: Path) -> dict[str, list[int]]:
    """``{name: [size bytes, mtime ns, inode]}`` of the sidecar, its WAL and every index file
    (lock files and SQLite's ``-shm``, which readers touch, left out; so is an empty WAL: a
    reader opening the sidecar creates one, which holds nothing — counting it made every
    writer after a read run the full check, ~130 ms at 10k pages)."""
    files: dict[str, list[int]] = {}
    candidates = [sidecar_file(folder), Path(f"{sidecar_file(folder)}-wal")]
    with contextlib.suppress(OSError):  # no index folder: the stamp holds no index file
        candidates += [p for p in index_dir(folder).iterdir() if not p.name.endswith(".lock")]
    for path in candidates:
        try:
            st = path.stat()
        except OSError:
            continue
        if st.st_size == 0 and path.name.endswith("-wal"):
            continue
        files[path.relative_to(folder).as_posix()] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return files


def write_stamp(folder: Path) -> None:
    """Record the store files of ``folder`` as a writer leaves them consistent (checked, then
    written only by vault-sync). Call under the writer lock."""
    write_atomic(folder / STAMP_NAME, json.dumps(_store_files(folder), sort_keys=True).encode())


def stamp_matches(folder: Path) -> bool:
    """Whether no store file of ``folder`` changed since :func:`write_stamp` (nor appeared, nor
    went): then the full check of the stores (~80 ms at 10k pages) can be skipped.

    Damage from outside vault-sync — a truncated or overwritten file, a deleted one, a copy put
    in place — changes a size, an mtime or an inode. Not seen: a change within the same clock
    tick (a few ms) as the last write, and damage below the file system (a bad disk); SQLite
    and tantivy still report those when they read the damaged part, and the engine rebuilds.
    """
    try:
        recorded = json.loads((folder / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(recorded) and recorded == _store_files(folder)


def flag_damaged(folder: Path, reason: str) -> None:
    """Mark the set ``folder`` as damaged for the next writer (by a reader; no lock needed).
    Best effort: a reader that cannot write the store (another user's) leaves no flag."""
    with contextlib.suppress(OSError):
        write_atomic(folder / DAMAGED_NAME, " ".join(reason.split()).encode("utf-8"))


def damage_flag(folder: Path) -> str | None:
    """What a reader found wrong with the set ``folder`` (:func:`flag_damaged`), or None."""
    try:
        return (folder / DAMAGED_NAME).read_text(encoding="utf-8", errors="replace") or "damaged"
    except OSError:
        return None
