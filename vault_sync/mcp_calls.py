"""How an MCP tool call reaches the engine: its arguments checked, its errors one line.

Agents vary in what they send, so numbers and flags are typed loosely and checked here
(:func:`int_arg`, :func:`flag_arg`, :func:`listed`), each failure a one-line
``ToolError`` naming the argument and never echoing it; :func:`call` runs one engine call and
turns a user's mistake or a store problem into one scrubbed line. :class:`Stores` keeps the
index and a sidecar connection open between ``query`` calls. The tools themselves are
registered by :mod:`vault_sync.mcp_server` (reads) and :mod:`vault_sync.mcp_writes` (writes).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import WithJsonSchema

from vault_sync import layout
from vault_sync.app import Engine
from vault_sync.errors import StoreError, VaultSyncError
from vault_sync.index import PageIndex
from vault_sync.ranking import search as rank_search
from vault_sync.readers import READ_DAMAGE
from vault_sync.retrieve import Hit
from vault_sync.store import Sidecar
from vault_sync.typed_text import scrub_typed

R = TypeVar("R")

Names = str | list[str] | None
#: Numbers and flags are typed loosely: the SDK's own validation error for a wrong type is a
#: multi-line pydantic dump that echoes the input unscrubbed (checked on mcp 2.3.0), so every
#: argument an agent may get wrong is checked here instead (:func:`int_arg`, :func:`flag_arg`).
#: The types take what JSON may send (a bool, a float) so pydantic never converts it (its lax
#: mode read ``true`` as 1 and ``2.0`` as 2: fresh-user report 4); the schema an agent sees
#: still says integer or string, boolean or string.
Number = Annotated[
    int | float | str | bool, WithJsonSchema({"anyOf": [{"type": "integer"}, {"type": "string"}]})
]
Flag = Annotated[
    bool | int | float | str, WithJsonSchema({"anyOf": [{"type": "boolean"}, {"type": "string"}]})
]
_WHOLE = re.compile(r"[+-]?[0-9]+")


def int_arg(value: Number | None, name: str, low: int = 1, high: int = 1_000_000) -> int | None:
    """A whole-number argument, or a one-line ToolError naming it (never echoing it).

    Taken: a JSON integer, a number with no fraction (``2.0`` is the number 2: JSON has one
    number type), or a string of ASCII digits (``"2"``). Refused: ``true``/``false`` (a bool is
    no number), a fraction (``2.5``), any other string, a value outside ``low``..``high``.
    """
    if value is None:
        return None
    said = f"{name} must be a whole number from {low} to {high}"
    if isinstance(value, bool):
        raise ToolError(f"{said} (true or false is no number)")
    if isinstance(value, float):
        if not value.is_integer():
            raise ToolError(f"{said} (a fraction is no whole number)")
        number = int(value)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise ToolError(said)
    if not low <= number <= high:
        raise ToolError(said)
    return number


def flag_arg(value: Flag, name: str) -> bool:
    """A true/false argument: a JSON ``true``/``false``, or the string ``"true"``/``"false"``
    (any case); anything else (``1``, ``"yes"``, ``""``) is a ToolError naming it."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower() if isinstance(value, str) else None
    if text in ("true", "false"):
        return text == "true"
    raise ToolError(f"{name} must be true or false")


def listed(value: Names) -> list[str]:
    """A tag, alias, relation or evidence argument as the list the engine takes."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def call(engine: Engine, action: Callable[[], R]) -> R:
    """Run one engine call; a user's mistake or a store problem becomes a one-line ToolError."""
    try:
        return action()
    except VaultSyncError as exc:
        raise ToolError(scrub_typed(str(exc), engine.config)) from None
    except OSError as exc:
        raise ToolError(scrub_typed(f"cannot read or write a file: {exc}", engine.config)) from None


class Stores:
    """The index and a sidecar connection kept open between tool calls (an agent asks many
    small questions): each query reloads the index (~0.05 ms: another server, a watcher or
    the CLI may have committed; SQLite's own read transaction sees their commits, and keeps
    its page cache while the file is unchanged) and another active set (a rebuild) reopens
    both. A sidecar SQLite could open only ``immutable`` (a store this user cannot write
    beside) would never see a later commit: it is opened per query. ``query`` runs on the
    server's event loop (an async tool: no hop to a worker thread and back, the SDK's way for
    a plain function), the one thread that uses the connection; the other tools run in
    worker threads and open the stores per call. Holds no lock between calls.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.index: PageIndex | None = None
        self.sidecar: Sidecar | None = None
        self.folder: Path | None = None

    def search(self, text: str, **options: Any) -> list[Hit] | None:
        """:func:`vault_sync.ranking.search` on the open index and a sidecar connection of
        this call; ``None`` on damage or when there is no usable store yet (the caller falls
        back to the engine's search, which repairs; the index is reopened next time).
        ``text`` is searched as typed: the caller scrubs it, as the CLI does."""
        options.setdefault("settings", self.engine.config.ranking)
        try:
            index, sidecar = self._current()
            try:
                return rank_search(index, sidecar, text, **options)
            finally:
                if sidecar.immutable:
                    sidecar.close()
        except (*READ_DAMAGE, StoreError, OSError):
            self._close()
        return None

    def _current(self) -> tuple[PageIndex, Sidecar]:
        folder = layout.active_set(self.engine.config.store_path)
        if folder is None:
            raise StoreError("no store yet")  # the engine's search syncs first
        if self.index is None or self.sidecar is None or folder != self.folder:
            self._close()
            self.index = PageIndex.open(layout.index_dir(folder), create=False)
            self.sidecar = Sidecar.open(layout.sidecar_file(folder), readonly=True)
            self.folder = folder
        else:
            self.index.reload()
        if self.sidecar.immutable:  # a snapshot: the next query opens it again
            sidecar, self.sidecar = self.sidecar, None
            return self.index, sidecar
        return self.index, self.sidecar

    def _close(self) -> None:
        if self.sidecar is not None:
            self.sidecar.close()
        self.index, self.sidecar, self.folder = None, None, None
