"""The index folder's own files: checked, shared with other users, opened read-only.

Part of :mod:`vault_sync.index` (layer 3). tantivy checks only a segment file's magic number
when it opens an index, writes ``meta.json`` mode 0600, and takes a lock even to read: this
module checks every live segment file's CRC32 footer (:func:`verify_checksums`), gives
tantivy's private files the folder's read permissions (:func:`share_files`), and opens a folder
this user cannot write through a private folder of links (:func:`open_shadow`). Also the two
helpers that turn a tantivy error into one line (:func:`first_line`, :func:`is_panic`).
"""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path

import tantivy

from vault_sync.errors import IndexCorruptError
from vault_sync.index.schema import schema

#: Segment files are named ``<32 hex digits>.<ext>`` (TECH-NOTES §1.1 layout).
SEGMENT_FILE = re.compile(r"^[0-9a-f]{32}\.")
#: The files every segment named in meta.json has (tantivy's SegmentComponent, but the
#: temporary store and the optional ``.del``): postings, positions, terms, store, fast
#: fields, field norms.
_SEGMENT_PARTS = ("idx", "pos", "term", "store", "fast", "fieldnorm")
_FOOTER_MAGIC = 1337  # tantivy's footer magic number (``0x539``), after the JSON footer


def open_shadow(path: Path, exc: ValueError) -> tantivy.Index:
    """Open, for reading, an index whose folder this user cannot write (a store made by
    another user, a read-only mount): tantivy takes a lock even to read, on a file it must
    open for writing. A private folder of symlinks to the index's files (never its lock
    files) gives it lock files of its own; segment files are immutable, so reading them
    through links is safe. The folder goes when the process exits.

    Raises:
        PermissionError: a file of the index cannot be read by this user either.
    """
    import atexit
    import shutil
    import tempfile

    shadow = Path(tempfile.mkdtemp(prefix="vault-sync-index-"))
    atexit.register(shutil.rmtree, shadow, True)
    for file in path.iterdir():
        if not file.name.startswith(".tantivy-"):
            if not os.access(file, os.R_OK):
                raise PermissionError(f"{file.name} is not readable") from exc
            (shadow / file.name).symlink_to(file)
    return tantivy.Index(schema(), path=str(shadow), reuse=True)


#: tantivy's own files that it writes atomically through a private (mode 0600) temp file.
_PRIVATE_FILES = ("meta.json", ".managed.json")


def share_files(path: Path) -> None:
    """Give tantivy's ``meta.json`` and ``.managed.json`` the read permissions of the index
    folder (0755 -> 0644, 0700 -> 0600): tantivy writes them mode 0600, so a store made by
    one user could not be read by any other, even where its folder lets them read."""
    try:
        mode = path.stat().st_mode & 0o666
        for name in _PRIVATE_FILES:
            file = path / name
            if file.exists() and file.stat().st_mode & 0o777 != mode:
                file.chmod(mode)
    except OSError:
        pass  # a courtesy to other users; never fails a write


def is_panic(exc: BaseException) -> bool:
    """True for pyo3's ``PanicException`` (a BaseException): tantivy panicked on bad data."""
    return type(exc).__name__ == "PanicException"


def first_line(exc: BaseException) -> str:
    """The first line of a tantivy error's message, at most 300 characters (its type's name
    when it has none): the one line an error message of vault-sync quotes."""
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def verify_checksums(path: Path) -> None:
    """Check the CRC32 footer of every segment file of the index at ``path``.

    tantivy ends each segment file with a JSON footer holding the CRC32 (the zlib/IEEE
    polynomial, as ``crc32fast``) of the bytes before it, then the footer's length (u32 LE) and
    the magic number 1337. tantivy checks only the magic number at open, so garbage written
    inside a file goes unseen until a search panics or, for positions, silently misranks.

    Only segments named in ``meta.json`` are checked: files of a merge or commit that a
    killed writer left half-written are not part of the index (tantivy deletes them when the
    next writer opens), so they must not make a healthy index look damaged.

    Raises:
        IndexCorruptError: a file a live segment needs is missing, a file's footer is
            missing or its checksum differs, or ``meta.json`` cannot be read.
    """
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        live = {seg["segment_id"].replace("-", "") for seg in meta["segments"]}
        live_deletes = {
            f"{seg['segment_id'].replace('-', '')}.{seg['deletes']['opstamp']}.del"
            for seg in meta["segments"]
            if seg.get("deletes")
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexCorruptError(f"index at {path} is damaged: meta.json: {exc}") from exc
    present = {file.name for file in path.iterdir()}
    needed = {f"{seg}.{part}" for seg in live for part in _SEGMENT_PARTS} | live_deletes
    missing = sorted(needed - present)
    if missing:  # a checksum check sees only the files that are there
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise IndexCorruptError(f"index at {path} is damaged: missing {shown}")
    for file in sorted(path.iterdir()):
        if not SEGMENT_FILE.match(file.name):
            continue
        if file.name.endswith(".del"):
            if file.name not in live_deletes:
                continue
        elif file.name.split(".", 1)[0] not in live:
            continue
        data = file.read_bytes()
        try:
            if len(data) < 8:
                raise ValueError("shorter than its footer")
            length = int.from_bytes(data[-8:-4], "little")
            magic = int.from_bytes(data[-4:], "little")
            if magic != _FOOTER_MAGIC or length + 8 > len(data):
                raise ValueError("footer magic number mismatch")
            footer = json.loads(data[-8 - length : -8])
            if zlib.crc32(data[: -8 - length]) != footer["crc"]:
                raise ValueError("checksum mismatch")
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexCorruptError(f"index at {path} is damaged: {file.name}: {exc}") from exc
