"""Where briefings are written: ``[[brief.targets]]`` files, whole or as a marked block.

Issue 12, Build 4; DESIGN §6. A target is a whole file the briefing owns, or a marked block
(``<!-- vault-sync:begin -->`` … ``<!-- vault-sync:end -->``) inside a file a person owns —
``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``, possibly in a code repository outside the vault —
whose every byte outside the block is kept (its line endings too; a missing block is appended
after a blank line). Writes follow the page-edit rules (DESIGN Invariant 5): atomic, refused
when the file changed since it was read, and skipped when the bytes would not change (no
mtime churn). Only ``brief`` and ``watch`` write targets.

A target is an agent's instruction file and nothing else (:func:`checked_target`): a
``vault-sync.toml`` shared through git must not make a teammate's ``brief`` append a block to
``~/.bashrc`` or ``~/.ssh/authorized_keys``. A target that is a symbolic link
(``CLAUDE.md -> AGENTS.md``, one file for several agents) is written into the file it points
to, and the link is kept.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

from vault_sync.atomic import write_atomic
from vault_sync.config import BriefTarget, Config
from vault_sync.errors import EditRefusedError
from vault_sync.pagefile import content_hash, write_page
from vault_sync.parser.blocks import scan_blocks

BEGIN = "<!-- vault-sync:begin -->"
END = "<!-- vault-sync:end -->"
#: The first line of every briefing (:func:`vault_sync.briefing.render`): a whole-file target
#: replaces only a file that starts with it (or none), never a page a person wrote.
TITLE = "# Memory briefing"
#: One line with its ending, as CommonMark ends lines (``\n``, ``\r\n``, ``\r``; not the
#: other breaks ``str.splitlines`` knows, which an editor shows inside a line).
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")
_LINE_END = re.compile(r"\r\n?|\n")
#: A marker line: the marker alone on its line, indented at most 3 spaces (CommonMark: 4 is
#: indented code), trailing blanks allowed. A marker inside a line (inline code, prose) is none.
_MARKER = re.compile(r"( {0,3})(" + re.escape(BEGIN) + "|" + re.escape(END) + r")[ \t]*")


#: What a target may be: a Markdown file (CommonMark's and Cursor's ``.mdc`` suffixes) or a
#: rules file an agent reads by its exact name (Cursor ``.cursorrules``, Windsurf
#: ``.windsurfrules``, Cline ``.clinerules``: each tool's documented file at a repository's
#: root). Compared case-insensitively, after following a symbolic link.
TARGET_SUFFIXES = (".md", ".mdc", ".markdown")
TARGET_NAMES = (".cursorrules", ".windsurfrules", ".clinerules")


def target_path(config: Config, target: BriefTarget) -> Path:
    """The file a target names: ``~/...`` in the user's home, else relative to the vault."""
    if target.path.startswith("~/"):
        return Path(target.path).expanduser()
    return config.vault / target.path


def checked_target(path: Path) -> Path:
    """The file a ``[[brief.targets]]`` path is written into: ``path`` itself, or, when it is
    a symbolic link, the file the link points to (the link kept, so every agent reading it
    sees the new briefing).

    Raises:
        EditRefusedError: the file (or the link's target) is neither Markdown
            (:data:`TARGET_SUFFIXES`) nor an agent rules file (:data:`TARGET_NAMES`), or the
            link points nowhere; nothing is written then.
    """
    real = path
    if path.is_symlink():
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # dangling, or a loop
            raise EditRefusedError(
                f"refusing to write the briefing into {path}: it is a symbolic link to a file"
                " that does not exist; point it at the file, or name that file as the target"
            ) from None
    for where in {path, real}:
        name = where.name.lower()
        if not (name.endswith(TARGET_SUFFIXES) or name in TARGET_NAMES):
            allowed = ", ".join((*TARGET_SUFFIXES, *TARGET_NAMES))
            via = "" if where == path else f" (the file the link {path} points to)"
            raise EditRefusedError(
                f"refusing to write the briefing into {where}{via}: a briefing target is an"
                f" agent's instruction file, Markdown or a rules file ({allowed});"
                " check [[brief.targets]] in vault-sync.toml"
            )
    return real


