"""``vault-sync init``: make a folder a vault — a default ``vault-sync.toml`` and the store
folder's ``.gitignore`` line, written only where nothing is lost (never through a symbolic link,
never over a file that is not UTF-8 text).
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_sync.config import CONFIG_NAME, load_config
from vault_sync.discover import (
    refuse_non_utf8_path,
    refuse_store_folder,
    refuse_system_folder,
)
from vault_sync.errors import ConfigError, NotAVaultError

_DEFAULT_TOML = """\
# vault-sync configuration. Every key is optional; these are the defaults.
# Reference: docs/cli.md and docs/page-format.md.

# Extra paths to leave out, in .gitignore syntax (dot-folders, temp files, .gitignore and
# Obsidian's excluded files are always left out).
ignore = []

# Leave out folders tools fill that never hold notes: node_modules/, bower_components/,
# __pycache__/ (false: index them like any folder).
ignore_tool_folders = true

# A page without a `title` key is named by its file ("stem"), or by its first H1 ("h1").
title_from = "stem"

# Where the derived stores live, relative to the vault. Safe to delete: `vault-sync rebuild`.
store_dir = ".vault-sync"

# How long a writer waits for another writer's batch, in seconds.
lock_timeout_s = 10

# Folder glob -> project, for pages without a `project` key. The first match wins.
[projects]
# "payments/**" = "payments"

[watch]
debounce_ms = 150      # quiet window before a batch is applied
max_delay_ms = 1000    # longest wait before a batch is applied
reconcile_s = 300      # periodic full reconcile
retry_ms = 200         # wait before retrying a batch that failed (doubles per failure)
retry_max_ms = 60000   # the longest such wait

[sanitize]
extra_patterns = []    # RE2 regexes redacted as [REDACTED:custom]
allow = []             # RE2 regexes or literals never redacted
"""


def init_vault(folder: Path) -> list[str]:
    """Make ``folder`` a vault: write a default ``vault-sync.toml`` and a ``.gitignore`` line.

    Never touches a page; keeps an existing config and ``.gitignore`` content.

    Args:
        folder: the vault root (must exist).

    Returns:
        Lines saying what was written (or that nothing needed writing).

    Raises:
        NotAVaultError: ``folder`` does not exist, is not a folder, is ``/``, lies on a
            pseudo file system, or its path is not valid UTF-8.
        ConfigError: ``vault-sync.toml`` or ``.gitignore`` is to be written but is a symbolic
            link (never written through: it may point outside the vault), or ``.gitignore``
            is not a readable UTF-8 file (``FILE:LINE`` of the first bad byte).
    """
    if not folder.is_dir():
        raise NotAVaultError(f"not a folder: {folder}")

    refuse_store_folder(refuse_system_folder(refuse_non_utf8_path(folder.resolve())))
    done: list[str] = []
    config_file = folder / CONFIG_NAME
    gitignore = folder / ".gitignore"
    existing = _setup_text(gitignore)
    write_config = not config_file.exists()
    # the store folder of the config kept, or of the default one written (the same defaults)
    line = f"{load_config(folder.resolve()).store_dir.rstrip('/')}/"
    add_line = existing is None or line not in existing.splitlines()
    for path, writes in ((config_file, write_config), (gitignore, add_line)):
        if writes:
            _no_link(path)  # both refused before either is written
    if write_config:
        _append(config_file, _DEFAULT_TOML, new=True)
    done.append(f"{'wrote' if write_config else 'kept'} {config_file}")
    if add_line:
        sep = "" if not existing or existing.endswith("\n") else "\n"
        _append(gitignore, f"{sep}{line}\n", new=existing is None)
        done.append(f"added {line} to {gitignore}")
    else:
        done.append(f"kept {gitignore} ({line} already ignored)")
    return done


def _setup_text(path: Path) -> str | None:
    """The text of a file ``init`` may add to (``.gitignore``), ``None`` when there is none.

    Raises:
        ConfigError: not a regular file (a folder), unreadable, or not UTF-8 (``FILE:LINE``).
    """
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        raise ConfigError(f"{path}: not a file (init adds a line to it)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (init adds a line to it)") from None


def _no_link(path: Path) -> None:
    """Refuse to write ``path`` when it is a symbolic link.

    Raises:
        ConfigError: it is one.
    """
    if path.is_symlink():
        raise ConfigError(
            f"{path}: a symbolic link; init never writes through one (make it a file)"
        )


def _append(path: Path, text: str, *, new: bool) -> None:
    """Add ``text`` at the end of ``path`` (``new``: create it, failing if anything has that
    name), never through a symbolic link (``O_NOFOLLOW``: a link may point outside the vault).

    Raises:
        ConfigError: ``path`` is a symbolic link, or cannot be written.
    """
    flags = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    flags |= os.O_CREAT | os.O_EXCL if new else 0
    _no_link(path)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
