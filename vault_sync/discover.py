"""Which folder is the vault: the only reader of ``VAULT_SYNC_VAULT`` (DESIGN §2, §3).

The vault is chosen by :func:`find_vault`: ``--vault PATH``, else ``$VAULT_SYNC_VAULT``, else the
nearest folder upward from the working directory holding ``vault-sync.toml``, ``.obsidian/`` or
a store, else the working directory when it holds Markdown files directly (never the home or
temp folder by those alone, nor a folder in a git repository: a code repository's README is
no vault). A folder with none
of these is refused, so a command run in ``/`` or ``$HOME`` never indexes it; ``/`` and the
kernel's pseudo file systems are refused even when named, and so is a store folder (or a
folder inside one).
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_sync.config import CONFIG_NAME, STORE_MARKER_NAME
from vault_sync.config_values import DEFAULT_STORE_DIR
from vault_sync.errors import NotAVaultError

ENV_VAULT = "VAULT_SYNC_VAULT"


def _looks_like_vault(folder: Path) -> bool:
    return (
        (folder / CONFIG_NAME).is_file()
        or (folder / ".obsidian").is_dir()
        or (folder / DEFAULT_STORE_DIR).is_dir()
    )


def _holds_markdown(folder: Path) -> bool:
    try:
        return any(e.is_file() and e.name.lower().endswith(".md") for e in os.scandir(folder))
    except OSError:
        return False


#: Folders whose trees are the kernel's, not a person's: never a vault, even when named.
PSEUDO_ROOTS = ("/proc", "/sys", "/dev")
#: File system types (``/proc/self/mounts``, third column) that hold no notes.
PSEUDO_FS_TYPES = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "bpf",
        "configfs",
        "fusectl",
        "mqueue",
        "binfmt_misc",
        "efivarfs",
    }
)


def mount_fs_type(path: Path | str) -> str | None:
    """The type of the file system holding ``path`` (longest mount point prefix of the
    absolute, resolved path in ``/proc/self/mounts``), or None when it cannot be read."""
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    best, fs_type = "", None
    text = str(path)
    for line in lines.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = text == point or text.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, fs_type = point, fields[2]
    return fs_type


def pseudo_file_system(real: str, fs_type: str | None) -> str | None:
    """Name the pseudo file system an absolute, resolved path lies on, or None.

    Args:
        real: the path, symlinks resolved (``os.path.realpath``).
        fs_type: the type of the file system holding it (:func:`mount_fs_type`), if known.

    Returns:
        ``fs_type`` when it is one of :data:`PSEUDO_FS_TYPES` (``"proc"``), else the one of
        :data:`PSEUDO_ROOTS` holding ``real`` (``"/dev"``: a tmpfs in containers), else None.
    """
    if fs_type in PSEUDO_FS_TYPES:
        return fs_type
    return next((r for r in PSEUDO_ROOTS if real == r or real.startswith(r + "/")), None)


def refuse_system_folder(path: Path) -> Path:
    """Refuse a vault root that is ``/`` or on a pseudo file system (``/proc``, ``/sys``, ``/dev``).

    Indexing ``/`` walks the whole file system and writes a store there; the kernel's pseudo
    file systems hold no notes and change under a walk. Any other folder stays usable even
    when never initialised (DESIGN §2).

    Args:
        path: an absolute, resolved folder.

    Returns:
        ``path`` unchanged.

    Raises:
        NotAVaultError: ``path`` is the file system root or lies on a pseudo file system.
    """
    text = str(path)
    if path == Path(path.anchor):
        raise NotAVaultError(f"refusing {text} as a vault: it is the file system root")
    if pseudo_file_system(text, mount_fs_type(path)):
        raise NotAVaultError(f"refusing {text} as a vault: it is on a pseudo file system")
    return path


def refuse_store_folder(path: Path) -> Path:
    """Refuse a vault root that is a store folder or lies inside one (it holds the marker
    file :data:`~vault_sync.config.STORE_MARKER_NAME`, or a folder above it does): a sync there
    would make a store inside the store.

    Args:
        path: an absolute, resolved folder.

    Returns:
        ``path`` unchanged.

    Raises:
        NotAVaultError: ``path`` or a folder above it is a store folder.
    """
    for folder in (path, *path.parents):
        try:
            marked = (folder / STORE_MARKER_NAME).is_file()
        except OSError:  # a folder this user cannot search: not known to be a store
            marked = False
        if marked:
            where = "it is" if folder == path else f"it is inside {folder},"
            raise NotAVaultError(
                f"refusing {path} as a vault: {where} a vault-sync store folder (pass the"
                " vault, not its store)"
            )
    return path


def find_vault(explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """Choose the vault root.

    Args:
        explicit: the ``--vault`` option, or ``None``.
        cwd: where discovery starts (default: the working directory).

    Returns:
        The absolute, resolved vault folder.

    Raises:
        NotAVaultError: the given folder is empty text, does not exist, is not a folder, is
            ``/`` or on a pseudo file system, is (or is inside) a store folder, or discovery
            found nothing vault-like (the
            home and temp folders, and folders in a git repository, are never a vault by
            their Markdown files alone), or its
            path is not valid UTF-8.
    """
    return refuse_non_utf8_path(_find_vault(explicit, cwd))


def refuse_non_utf8_path(vault: Path) -> Path:
    """``vault``, or :class:`NotAVaultError` when its path is not valid UTF-8 (tantivy and
    SQLite take text paths: such a vault cannot hold stores; it was reported as a damaged
    index). Shown with ``\\xff`` escapes, as names that are not UTF-8 always are."""
    try:
        str(vault).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(vault).decode("utf-8", "backslashreplace")
        raise NotAVaultError(
            f"vault path is not valid UTF-8: {shown} (the index needs a UTF-8 path;"
            " rename the folder)"
        ) from None
    return vault


def _find_vault(explicit: str | os.PathLike[str] | None, cwd: Path | None) -> Path:
    chosen = explicit if explicit is not None else os.environ.get(ENV_VAULT) or None
    if chosen is not None:
        if not str(chosen):
            raise NotAVaultError("vault path is empty (pass --vault PATH)")
        path = Path(chosen).expanduser()
        if not path.exists():
            raise NotAVaultError(f"vault folder does not exist: {path}")
        if not path.is_dir():
            raise NotAVaultError(f"vault path is not a folder: {path}")
        return refuse_store_folder(refuse_system_folder(path.resolve()))
    start = (cwd or Path.cwd()).resolve()
    for folder in (start, *start.parents):
        if _looks_like_vault(folder):
            return refuse_store_folder(folder)
    if _holds_markdown(start):
        if start in _shared_folders():
            raise NotAVaultError(
                f"not a vault: {start} holds Markdown files, but it is the home or temp folder,"
                " which is never taken for a vault by itself (pass --vault or run vault-sync"
                " init there)"
            )
        repository = _git_work_tree(start)
        if repository is not None:
            raise NotAVaultError(
                f"not a vault: {start} holds Markdown files, but it is in the git repository"
                f" {repository}, which is not taken for a vault by its README and docs alone"
                f" (pass --vault, set {ENV_VAULT}, or run vault-sync init there)"
            )
        return refuse_store_folder(start)
    raise NotAVaultError(f"not a vault: {start} (pass --vault or run vault-sync init)")


def _git_work_tree(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding ``.git`` (a folder, or the file a
    worktree or submodule has), or None. The working-directory fallback never takes a folder
    in one (fresh-user report 5, item 18: a briefing's `vault-sync query`, run by an agent in
    its code repository, indexed the repository's README and answered from it); a vault kept
    in git is found by its ``vault-sync.toml``, ``.obsidian/`` or store first."""
    for above in (folder, *folder.parents):
        try:
            if (above / ".git").exists():
                return above
        except OSError:  # a folder this user cannot search
            return None
    return None


def _shared_folders() -> set[Path]:
    """Folders that hold stray Markdown files of many programs and whole trees below: the
    home folder and the temp folder (``$TMPDIR``, else ``/tmp``). The working-directory
    fallback never takes them (fresh-user report: ``cd /tmp && vault-sync status`` indexed
    all of ``/tmp``); ``--vault``, ``$VAULT_SYNC_VAULT`` or ``init`` still can."""
    import tempfile

    folders = {Path(tempfile.gettempdir()).resolve(), Path("/tmp").resolve()}
    home = os.environ.get("HOME")
    if home:
        folders.add(Path(home).resolve())
    return folders
