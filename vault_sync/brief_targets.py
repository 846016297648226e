"""Where briefings are written: ``[[brief.targets]]`` files, whole or as a marked block.

Issue 12, Build 4; DESIGN §6. A target is a whole file the briefing owns, or a marked block
(``<!-- vault-sync:begin -->`` … ``<!-- vault-sync:end -->``) inside a file a person owns —
``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``, possibly in a code repository outside the vault —
whose every byte outside the block is kept (its line endings too; a missing block is appended
after a blank line). Writes follow the page-edit rules (DESIGN Invariant 5): atomic, refused
when the file changed since it was read, and skipped when the bytes would not change (no
mtime churn). Only ``brief`` and ``watch`` write targets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from vault_sync.atomic import write_atomic
from vault_sync.config import BriefTarget, Config
from vault_sync.errors import EditRefusedError
from vault_sync.pagefile import content_hash, write_page

BEGIN = "<!-- vault-sync:begin -->"
END = "<!-- vault-sync:end -->"
#: The first line of every briefing (:func:`vault_sync.briefing.render`): a whole-file target
#: replaces only a file that starts with it (or none), never a page a person wrote.
TITLE = "# Memory briefing"
_BLOCK = re.compile(re.escape(BEGIN) + r"(.*?)" + re.escape(END), re.DOTALL)


def target_path(config: Config, target: BriefTarget) -> Path:
    """The file a target names: ``~/...`` in the user's home, else relative to the vault."""
    if target.path.startswith("~/"):
        return Path(target.path).expanduser()
    return config.vault / target.path


def with_block(text: str, briefing: str) -> str:
    """``text`` with its marked block holding ``briefing`` (appended after a blank line when
    it has none); every other byte kept, the block written in the file's line endings."""
    newline = "\r\n" if "\r\n" in text else "\n"
    inner = newline + briefing.replace("\r\n", "\n").replace("\n", newline)
    block = f"{BEGIN}{inner}{END}"
    found = _BLOCK.search(text)
    if found is not None:
        return text[: found.start()] + block + text[found.end() :]
    if not text:
        return block + newline
    end = "" if text.endswith(("\n", "\r")) else newline
    return f"{text}{end}{newline}{block}{newline}"


@dataclass(frozen=True)
class Written:
    """What writing one target did: its file, and whether its bytes changed (``stale``
    for ``--check``: they would)."""

    path: Path
    changed: bool


def write_target(path: Path, mode: str, briefing: str, *, check: bool = False) -> Written:
    """Bring one target up to date (``check``: only say whether it is stale).

    Raises:
        PageChangedError: the file changed between reading and writing it.
        EditRefusedError: a whole-file target names a file that is not an earlier briefing
            (nor empty), or the file is not UTF-8.
        OSError: the file or its folder cannot be read or written.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    try:
        old = data.decode("utf-8-sig") if data is not None else ""
    except UnicodeDecodeError as exc:
        raise EditRefusedError(
            f"refusing to write into {path}: it is not UTF-8 ({exc.reason})"
        ) from None
    if mode == "file" and old.strip() and not old.startswith(TITLE):
        raise EditRefusedError(
            f"refusing to replace {path}: a whole-file briefing target replaces only an earlier"
            f' briefing (a file starting "{TITLE}"), and this file is not one;'
            ' use mode = "block" to keep its text, or another path'
        )
    new = briefing if mode == "file" else with_block(old, briefing)
    bom = b"\xef\xbb\xbf" if data is not None and data.startswith(b"\xef\xbb\xbf") else b""
    new_data = bom + new.encode("utf-8")
    if new_data == data:
        return Written(path, False)
    if check:
        return Written(path, True)
    if data is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, new_data)
    else:
        write_page(path.parent, path.name, new_data, content_hash(data))
    return Written(path, True)
