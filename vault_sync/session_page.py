"""The session page of an imported transcript: its path, frontmatter and text (issue 13).

A session page is ``kind: session`` with ``title`` ("Session YYYY-MM-DD (agent): topic"),
``project``, ``agent`` (the vendor), ``model``, ``date``, ``tags: [session]``, ``evidence:
- session:ID`` (how a re-import finds it again), ``files`` (touched by tool calls, relative
to the session's working directory), ``commands`` (run by tool calls) and ``related`` (pages
the session mentions by title or alias). Its body is the digest, then the condensed
transcript (:mod:`vault_sync.session_digest`). It lives in ``folder_for(config, "session",
project)`` named ``YYYY-MM-DD-<agent>-<short id>.md``. Every value here comes from a
transcript the caller has already sanitized.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vault_sync import remember
from vault_sync.config import Config
from vault_sync.errors import TranscriptError
from vault_sync.links import NameTable
from vault_sync.page import name_key
from vault_sync.page_dates import iso_day
from vault_sync.parser.frontmatter import frontmatter_map
from vault_sync.sanitize import cut_end
from vault_sync.session_digest import condensed, digest, topic
from vault_sync.splice import render_scalar
from vault_sync.transcript import Transcript

#: Most files, commands and related pages listed in the frontmatter; longest command shown.
MAX_FILES, MAX_COMMANDS, MAX_RELATED, COMMAND_CHARS = 40, 30, 20, 200
#: Shortest title or alias (characters) that counts as a mention.
MENTION_MIN_CHARS = 6
#: Keys an import owns: rewritten on re-import (a person's other keys are kept).
OWNED_KEYS = ("title", "kind", "project", "agent", "model", "date", "files", "commands", "related")


def read_source(file: str) -> tuple[str, str]:
    """A transcript file's text (undecodable bytes replaced) and its modification date.

    Raises:
        TranscriptError: the file cannot be read, or holds binary data (NUL bytes, or more
            than 1 % of it, at least 8, undecodable as UTF-8).
    """
    path = Path(file)
    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError as exc:
        raise TranscriptError(f"{file}: cannot read: {exc.strerror or exc}") from None
    try:
        day = dt.datetime.fromtimestamp(mtime, dt.UTC).date().isoformat()
    except (OverflowError, ValueError, OSError):  # a file time outside years 1-9999
        day = (dt.date.max if mtime > 0 else dt.date.min).isoformat()
    text = data.decode("utf-8", errors="replace")
    # a cut-short last character (a transcript being written) is one replacement; NUL bytes
    # or many undecodable bytes are no transcript (it wrote binary into a page: fresh user)
    if b"\x00" in data or text.count("\ufffd") > max(8, len(text) // 100):
        raise TranscriptError(f"{file}: not a text transcript (binary data)")
    return text, day


#: Hex digits of the path hash in a session id derived from a file (:func:`file_session_id`):
#: 32 bits, so two files of one name collide once in ~4 billion pairs.
FILE_ID_HASH_CHARS = 8


def file_session_id(file: str, stem: str) -> str:
    """The session id of a transcript that records none of its own (a plain-text chat without
    ``Session:``): ``STEM-HASH``, ``HASH`` the first :data:`FILE_ID_HASH_CHARS` hex digits of
    the SHA-256 of the file's resolved absolute path. The same file (re-imported, or grown
    under ``--watch``) keeps its id; two files of one name (``a/chat.txt``, ``b/chat.txt``)
    never share one. A file moved or renamed is another session."""
    try:
        where = str(Path(file).resolve())
    except (OSError, RuntimeError):  # a symlink loop: the path as written, made absolute
        where = os.path.abspath(file)
    digest = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{stem}-{digest[:FILE_ID_HASH_CHARS]}"


def _short(session_id: str) -> str:
    return re.sub(r"[^0-9a-z]", "", session_id.casefold())[:8] or "session"


def session_date(transcript: Transcript, fallback: str) -> str:
    """``YYYY-MM-DD`` the session started (as recorded: an ISO 8601 date or datetime,
    :func:`vault_sync.page_dates.iso_day`), else ``fallback``."""
    return iso_day(transcript.started or "") or fallback


def cwd_project(transcript: Transcript) -> str | None:
    """The project a session gets when none is given: its working directory's name."""
    return (transcript.cwd or "").rstrip("/").rsplit("/", 1)[-1] or None


