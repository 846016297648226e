"""One page file: read its bytes once (text, content hash, decoding problem), write it back
atomically and only if unchanged (DESIGN §2, Invariant 5).

The sync path only reads (:func:`read_page`); :func:`write_page` (``redact``'s byte-exact
rewrite) and :func:`edit_page` (agent edits, redoing the change when the page changed under
it) are the write paths for pages. Neither walks the vault
(:mod:`vault_sync.vault`) nor parses a page.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from vault_sync.atomic import write_atomic
from vault_sync.errors import EditConflictError, EditRefusedError, PageChangedError

_UTF8_BOM = b"\xef\xbb\xbf"


class OnDisk(Protocol):
    """Where a page is: what :func:`read_page` needs of a scan's ``FileEntry``."""

    @property
    def disk_path(self) -> str:
        """The vault-relative POSIX path as named on disk."""
        ...


def content_hash(data: bytes) -> str:
    """Return the content hash of a page: BLAKE2b with a 16-byte digest, 32 hex characters."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


#: The most of a page that is read, in bytes (8 MiB): a longer page is read up to the last
#: line break within it, and ``lint`` names it (``page_too_large``). Sync held ~30 times a
#: page's size (``/usr/bin/time -v vault-sync sync`` of a page of prose with links and tags
#: beside three small pages: 40 MB, 1.1 GB RSS and 47 s; 8 MB, 300 MB and 11 s; three small
#: pages alone, 53 MB); a 5 MB page stays whole (``tests/test_cli.py``), and the largest page
#: of the corpora in ``../shared/corpora`` is 76 kB.
MAX_PAGE_BYTES = 8 << 20


def read_page(vault: Path, entry: OnDisk) -> tuple[str, str, str | None, int | None]:
    """Read one page once: its text, its content hash and any decoding problem.

    Bad content never raises: see :func:`decode_page` (UTF-16 and UTF-32 are read as such,
    other bytes that are not UTF-8 become U+FFFD, the problem is returned for ``lint``). A
    leading UTF-8 BOM is dropped (it is hashed, being on disk). A page over
    :data:`MAX_PAGE_BYTES` is read up to the last line break within that many bytes.

    Args:
        vault: the vault root.
        entry: the page, as :func:`vault_sync.vault.scan` found it (opened by ``entry.disk_path``).

    Returns:
        ``(text, content_hash, decode_error, size)``: the text (:func:`decode_page`), the
        hash of all the raw bytes (:func:`content_hash`), ``None`` or :func:`decode_page`'s
        problem, and the file's size in bytes when the text was cut (else ``None``).

    Raises:
        OSError: the file cannot be read (``FileNotFoundError`` when it vanished after the
            scan); the caller decides what that means.
    """
    with open(vault / entry.disk_path, "rb") as file:
        data = file.read(MAX_PAGE_BYTES + 1)
        if len(data) <= MAX_PAGE_BYTES:
            text, problem = decode_page(data)
            return text, content_hash(data), problem, None
        # a page over the limit is hashed whole but never held whole: read in chunks (a 4 GB
        # sparse file was read into memory before it was cut: MemoryError; a re-check of
        # the fresh user's report, F5)
        digest = hashlib.blake2b(data, digest_size=16)
        size = len(data)
        while chunk := file.read(_HASH_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    text, problem = decode_page(_cut(data))
    return text, digest.hexdigest(), problem, size


#: Bytes read at a time while hashing the rest of a page over :data:`MAX_PAGE_BYTES`.
_HASH_CHUNK = 1 << 20


def _cut(data: bytes) -> bytes:
    """The first :data:`MAX_PAGE_BYTES` of ``data``, back to its last line break (or, in
    one line that long, to the start of a UTF-8 character)."""
    end = data.rfind(b"\n", 0, MAX_PAGE_BYTES) + 1
    if end == 0:
        end = MAX_PAGE_BYTES
        while end > 0 and 0x80 <= data[end] < 0xC0:  # a UTF-8 continuation byte
            end -= 1
    return data[:end]


#: Byte-order marks of the UTF-16 and UTF-32 forms Windows tools save text in (PowerShell's
#: ``>``, Notepad's "Unicode"), longest first (a UTF-32-LE mark starts with UTF-16-LE's).
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
#: Share of NUL bytes at even or at odd offsets above which text without a mark is read as
#: UTF-16 (little- or big-endian): ASCII in UTF-16 has a NUL in every other byte, while
#: random bytes have one in 256 and UTF-8 text none.
_UTF16_NUL_SHARE = 0.3


def _wide_encoding(data: bytes) -> str | None:
    """The UTF-16/32 codec ``data`` is in, by its mark or its NUL pattern, or ``None``."""
    for bom, codec in _WIDE_BOMS:
        if data.startswith(bom):
            return codec
    sample = data[:4096]
    half = len(sample) // 2
    if half < 8:
        return None
    if sample[1::2].count(0) > _UTF16_NUL_SHARE * half:
        return "utf-16-le"
    if sample[0::2].count(0) > _UTF16_NUL_SHARE * half:
        return "utf-16-be"
    return None


def decode_page(data: bytes) -> tuple[str, str | None]:
    """A page's bytes as text, the one decoding rule of every reader (sync, ``redact``).

    UTF-8 (a leading BOM dropped) is the format. Text saved as UTF-16 or UTF-32 (found by its
    byte-order mark, or UTF-16 by its NUL bytes) is decoded as such, so that the sanitizer
    reads the words (decoded as UTF-8, ``ghp_...`` became ``g\\0h\\0p\\0_...`` and no rule
    matched it); other bytes that are not UTF-8 become U+FFFD. Never raises.

    Returns:
        ``(text, problem)``: ``problem`` is ``None`` for UTF-8, else one line for ``lint``
        (``"not valid UTF-8 at byte 123 (line 4)"``, 0-based file byte offset, 1-based line,
        or ``"UTF-16 text, not UTF-8: read as UTF-16"``); vault-sync never rewrites such a page.
    """
    try:
        text: str | None = data.decode("utf-8-sig")
        error: UnicodeDecodeError | None = None
    except UnicodeDecodeError as exc:
        text, error = None, exc
    # ASCII in UTF-16 without a mark is valid UTF-8 too, with a NUL in every other place
    codec = _wide_encoding(data) if text is None or "\x00" in text else None
    if codec is not None:
        name = codec[:6].upper()
        wide = data.decode(codec, errors="replace").lstrip("\ufeff")
        return wide, f"{name} text, not UTF-8: read as {name}"
    if error is None:
        return str(text), None
    offset = error.start + (len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0)
    line = data.count(b"\n", 0, offset) + 1
    problem = f"not valid UTF-8 at byte {offset} (line {line})"
    # imported here: its character sets cost ~3 ms to compile, and most processes read
    # only UTF-8 pages (h-sync2's measurement)
    from vault_sync.legacy_cjk import legacy_cjk

    legacy = legacy_cjk(data)
    if legacy is not None:
        return legacy[1], f"{problem}: read as {legacy[0]}"
    return data.decode("utf-8-sig", errors="replace"), problem


def write_page(vault: Path, disk_path: str, data: bytes, expected_hash: str) -> None:
    """Replace one page's bytes atomically, refusing if it changed since it was read.

    The one write path for pages (DESIGN Invariant 5), through
    :func:`vault_sync.atomic.write_atomic`: a temporary dot-name file in the same folder
    (walkers and the watcher ignore it), fsynced, with the page's permission bits, checked
    once more, then one ``os.replace`` and a fsync of the folder. Callers keep every byte they
    did not mean to change.

    Args:
        vault: the vault root.
        disk_path: the page's vault-relative on-disk path.
        data: the complete new content.
        expected_hash: :func:`content_hash` of the bytes the caller read.

    Raises:
        PageChangedError: the page's bytes no longer hash to ``expected_hash``.
        OSError: the page or its folder cannot be written.
    """
    target = vault / disk_path
    if content_hash(target.read_bytes()) != expected_hash:
        raise PageChangedError(f"{disk_path} changed since it was read; not written")
    mode = target.stat().st_mode & 0o7777

    def unchanged() -> None:  # the last look before replacing
        if content_hash(target.read_bytes()) != expected_hash:
            raise PageChangedError(f"{disk_path} changed since it was read; not written")

    write_atomic(target, data, mode=mode, before_replace=unchanged)


#: How often an edit starts again on the fresh bytes when the page changed under it.
EDIT_ATTEMPTS = 4


def _open_read(target: Path) -> tuple[int, bytes]:
    """An open handle on ``target`` (never through a symlink) and its bytes."""
    fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
    return fd, _read_all(fd)


def _read_all(fd: int) -> bytes:
    """Every byte of an open file, from its start (``pread``: the offset is left alone)."""
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def edit_page(
    vault: Path,
    disk_path: str,
    change: Callable[[str], str],
    *,
    dry_run: bool = False,
    before_replace: Callable[[], None] | None = None,
) -> tuple[str, str]:
    """Change one page's text atomically, redoing the change when the page changed under it.

    Optimistic concurrency (issue 11; docs/writing.md): read through a handle kept open,
    write a temporary file; just before the rename the page must still be that inode with
    those bytes, else redo the change on the fresh ones; after it, a save made in place into
    the old inode meanwhile gets the change re-applied. Left: an editor's own rename between
    that last check and ours (microseconds): its save is then replaced by ours.

    ``vault`` / ``disk_path``: the page, already confined (:func:`vault_sync.confine.confined`);
    ``change``: old text -> new text (BOM and encoding kept here); ``dry_run``: compute only;
    ``before_replace``: test seam, called just before the last check of each write. Returns
    ``(old_text, new_text)`` of the write that landed (equal: nothing to change).

    Raises:
        EditRefusedError: the page is not UTF-8 text (vault-sync never rewrites such a page).
        EditConflictError: it changed :data:`EDIT_ATTEMPTS` times, or twice around the rename
            (the save it lost kept beside it: ``.NAME.vault-sync-conflict``).
        OSError: the page cannot be read or written (``FileNotFoundError`` when it is gone).
    """
    target = vault / disk_path
    fd, base = _open_read(target)  # the inode the page must be; the bytes to change
    expect, lost = base, None  # bytes the page must hold; a save lost in a replaced inode
    try:
        mode = os.fstat(fd).st_mode & 0o7777
        for _ in range(EDIT_ATTEMPTS):
            text, new_text, new = _changed(disk_path, base, change)
            if new_text == text or dry_run:
                return text, new_text
            try:
                _replace(target, new, expect, _inode(os.fstat(fd)), mode, before_replace)
            except PageChangedError:
                if lost is not None:  # saved twice meanwhile: keep the one not in the page
                    raise _conflict_copy(target, disk_path, lost) from None
                os.close(fd)  # changed since read: start again on the fresh bytes
                fd, base = _open_read(target)
                expect = base
                continue
            if _read_all(fd) == expect:  # nothing was saved into the replaced inode
                return text, new_text
            # A save in place into the inode read, between the check and the rename: redo the
            # change on it, over our file; a second such save diverges: kept beside the page.
            later = _read_all(fd)
            if lost is not None:
                raise _conflict_copy(target, disk_path, later)
            base = lost = later
            os.close(fd)
            fd, _ = _open_read(target)
            expect = new
    finally:
        os.close(fd)
    message = f"{disk_path} kept changing while it was edited; not written"
    raise EditConflictError(message) if lost is None else _conflict_copy(target, disk_path, lost)


#: Suffix of the hidden file a save is kept in when two saves raced an edit (a dot-name: the
#: walker and the watcher leave it out).
CONFLICT_SUFFIX = ".vault-sync-conflict"


def _conflict_copy(target: Path, disk_path: str, data: bytes) -> EditConflictError:
    """Keep ``data`` (a person's save that the page no longer holds) beside the page, as
    ``.NAME.vault-sync-conflict`` (``-2``, ``-3``... when taken), and return the error
    naming both files."""
    number = 1
    while True:  # never over an earlier copy
        suffix = CONFLICT_SUFFIX if number == 1 else f"{CONFLICT_SUFFIX}-{number}"
        copy = target.with_name(f".{target.name}{suffix}")
        try:
            write_atomic(copy, data, replace=False)
            break
        except FileExistsError:
            number += 1
    return EditConflictError(
        f"{disk_path} was saved twice while it was edited: it keeps the edit and the later"
        f" save; the earlier save is kept in {copy.name} beside it: merge it by hand"
    )


def create_page(vault: Path, disk_path: str, text: str) -> None:
    """Write a new page whole (temporary file, fsync, hard link to the name, fsync the
    folder), its folders made as needed; never replaces a file of that name.

    Args:
        vault: the vault root; ``disk_path`` must already be confined to it
            (:func:`vault_sync.confine.confined`).
        disk_path: the new page's vault-relative path.
        text: its content (written as UTF-8).

    Raises:
        FileExistsError: a file of that name exists (another writer made it first).
        OSError: the folder cannot be made or written.
    """
    target = vault / disk_path
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, text.encode("utf-8"), replace=False)


def _inode(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def _changed(disk_path: str, data: bytes, change: Callable[[str], str]) -> tuple[str, str, bytes]:
    """``(text, new_text, new_bytes)`` of a change, the BOM kept; refuses non-UTF-8 pages."""
    text, problem = decode_page(data)
    if problem is not None:
        raise EditRefusedError(f"{disk_path}: {problem}; vault-sync edits only UTF-8 pages")
    new_text = change(text)
    bom = _UTF8_BOM if data.startswith(_UTF8_BOM) else b""
    return text, new_text, bom + new_text.encode("utf-8")


def _replace(
    target: Path,
    new: bytes,
    expect: bytes,
    inode: tuple[int, int],
    mode: int,
    before_replace: Callable[[], None] | None,
) -> None:
    """Write ``new`` over ``target`` if it is still ``inode`` holding ``expect``; else raise
    :class:`PageChangedError`."""

    def unchanged() -> None:  # the last look before replacing
        if before_replace is not None:
            before_replace()
        now = _inode(os.stat(target, follow_symlinks=False))
        if now != inode or target.read_bytes() != expect:
            raise PageChangedError(f"{target.name} changed since it was read; not written")

    write_atomic(target, new, mode=mode, before_replace=unchanged)