def with_block(text: str, briefing: str, name: str = "the file") -> str:
    """``text`` with its marked block holding ``briefing`` (appended after a blank line when
    it has none); every other byte kept, the block written in the line ending of the file's
    first line (``\n`` when it has none).

    A marker counts only alone on its line (:data:`_MARKER`) and outside fenced or indented
    code and HTML comments (CommonMark, :func:`vault_sync.parser.blocks.scan_blocks`): an
    ``AGENTS.md`` that shows the markers in a code fence keeps its example.

    Raises:
        EditRefusedError: ``name:LINE: ...`` (``name``: the file, for the message) when the
            markers outside code are not one begin then one end (a begin with no end, an end
            with no begin, two blocks), or when a block appended at the end would fall inside
            an unclosed fence or comment; nothing is written then.
    """
    ending = _LINE_END.search(text)  # the first line's: appending never changes it
    newline = ending.group() if ending else "\n"
    inner = newline + briefing.replace("\r\n", "\n").replace("\n", newline)
    block = f"{BEGIN}{inner}{END}"
    found = find_block(text, name)
    if found is not None:
        return text[: found[0]] + block + text[found[1] :]
    if not text:
        return block + newline
    # (a "\n" right after a lone "\r" would join it into one "\r\n" line end)
    end = "" if text.endswith("\n") or (text.endswith("\r") and newline != "\n") else newline
    new = f"{text}{end}{newline}{block}{newline}"
    if find_block(new, name) is None:  # the end of the file is inside code or a comment
        line = len(_LINE.findall(text)) + 1
        raise EditRefusedError(
            f"{name}:{line}: refusing to append the briefing: the file ends inside a fenced"
            " code block or an HTML comment that is never closed; close it, or add the"
            f" {BEGIN} and {END} lines where the briefing should go"
        )
    return new


def find_block(text: str, name: str = "the file") -> tuple[int, int] | None:
    """Where ``text``'s marked block is: ``(start of the begin marker, end of the end
    marker)`` as offsets, or ``None`` when it has no marker outside code (see
    :func:`with_block`, which raises what this raises)."""
    lines = _LINE.findall(text)
    marks: list[tuple[int, re.Match[str]]] = []
    probe = []
    for number, line in enumerate(lines):
        bare = line.rstrip("\r\n")
        marker = _MARKER.fullmatch(bare) if "vault-sync:" in bare else None
        if marker is not None:
            marks.append((number, marker))
            # An empty ATX heading leaves the block scanner as the one-line comment does,
            # but is not hidden itself: only code or a comment around it hides it.
            bare = marker[1] + "#"
        probe.append(bare)
    if not marks:
        return None
    hidden, _ = scan_blocks(probe, 1)
    marks = [(n, m) for n, m in marks if not hidden[n]]
    if not marks:
        return None
    _check_pairs(name, [(n + 1, m[2] == BEGIN) for n, m in marks])
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    (first, opened), (last, closed) = marks
    return offsets[first] + opened.start(2), offsets[last] + closed.end(2)


def _check_pairs(name: str, marks: list[tuple[int, bool]]) -> None:
    """Refuse markers (``(line, is_begin)``, outside code) that are not one begin, one end."""
    where, is_begin = marks[0]
    if not is_begin:
        raise EditRefusedError(
            f"{name}:{where}: refusing to write the briefing: an {END} line with no {BEGIN}"
            " line before it; add the begin line above it, or remove it"
        )
    if len(marks) == 1:
        raise EditRefusedError(
            f"{name}:{where}: refusing to write the briefing: a {BEGIN} line with no {END}"
            " line after it; add the end line where the briefing should end, or remove it"
        )
    second, begins_again = marks[1]
    if begins_again:
        raise EditRefusedError(
            f"{name}:{second}: refusing to write the briefing: a second {BEGIN} line before"
            f" the block begun at line {where} ends; keep one begin and one end line"
        )
    if len(marks) > 2:
        raise EditRefusedError(
            f"{name}:{marks[2][0]}: refusing to write the briefing: a second vault-sync block"
            f" (the first is lines {where}-{second}); keep one, as every block would hold the"
            " same briefing"
        )


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
            (nor empty), the file is not UTF-8, or a block target's markers are not one
            begin and one end line outside code (:func:`with_block`).
        OSError: the file or its folder cannot be read or written; ``path`` is a loop of
            symbolic links. (A link to a file not made yet makes that file.)
    """
    if path.is_symlink():  # written into the file it points to; the link stays a link
        real = Path(os.path.realpath(path))
        if real.is_symlink():  # a loop of links: realpath stops inside it
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
        path = real
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
    new = briefing if mode == "file" else with_block(old, briefing, str(path))
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