def _relative(file: str, cwd: str | None) -> str:
    if cwd and file.startswith(cwd.rstrip("/") + "/"):
        return file[len(cwd.rstrip("/")) + 1 :]
    return file


def _relativized(transcript: Transcript) -> Transcript:
    """``transcript`` with every file its tool calls name relative to its working directory."""
    messages = tuple(
        replace(
            m, tool=replace(m.tool, files=tuple(_relative(f, transcript.cwd) for f in m.tool.files))
        )
        if m.tool is not None
        else m
        for m in transcript.messages
    )
    return replace(transcript, messages=messages)


def _command(text: str) -> str:
    first = text.strip().split("\n", 1)
    shown = first[0] + (" …" if len(first) > 1 else "")
    return (
        shown if len(shown) <= COMMAND_CHARS else shown[: cut_end(shown, COMMAND_CHARS - 1)] + "…"
    )


def mentioned(transcript: Transcript, table: NameTable) -> list[str]:
    """Paths of the pages whose title or alias (at least :data:`MENTION_MIN_CHARS`
    characters) the session's messages name as whole words, by path; a name holding a
    ``[REDACTED:…]`` placeholder is never matched (every scrubbed transcript holds those)."""
    text = name_key("\n".join(m.text for m in transcript.messages if m.tool is None))
    found: set[str] = set()
    for names in (table.by_title, table.by_alias):
        for key, paths in names.items():
            if len(key) < MENTION_MIN_CHARS or key not in text or "[redacted:" in key:
                continue
            if re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text):
                found.update(paths)
    return sorted(found)


@dataclass(frozen=True)
class SessionPage:
    """One imported session: where it goes and what it holds."""

    path: str
    values: dict[str, Any]  # owned key -> str, list[str] or None (absent), in page order
    evidence: str  # "session:ID"
    body: str

    def text(self) -> str:
        """The whole new page."""
        lines = ["---"]
        for key, value in self.values.items():
            if isinstance(value, list) and value:
                lines += [f"{key}:", *(f"  - {render_scalar(v)}" for v in value)]
            elif isinstance(value, str):
                lines.append(f"{key}: {render_scalar(value)}")
            if key == "date":
                lines += ["tags: [session]", "evidence:", f"  - {render_scalar(self.evidence)}"]
        return "\n".join([*lines, "---", self.body])


def build(
    config: Config,
    transcript: Transcript,
    *,
    project: str | None,
    fallback_date: str,
    related: Callable[[str], list[str]],
) -> SessionPage:
    """The page of ``transcript`` (sanitized); ``related(path)`` gives the ``[[links]]`` of
    the pages it mentions other than the page at ``path``."""
    transcript = _relativized(transcript)
    if project is None:
        project = cwd_project(transcript)
    day = session_date(transcript, fallback_date)
    agent = transcript.agent
    folder = remember.folder_for(config, "session", project)
    stem = f"{day}-{agent or 'session'}-{_short(transcript.session_id)}"
    path = f"{folder}/{stem}.md" if folder else f"{stem}.md"
    title = f"Session {day}" + (f" ({agent})" if agent else "") + f": {topic(transcript)}"
    calls = [m.tool for m in transcript.messages if m.tool is not None]
    files = [f for c in calls for f in c.files]
    commands = [_command(c) for call in calls for c in call.commands]
    values: dict[str, Any] = {
        "title": title,
        "kind": "session",
        "project": project,
        "agent": agent,
        "model": transcript.model,
        "date": day,
        "files": list(dict.fromkeys(files))[:MAX_FILES] or None,
        "commands": list(dict.fromkeys(commands))[:MAX_COMMANDS] or None,
        "related": related(path)[:MAX_RELATED] or None,
    }
    summary = digest(transcript)
    room = max(config.session_max_chars - len(summary) - 2 * len(title) - 100, 0)
    body = f"# {title}\n\n{summary}\n{condensed(transcript, room)}"
    return SessionPage(path, values, f"session:{transcript.session_id}", body)


def with_body(text: str, body: str) -> str:
    """``text`` (a page with a frontmatter block) with everything after the block replaced
    by ``body``.

    Raises:
        TranscriptError: the page has no frontmatter block to keep.
    """
    block = frontmatter_map(text).block
    if block is None:
        raise TranscriptError("the session page has no frontmatter block; not re-imported")
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines = text.lstrip("\ufeff").split("\n")
    return bom + "\n".join(lines[: block[1]]) + "\n" + body
