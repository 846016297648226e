"""One walk of the vault's folders: the mutable state of a scan and its per-entry rules.

:class:`FolderWalk` lists one folder after another (one ``scandir`` each), keeps the pages
(with their ``stat``), attachments, NFC collisions, unreadable entries and skipped symlinks it
meets, follows a symlinked folder once unless it is a loop or a repeat (found by
``(st_dev, st_ino)``, :func:`folder_lineage`), and freezes into a
:class:`~vault_sync.scan_result.ScanResult`. :mod:`vault_sync.vault` starts it (``scan``,
``scan_paths``); the rules it keeps are written there. Every filesystem call is guarded: no
``OSError`` from a single entry escapes.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from vault_sync.discover import mount_fs_type, pseudo_file_system
from vault_sync.errors import VaultUnreadableError
from vault_sync.ignore import IgnoreMatcher, _Chain, _is_temp_name, _nfc
from vault_sync.scan_result import (
    NS_MAX,
    NS_MIN,
    FileEntry,
    ScanResult,
    SkippedFile,
    SkippedSymlink,
    Unreadable,
    clamp_ns,
)

#: The one test seam of :func:`vault_sync.vault.scan`: lists a folder given its absolute path
#: (``os.scandir``).
Lister = Callable[[str], Iterable[os.DirEntry[str]]]

_PAGE_SUFFIX = ".md"
#: A regular file that everyone may read: ``st_mode & _TYPE_AND_READ == _REG_READABLE`` is
#: :meth:`FolderWalk.add_page`'s fast path (the whole file-type field, since a socket's type
#: bits include those of a regular file).
_TYPE_AND_READ = 0o170000 | stat.S_IROTH  # S_IFMT, the file-type field (POSIX)
_REG_READABLE = stat.S_IFREG | stat.S_IROTH


def _read_denied(path: str, st: os.stat_result) -> str | None:
    """Why this process cannot read a page file it could ``stat``, or None: a file without
    read permission is unreadable like a folder that cannot be listed (its stored page kept,
    reported by ``lint`` / ``status``), never a page sync tries, fails and bumps a generation
    for (fresh-user report). No syscall when everyone may read it (the usual ``0644``);
    else ``access(2)`` with the effective ids."""
    if st.st_mode & stat.S_IROTH:
        return None
    effective = os.access in os.supports_effective_ids
    if os.access(path, os.R_OK, effective_ids=effective):
        return None
    return os.strerror(errno.EACCES)


_Ident = tuple[int, int]  # (st_dev, st_ino) of a folder


def folder_lineage(real: str) -> frozenset[_Ident]:
    """Return the identities of the physical folder ``real`` and of all its ancestors up to
    ``/`` (one ``stat`` each; a folder that cannot be stat'ed is left out)."""
    idents: set[_Ident] = set()
    path = real
    while True:
        try:
            st = os.stat(path)
        except OSError:
            pass
        else:
            idents.add((st.st_dev, st.st_ino))
        parent = os.path.dirname(path)
        if parent == path:
            return frozenset(idents)
        path = parent


def is_utf8(name: str) -> bool:
    """Whether an on-disk name decoded to text (``os.fsdecode`` keeps bad bytes as lone
    surrogates) can be a key: stores, JSON and terminals all need valid UTF-8."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def keeps(new: str, old: str, key: str) -> bool:
    """Whether the on-disk path ``new`` wins over ``old``, both equal to ``key`` after NFC (a
    collision, DESIGN §2 / case N2): the spelling equal to the key itself wins, so the path
    a hit shows names the file whose content is indexed and which writes edit (fresh-user
    report 3, item 8); else the first in code-point order, which is UTF-8 byte order. The
    other is never read; ``lint`` names both."""
    if new == key or old == key:
        return new == key
    return new < old


def special_kind(mode: int) -> str:
    """What a file that is neither a regular file nor a folder is, for people."""
    for test, kind in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def _points_to(path: str) -> str:
    """A symlink's target as written (``/proc/self/environ``), else its resolved path."""
    try:
        return os.readlink(path)
    except OSError:
        return os.path.realpath(path)


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


@dataclass
class FolderWalk:
    """Mutable state of one scan: what it found so far, and the walk that finds it."""

    matcher: IgnoreMatcher
    listdir: Lister
    root_ident: _Ident
    root_lineage: frozenset[_Ident]  # the root and its ancestors
    pages: dict[str, FileEntry] = field(default_factory=dict)
    attachments: dict[str, str] = field(default_factory=dict)  # NFC path -> disk path
    collisions: dict[str, set[str]] = field(default_factory=dict)  # NFC path -> disk paths
    unreadable: list[Unreadable] = field(default_factory=list)
    skipped: list[SkippedSymlink] = field(default_factory=list)
    via_symlink: set[_Ident] = field(default_factory=set)
    skipped_files: list[SkippedFile] = field(default_factory=list)
    systems: dict[int, str | None] = field(default_factory=dict)  # st_dev -> pseudo fs or None

    def collide(self, key: str, *disk_paths: str) -> None:
        self.collisions.setdefault(key, set()).update(disk_paths)

    def entry_error(self, key: str, entry: os.DirEntry[str], exc: OSError) -> None:
        """Report one entry whose ``is_dir/is_file/stat`` failed; never raises.

        "Not found" is absence (a broken symlink is reported as one; a plain entry gone since
        the listing is truly gone); a symlink loop the OS refuses to resolve (``ELOOP``) is a
        skipped ``"loop"`` (nothing can be under it); anything else (``EACCES``, ``EIO``, ...)
        is :class:`Unreadable`, so no stored page equal to it or under it counts as absent.
        """
        if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
            if _is_symlink(entry):
                self.skipped.append(SkippedSymlink(key, "broken", "its target does not exist"))
        elif exc.errno == errno.ELOOP and _is_symlink(entry):
            self.skipped.append(SkippedSymlink(key, "loop", exc.strerror or str(exc)))
        else:
            self.unreadable.append(Unreadable(key, exc.strerror or str(exc)))

    def system(self, path: str, st: os.stat_result) -> str | None:
        """The pseudo file system (``proc``, ``/dev``, ...) the file or folder at absolute
        ``path`` lies on (``st``: its stat, through links), or None. Nothing is read there:
        ``/proc/self/environ`` is the process's environment (fresh-user report 3, item
        12.14). Free for anything on the vault root's device; else one ``realpath`` and one
        read of the mount table per device met."""
        dev = st.st_dev
        if dev == self.root_ident[0]:
            return None
        if dev not in self.systems:
            real = os.path.realpath(path)
            self.systems[dev] = pseudo_file_system(real, mount_fs_type(real))
        return self.systems[dev]

    def never_read(self, key: str, path: str, st: os.stat_result, *, link: bool) -> bool:
        """Report (and say True for) an entry on a pseudo file system, or a page name that is
        not a regular file or folder: nothing is read from it, and a page stored from it
        goes (its absence is proven). ``link``: the entry is a symlink (``path`` its own path)."""
        system = self.system(path, st)
        if system is None and (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            return False
        where = f"on the pseudo file system {system}" if system else special_kind(st.st_mode)
        if link:
            reason = "pseudo_fs" if system else "special"
            detail = f"points to {_points_to(path)}, {where}: never read"
            self.skipped.append(SkippedSymlink(key, reason, detail))
        else:
            self.skipped_files.append(SkippedFile(key, f"{where}: never read"))
        return True

    def add_page(self, key: str, disk: str, entry: os.DirEntry[str]) -> None:
        """List one page the walk met (``key`` its NFC path, ``disk`` its on-disk one). The
        usual page (a regular file on the root's device that everyone may read, a time in
        range, a new key) takes no call but its ``stat``: 10,000 of them are most of a scan."""
        try:
            st = entry.stat()
        except OSError as exc:
            self.entry_error(key, entry, exc)
            return
        mode, mtime = st.st_mode, st.st_mtime_ns
        if (
            st.st_dev == self.root_ident[0]
            and mode & _TYPE_AND_READ == _REG_READABLE
            and NS_MIN < mtime < NS_MAX
            and key not in self.pages
        ):
            self.pages[key] = FileEntry(key, disk, mtime, st.st_size)
            return
        on_root_fs = st.st_dev == self.root_ident[0] and stat.S_ISREG(mode)
        if not on_root_fs and self.never_read(key, entry.path, st, link=_is_symlink(entry)):
            return
        denied = _read_denied(entry.path, st)
        if denied:
            self.unreadable.append(Unreadable(key, denied))
            return
        self.keep_page(FileEntry(key, disk, clamp_ns(mtime), st.st_size))

    def keep_page(self, entry: FileEntry) -> None:
        """List a page unless a spelling equal after NFC already listed wins (:func:`keeps`)."""
        old = self.pages.get(entry.path)
        if old is not None:
            self.collide(entry.path, old.disk_path, entry.disk_path)
            if not keeps(entry.disk_path, old.disk_path, entry.path):
                return
        self.pages[entry.path] = entry

    def add_attachment(self, key: str, disk: str) -> None:
        old = self.attachments.get(key)
        if old is not None:
            self.collide(key, old, disk)
            if not keeps(disk, old, key):
                return
        self.attachments[key] = disk

    def add_file(self, key: str, disk: str, full: str) -> None:
        """List one file named by a watcher batch (absolute path ``full``), as the walk would."""
        try:
            st = os.stat(full)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.unreadable.append(Unreadable(key, exc.strerror or str(exc)))
            return
        if key.rsplit("/", 1)[-1].lower().endswith(_PAGE_SUFFIX):
            if self.never_read(key, full, st, link=os.path.islink(full)):
                return
            denied = _read_denied(full, st)
            if denied:
                self.unreadable.append(Unreadable(key, denied))
                return
            self.keep_page(FileEntry(key, disk, clamp_ns(st.st_mtime_ns), st.st_size))
        else:
            self.add_attachment(key, disk)

    def bad_name(self, nfc_dir: str, name: str) -> None:
        """Report an on-disk name that is not valid UTF-8 (left out), shown with escapes."""
        shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        key = f"{nfc_dir}/{shown}" if nfc_dir else shown
        bad = Unreadable(key, "name is not valid UTF-8, left out")
        if bad not in self.unreadable:  # a watcher batch may name it twice
            self.unreadable.append(bad)

    def _list(self, abs_dir: str, disk_dir: str, nfc_dir: str) -> list[os.DirEntry[str]] | None:
        """A folder's entries by name; ``None`` (reported) when it cannot be listed.

        Raises:
            VaultUnreadableError: the vault root itself cannot be listed.
        """
        try:
            return sorted(self.listdir(abs_dir), key=lambda e: e.name)
        except OSError as exc:
            if not disk_dir:
                raise VaultUnreadableError(
                    f"cannot read the vault folder {abs_dir}: {exc.strerror or exc}"
                ) from exc
            self.unreadable.append(Unreadable(nfc_dir, exc.strerror or str(exc)))
            return None

    def walk(
        self,
        abs_dir: str,
        disk_dir: str,
        nfc_dir: str,
        ancestors: frozenset[_Ident],
        chain: _Chain,
    ) -> None:
        """List one folder (``disk_dir`` ``""`` = the root) and recurse into its folders."""
        entries = self._list(abs_dir, disk_dir, nfc_dir)
        if entries is None:
            return
        if any(e.name == ".gitignore" for e in entries):
            spec = self.matcher.gitignore(disk_dir)
            if spec is not None:
                chain = (*chain, (f"{nfc_dir}/" if nfc_dir else "", spec))
        folders: dict[str, str] = {}  # NFC name -> first disk name, for folder collisions
        file_patterns = bool(chain) or self.matcher.has_patterns
        matches_patterns = self.matcher.matches_patterns
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            nfc_name = _nfc(name)
            if not name.isascii() and not is_utf8(name):
                self.bad_name(nfc_dir, name)
                continue
            try:
                is_dir = entry.is_dir()
                is_file = not is_dir and entry.is_file()
            except OSError as exc:  # e.g. a symlink loop, a target below an unreadable folder
                key = f"{nfc_dir}/{nfc_name}" if nfc_dir else nfc_name
                if not matches_patterns(key, is_dir=True, chain=chain):
                    self.entry_error(key, entry, exc)
                continue
            # a name ending in `.md` is never a temp name (each form of TEMP_NAME_RE ends
            # otherwise): the regex is spared for pages
            is_page = not is_dir and nfc_name.lower().endswith(_PAGE_SUFFIX)
            if not is_dir and not is_page and _is_temp_name(nfc_name):
                continue
            key = f"{nfc_dir}/{nfc_name}" if nfc_dir else nfc_name
            if (is_dir or file_patterns) and matches_patterns(key, is_dir=is_dir, chain=chain):
                continue
            disk = f"{disk_dir}/{name}" if disk_dir else name
            if is_dir:
                first = folders.setdefault(nfc_name, name)
                if first != name:
                    self.collide(key, f"{disk_dir}/{first}" if disk_dir else first, disk)
                self._enter(entry, disk, key, ancestors, chain)
            elif is_file:
                if is_page:
                    self.add_page(key, disk, entry)
                else:
                    self.add_attachment(key, disk)
            elif _is_symlink(entry):  # broken, or to a fifo/socket/device (left out)
                try:
                    st = entry.stat()
                except OSError as exc:
                    self.entry_error(key, entry, exc)
                else:
                    if is_page:
                        self.never_read(key, entry.path, st, link=True)
            elif is_page:  # a FIFO, socket or device
                try:
                    st = entry.stat()
                except OSError as exc:
                    self.entry_error(key, entry, exc)
                else:
                    self.never_read(key, entry.path, st, link=False)

    def _enter(
        self,
        entry: os.DirEntry[str],
        disk: str,
        key: str,
        ancestors: frozenset[_Ident],
        chain: _Chain,
    ) -> None:
        """Walk a subfolder unless it is a symlink loop or a repeat (rules on ``vault.scan``).

        ``ancestors`` holds the identity of every folder on the walk chain and of every
        physical ancestor of each (up to ``/``), so one set lookup finds a link to the vault
        root, to any ancestor of the vault (``../..``, ``/``) or to an ancestor of a folder
        entered through an earlier link.
        """
        try:
            st = entry.stat()
            is_link = entry.is_symlink()
        except OSError as exc:
            self.entry_error(key, entry, exc)
            return
        if self.never_read(key, entry.path, st, link=is_link):
            return
        ident = (st.st_dev, st.st_ino)
        if not is_link:
            self.walk(entry.path, disk, key, ancestors | {ident}, chain)
            return
        if ident in ancestors:
            self.skipped.append(SkippedSymlink(key, "loop", self._loop_detail(entry, ident)))
            return
        if ident in self.via_symlink:
            self.skipped.append(SkippedSymlink(key, "repeat", "folder already entered"))
            return
        self.via_symlink.add(ident)
        lineage = folder_lineage(os.path.realpath(entry.path))
        self.walk(entry.path, disk, key, ancestors | lineage | {ident}, chain)

    def _loop_detail(self, entry: os.DirEntry[str], ident: _Ident) -> str:
        target = os.path.realpath(entry.path)
        if ident == self.root_ident:
            return f"points to {target}, the vault root"
        if ident in self.root_lineage:
            return f"points to {target}, an ancestor of the vault"
        return f"points to {target}, a folder on its own path or an ancestor of one"

    def _group(self, key: str, names: set[str]) -> tuple[str, ...]:
        """A collision group: the spelling kept first (a page's or attachment's), the rest
        sorted; a group of folders (all walked, their entries merged) sorted."""
        page = self.pages.get(key)
        kept = page.disk_path if page is not None else self.attachments.get(key)
        rest = sorted(names - {kept}) if kept in names else sorted(names)
        return (kept, *rest) if kept in names else tuple(rest)

    def result(self) -> ScanResult:
        """Freeze the state into a :class:`ScanResult`, everything in sorted order."""
        return ScanResult(
            pages={k: self.pages[k] for k in sorted(self.pages)},
            attachments=frozenset(self.attachments),
            unreadable=tuple(sorted(self.unreadable, key=lambda u: u.path)),
            collisions=tuple(sorted(self._group(k, g) for k, g in self.collisions.items())),
            skipped_symlinks=tuple(sorted(self.skipped, key=lambda s: s.path)),
            skipped_files=tuple(sorted(self.skipped_files, key=lambda s: s.path)),
            warnings=tuple(self.matcher.warnings),
        )
