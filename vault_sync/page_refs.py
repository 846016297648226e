"""The pages an agent write names: a reference to a page, the wikilink that names a page.

:func:`page_of` finds the page a reference names as ``show`` finds it
(:func:`vault_sync.report.find_page`; a wikilink form too), confined to the vault and still on
disk; :func:`link_text` is the shortest wikilink naming a page alone (:func:`linkable`: what
a link target can hold); :func:`name_keys` every name a link may use for a page;
:func:`contradiction_of` the other side of a contradiction ``resolve`` settles. Reads the
sidecar only; the page changes themselves are :mod:`vault_sync.edits`'.
"""

from __future__ import annotations

import unicodedata

from vault_sync import agent_input
from vault_sync.config import Config
from vault_sync.confine import confined
from vault_sync.errors import EditRefusedError, PageNotFoundError
from vault_sync.page import name_key, path_id, path_stem
from vault_sync.report import find_page
from vault_sync.store import Sidecar


def page_of(config: Config, sidecar: Sidecar, reference: str) -> tuple[str, str]:
    """``(path, disk_path)`` of the page a reference names (as ``show``), confined.

    The reference is tried exactly as given first (a title or path may hold ``#``, ``|`` or
    brackets), then as a wikilink (``[[Page|shown]]``, ``Page#Heading``: the page part). A
    reference holding a ``[REDACTED:…]`` placeholder names no page: a secret was there, and
    pages are never named by one (lint counts such links as unresolved).

    Raises:
        PageNotFoundError, AmbiguousPageError: see :func:`vault_sync.report.find_page`.
        AgentInputError: nothing is left of a wikilink reference.
        OutsideVaultError: the stored page lies behind a symlink or in a reserved folder.
    """
    if "[redacted:" in reference.casefold():
        raise PageNotFoundError(
            f"{reference!r}: a [REDACTED:…] placeholder names no page (name it by its path)"
        )
    exact = unicodedata.normalize("NFC", reference)  # as written, then stripped: find_page
    try:
        path = find_page(sidecar, exact, config.vault)
    except PageNotFoundError:
        parsed = agent_input.target(reference)
        if parsed == exact.strip():
            raise
        path = find_page(sidecar, parsed, config.vault)
    disk_path = disk_path_of(sidecar, path)
    confined(config.vault, disk_path, (config.store_dir,))
    if not (config.vault / disk_path).is_file():
        raise PageNotFoundError(
            f"{path} is gone from the vault (moved or deleted since the last sync);"
            " run vault-sync sync (or keep vault-sync watch running) and try again"
        )
    return path, disk_path


def disk_path_of(sidecar: Sidecar, path: str) -> str:
    """The on-disk path of a stored page."""
    return str(sidecar.page_row(path)["disk_path"])


#: Characters a wikilink target cannot hold (Obsidian: they end the target or start an
#: anchor, a block reference or a display text).
LINK_BREAKING = frozenset("[]#^|")


def linkable(name: str) -> bool:
    """Whether ``[[name]]`` names ``name`` whole: none of :data:`LINK_BREAKING` (so no
    ``[REDACTED:…]`` placeholder either), no line break."""
    return bool(name.strip()) and not (LINK_BREAKING & set(name) or "\n" in name)


def link_text(sidecar: Sidecar, path: str) -> str:
    """The wikilink that names ``path``: ``[[stem]]`` when the stem names only it, else
    ``[[folder/stem]]`` (Obsidian's shortest form); when the file name holds a character a
    wikilink cannot carry (:data:`LINK_BREAKING`), ``[[title]]`` or ``[[alias]]`` if one
    without them names only this page.

    Raises:
        EditRefusedError: no such name: the page cannot be linked until it is renamed.
    """
    stem = path_stem(path)
    if linkable(path_id(path)):
        return f"[[{stem}]]" if _names_only(sidecar, stem, path) else f"[[{path_id(path)}]]"
    row = sidecar.page_row(path)
    for name in (str(row["title"]), *sidecar.aliases_of(path)):
        if linkable(name) and _names_only(sidecar, name, path):
            return f"[[{name}]]"
    raise EditRefusedError(
        f"{path}: its file name holds characters a wikilink cannot carry ([ ] # ^ |) and no"
        " title or alias without them names it; rename the file, then link again"
    )


def _names_only(sidecar: Sidecar, name: str, path: str) -> bool:
    """Whether the first tier of pages ``name`` names is ``path`` alone."""
    tiers = sidecar.paths_named(name_key(name))
    return next((paths for paths in tiers if paths), []) == [path]


def name_keys(sidecar: Sidecar, path: str) -> set[str]:
    """Every name key a link may use for ``path``: path, id, stem, title, aliases."""
    row = sidecar.page_row(path)
    names = {path, path_id(path), path_stem(path), str(row["title"]), str(row["id"])}
    names.update(sidecar.aliases_of(path))
    return {name_key(n) for n in names}


def contradiction_of(sidecar: Sidecar, path: str, keep: str | None) -> str:
    """The other side of the contradiction of ``path`` that ``resolve`` settles: ``keep``
    when it names another page (it must be one of the sides), else the only one.

    Raises:
        EditRefusedError: no contradiction, ``keep`` is not a side, or several sides and no
            ``keep`` naming one (exit 1: the arguments are well formed, the pages' state
            leaves nothing to settle as asked; docs/cli.md, exit codes).
    """
    sides = sorted(
        {r["target_path"] for r in sidecar.links_from(path) if r["type"] == "contradicts"}
        | {r["source"] for r in sidecar.links_into(path) if r["type"] == "contradicts"}
        - {None, path}
    )
    if keep is not None and keep != path:
        if keep not in sides:
            raise EditRefusedError(f"{keep} and {path} do not contradict each other")
        return keep
    if not sides:
        raise EditRefusedError(f"{path} has no contradicts link to settle")
    if len(sides) > 1:
        listed = ", ".join(sides)
        raise EditRefusedError(
            f"{path} contradicts {len(sides)} pages ({listed}): say which with --keep"
        )
    return str(sides[0])
