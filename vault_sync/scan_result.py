"""What a scan of the vault found, as values, and the rule of proof of absence (DESIGN §2, §4).

:class:`ScanResult` is the plain value :func:`vault_sync.vault.scan` and
:func:`~vault_sync.vault.scan_paths` return: each page's :class:`FileEntry` (NFC key, on-disk
name, mtime in ns, size in bytes), the attachments, the :class:`Unreadable` folders and
entries, the NFC collisions, the :class:`SkippedSymlink` links and the :class:`SkippedFile`
entries never read. :func:`proven_absent` says
when a path is known not to exist (only then may sync delete its page);
:func:`describe_name` shows on-disk names that are equal after NFC so they read differently.
No walk here (:mod:`vault_sync.vault_walk`), no store.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

#: The range of a SQLite INTEGER (signed 64-bit): a file time outside it (a page touched to
#: after 2262-04-11, fresh-user report 4 F2) is stored as the nearest end. A time at an end
#: tells no changes apart (two times past 2262 both clamp to NS_MAX), so the plan hashes such
#: a page instead of trusting an equal stored time (``NS_MIN < ns < NS_MAX``, in
#: :func:`vault_sync.sync_plan.make_plan`).
NS_MIN = -(2**63)
NS_MAX = 2**63 - 1


def clamp_ns(ns: int) -> int:
    """``ns`` (a file time, ns since the epoch) clamped to [:data:`NS_MIN`, :data:`NS_MAX`]."""
    return min(max(ns, NS_MIN), NS_MAX)


def mtime_trusted(ns: int) -> bool:
    """Whether a clamped file time still tells changes apart (it is not an end of the range).

    Two different times past 2262 both clamp to :data:`NS_MAX`, so an equal stored time proves
    nothing: sync hashes such a page instead of skipping it.
    """
    return NS_MIN < ns < NS_MAX


def stat_proves_unchanged(entry: FileEntry, mtime_ns: int, size: int) -> bool:
    """Whether a page's stored ``(mtime_ns, size)`` proves ``entry`` unchanged without reading
    it: both equal and the time :func:`mtime_trusted`. The one rule of sync's plan and
    ``status``'s drift; when it fails, a page of equal stat is hashed to tell."""
    return entry.mtime_ns == mtime_ns and entry.size == size and mtime_trusted(mtime_ns)


class FileEntry(NamedTuple):
    """One page found by :func:`scan` (a named tuple: a scan makes one per page, 0.25 µs
    each against a frozen dataclass's 0.5 µs).

    Attributes:
        path: vault-relative POSIX path, NFC (``"Café notes.md"``); the key of the page.
        disk_path: vault-relative POSIX path as named on disk (may be NFD); use it to open.
        mtime_ns: modification time, ns since the epoch (of the target, for a symlink), clamped
            by :func:`clamp_ns` to what SQLite stores.
        size: size in bytes.
    """

    path: str
    disk_path: str
    mtime_ns: int
    size: int


@dataclass(frozen=True)
class Unreadable:
    """A folder (or file) the scan could not list (or stat).

    Attributes:
        path: vault-relative NFC path; no page equal to it or under it may be deleted.
        error: the OS error text, e.g. ``"Permission denied"``.
    """

    path: str
    error: str


@dataclass(frozen=True)
class SkippedSymlink:
    """A symlink :func:`scan` did not follow; nothing under it belongs to the vault.

    Attributes:
        path: vault-relative NFC path of the link.
        reason: ``"loop"`` (its target is the vault root, an ancestor of it, or a folder on the
            link's own walk chain or an ancestor of one; or the OS reports too many levels of
            symbolic links), ``"repeat"`` (that folder was already entered through another
            symlink), ``"broken"`` (no target), ``"pseudo_fs"`` (its target lies on a pseudo
            file system: ``/proc``, ``/sys``, ``/dev``; never read, fresh-user report 3 item
            12.14: ``env.md -> /proc/self/environ``) or ``"special"`` (a page name whose
            target is a FIFO, socket or device, not a regular file; never read).
        detail: a line for people, e.g. ``"points to /home, an ancestor of the vault"``; not
            compared.
    """

    path: str
    reason: str
    detail: str = field(default="", compare=False)


@dataclass(frozen=True)
class SkippedFile:
    """An entry :func:`scan` met but never reads, that is not a symlink: a page name that is
    a FIFO, socket or device, or a folder mounted from a pseudo file system. Like a skipped
    symlink it proves absence: a page stored from it is deleted.

    Attributes:
        path: vault-relative NFC path.
        detail: why, for people: ``"a FIFO, not a regular file"``.
    """

    path: str
    detail: str


@dataclass(frozen=True)
class ScanResult:
    """What :func:`scan` found: a plain value.

    Attributes:
        pages: NFC path -> entry for every ``*.md`` file (suffix case-insensitive), by path.
        attachments: NFC paths of every other file left in (for "missing attachment" checks).
        unreadable: folders that could not be listed, entries that could not be stat'ed, and
            names that are not valid UTF-8 (shown with ``\\xNN`` escapes, left out).
        collisions: groups of on-disk paths equal after NFC, the kept one first (the one
            spelled as its NFC key, else the first in byte order), the others sorted; a group
            of folders (all walked) is sorted.
        skipped_symlinks: symlinks not followed.
        skipped_files: other entries never read (:class:`SkippedFile`).
        warnings: one line each for a bad ``.obsidian/app.json`` or unreadable ``.gitignore``.
    """

    pages: dict[str, FileEntry]
    attachments: frozenset[str] = frozenset()
    unreadable: tuple[Unreadable, ...] = ()
    collisions: tuple[tuple[str, ...], ...] = ()
    skipped_symlinks: tuple[SkippedSymlink, ...] = ()
    skipped_files: tuple[SkippedFile, ...] = ()
    warnings: tuple[str, ...] = ()

    def absence_proven(self, path: str) -> bool:
        """Return whether ``path`` (NFC) is known not to exist: not found, nor under an unreadable
        folder. Only then may sync delete its page (DESIGN §4)."""
        if path in self.pages:
            return False
        return not any(
            path == u.path or path.startswith(u.path + "/") or not u.path for u in self.unreadable
        )


def proven_absent(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is known not to exist: ``lstat`` says no such file (``ENOENT``) or a
    parent is not a folder (``ENOTDIR``). Any other failure — a folder without search
    permission (``EACCES``), an I/O error — proves nothing, so a page there is kept
    (DESIGN §4: "deleting needs proof of absence"; ``os.path.exists`` answers False for both).
    """
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def describe_name(name: str) -> str:
    """Return an on-disk name (or path) so that names equal after NFC read differently.

    Every character that does not survive NFC (a combining accent of an NFD name, a Hangul
    jamo, a singleton like U+212B) and every unprintable one is shown as a Python escape, and
    the name's normalisation form is appended: ``"Café notes.md (NFC)"`` and
    ``"Cafe\\u0301 notes.md (NFD)"``; a name in neither form is tagged ``(other)``.
    """
    nfc = unicodedata.normalize("NFC", name)
    if name.isascii():
        return f"{name} (NFC)"
    kept = set(nfc)
    shown = "".join(
        c if c in kept and c.isprintable() else c.encode("unicode_escape").decode("ascii")
        for c in name
    )
    form = "NFC" if name == nfc else "NFD" if unicodedata.is_normalized("NFD", name) else "other"
    return f"{shown} ({form})"
