"""Write a file whole or not at all: the one atomic write of the package (DESIGN Invariant 5).

Every file vault-sync writes after it first exists — a page (``pagefile.write_page``), the
store's ``current`` pointer and stamp (``layout``), the watcher's state (``watch``) — goes
through :func:`write_atomic`: the bytes go to a temporary file in the same folder, are fsynced,
replace the target with one ``os.replace`` (atomic on POSIX within a file system), and the
folder is fsynced so the rename itself survives a crash. A reader sees the old bytes or the new
ones, never a mix; a crash leaves at most a stray temporary file, never a truncated target.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path


def temp_name(name: str) -> str:
    """The temporary name :func:`write_atomic` writes ``name``'s bytes under, in its folder.

    A dot-name (the vault walker and the watcher leave dot-names out), tagged with this
    process's pid so two writers never share one: ``.current.vault-sync-123.tmp``.
    """
    return f".{name}.vault-sync-{os.getpid()}.tmp"


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename or a new file in it) to disk.

    Raises:
        OSError: the folder cannot be opened.
    """
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(
    path: Path,
    data: bytes,
    *,
    mode: int | None = None,
    before_replace: Callable[[], None] | None = None,
    replace: bool = True,
) -> None:
    """Replace (or create) ``path`` with ``data``: temp file, fsync, rename, fsync the folder.

    Args:
        path: the file to write.
        data: its complete new content.
        mode: permission bits for the new file (e.g. the old file's); the umask's when ``None``.
        before_replace: called after the new bytes are on disk and before the rename, the last
            moment to refuse (it raises); the temporary file is then removed.
        replace: ``False`` creates ``path`` only if no file has that name (a hard link from
            the temporary file instead of the rename): a new page never replaces one that
            appeared meanwhile.

    Raises:
        FileExistsError: ``replace=False`` and ``path`` exists.
        OSError: the folder cannot be written. The temporary file never stays behind.
    """
    tmp = path.with_name(temp_name(path.name))
    try:
        with open(tmp, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if before_replace is not None:
            before_replace()
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails when the name exists: no file is ever replaced
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    fsync_folder(path.parent)
