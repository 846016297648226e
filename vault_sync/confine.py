"""Keep every write inside the vault (DESIGN §7; issue 11, Build 4), and every transcript an
importer reads inside the transcript folders (:func:`allowed_transcript`).

An agent names pages and folders in text it made up, so a path from it is checked before any
file is opened for writing: it must be a relative path of plain parts, none of them ``..``, a
drive letter, ``~`` or a NUL, not inside the stores' folder or ``.git``, and no existing part
of it may be a symlink (a symlinked folder or file could point anywhere). The check is on the
path as it will be opened; the writer then opens with ``O_NOFOLLOW`` as well.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from vault_sync.config_values import vault_path_problem
from vault_sync.errors import AgentInputError, OutsideVaultError
from vault_sync.transcript import VENDOR_ROOTS

#: Folders below the vault no write may enter, whatever the config: git's own.
ALWAYS_RESERVED = (".git",)


def confined(vault: Path, relative: str, reserved: Iterable[str] = ()) -> Path:
    """The absolute path of ``relative`` inside ``vault``, after checking it stays there.

    Args:
        vault: the vault root (absolute).
        relative: a vault-relative POSIX path (``notes/Retry policy.md``).
        reserved: more vault-relative folders writes may not enter (the store folder).

    Returns:
        ``vault / relative``.

    Raises:
        OutsideVaultError: the path is empty, absolute, has a ``..``, ``~``, drive-letter or
            empty part, a NUL or backslash, lies in a reserved folder, or passes through a
            symlink (an existing part of it is one).
    """
    parts = _parts(relative)
    first = {parts[0].casefold(), parts[0]}
    for folder in (*ALWAYS_RESERVED, *reserved):
        top = PurePosixPath(folder).parts
        if top and (top[0] in first or top[0].casefold() in first):
            raise OutsideVaultError(f"{relative!r}: vault-sync never writes into {top[0]}/")
    here = vault
    for part in parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            break  # the rest does not exist yet: nothing to follow
        except OSError as exc:
            raise OutsideVaultError(f"{relative!r}: cannot check {part!r}: {exc.strerror}") from exc
        if stat.S_ISLNK(mode):
            raise OutsideVaultError(f"{relative!r}: {part!r} is a symlink; writes never follow one")
    return vault.joinpath(*parts)


def _parts(relative: str) -> list[str]:
    """The parts of a path an agent gave, or :class:`OutsideVaultError` naming what is wrong."""
    if not relative or not relative.strip():
        raise OutsideVaultError("an empty path names no page")
    problem = vault_path_problem(relative)
    if problem:
        raise OutsideVaultError(f"{relative!r}: {problem}")
    return relative.split("/")


def transcript_roots(configured: Sequence[str] | None) -> tuple[str, ...]:
    """The folders transcripts may be read from: ``[write] transcript_roots`` when set
    (``configured``), else the vendors' own (:data:`~vault_sync.transcript.VENDOR_ROOTS`)."""
    return tuple(VENDOR_ROOTS.values()) if configured is None else tuple(configured)


def allowed_transcript(path: str, roots: Sequence[str], reader: str) -> Path:
    """``path`` resolved, if it lies below one of the transcript ``roots`` (``~`` expanded,
    symlinks resolved on both sides). An agent names the transcript to read (the MCP
    ``import_session`` tool's argument, a hook's ``transcript_path``), so it may name only
    the vendors' transcript folders, never an arbitrary file (``/etc/passwd``: issue 13, and
    a fresh user's hook input).

    Args:
        path: the file named (absolute, or relative to the working directory).
        roots: the allowed folders (:func:`transcript_roots`).
        reader: who reads, for the message (``import_session``, ``import-session --hook``).

    Raises:
        AgentInputError: ``path`` is not below any root (the message names the roots).
    """
    real = Path(path).expanduser().resolve()
    for root in roots:
        base = Path(root).expanduser().resolve()
        if real.is_relative_to(base) and real != base:
            return real
    shown = ", ".join(roots) or "no folder ([write] transcript_roots is empty)"
    raise AgentInputError(f"{reader} reads transcripts only below {shown}")
