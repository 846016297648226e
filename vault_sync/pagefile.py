"""One page file: read its bytes once (text, content hash, decoding problem), write it back
atomically and only if unchanged (DESIGN §2, Invariant 5).

The sync path only reads (:func:`read_page`); :func:`write_page` is the one write path for
pages (``lint --fix`` redaction now, agent edits later). Neither walks the vault
(:mod:`vault_sync.vault`) nor parses a page.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol

from vault_sync.atomic import write_atomic
from vault_sync.errors import PageChangedError

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


def read_page(vault: Path, entry: OnDisk) -> tuple[str, str, str | None]:
    """Read one page once: its text, its content hash and any decoding problem.

    Bad content never raises: bytes that are not UTF-8 become U+FFFD and the problem is
    returned for ``lint``. A leading UTF-8 BOM is dropped (it is hashed, being on disk).

    Args:
        vault: the vault root.
        entry: the page, as :func:`vault_sync.vault.scan` found it (opened by ``entry.disk_path``).

    Returns:
        ``(text, content_hash, decode_error)``: the text decoded as ``utf-8-sig``, the hash
        of the raw bytes (:func:`content_hash`), and ``None`` or a message like
        ``"not valid UTF-8 at byte 123 (line 4)"`` (0-based file byte offset, 1-based line).

    Raises:
        OSError: the file cannot be read (``FileNotFoundError`` when it vanished after the
            scan); the caller decides what that means.
    """
    data = (vault / entry.disk_path).read_bytes()
    digest = content_hash(data)
    try:
        return data.decode("utf-8-sig"), digest, None
    except UnicodeDecodeError as exc:
        offset = exc.start + (len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0)
        line = data.count(b"\n", 0, offset) + 1
        text = data.decode("utf-8-sig", errors="replace")
        return text, digest, f"not valid UTF-8 at byte {offset} (line {line})"


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
