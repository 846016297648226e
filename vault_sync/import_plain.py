"""Plain-text transcripts: a chat pasted or exported as text (issue 13).

Turns start with a speaker label at the start of a line — ``User:``, ``Human:``, ``You:`` for
the user; ``Assistant:``, ``AI:``, ``Agent:``, ``Claude:``, ``Codex:``, ``Gemini:`` for the
agent — and run until the next label; a line ``$ COMMAND`` is a shell command the agent ran
(the lines after it, up to a blank line or a label, its output). Optional header lines before
the first turn set the session: ``Session: ID``, ``Agent: claude``, ``Model: M``,
``Date: 2026-03-05`` (or a datetime), ``Cwd: /path``. Without ``Session:`` the transcript has
no id of its own: the importer makes it the file's stem and a hash of the file's resolved path
(:func:`vault_sync.session_page.file_session_id`), so re-importing the same file (grown or
not) updates the same page and two files of the same name never share one. Text before any
label is the user's.
"""

from __future__ import annotations

import re

from vault_sync.errors import TranscriptError
from vault_sync.page_dates import ISO_DATE_SAID, iso_day
from vault_sync.transcript import Message, ToolCall, Transcript, tool_call, with_output

_HEADER = re.compile(r"^(Session|Agent|Model|Date|Cwd):\s*(\S.*)$", re.I)
_USER = ("user", "human", "you")
_ASSISTANT = ("assistant", "ai", "agent", "claude", "codex", "gemini")
_TURN = re.compile(r"^({}):\s?(.*)$".format("|".join((*_USER, *_ASSISTANT))), re.I)
_COMMAND = re.compile(r"^\$ (\S.*)$")


def parse(text: str, source: str) -> Transcript:
    """The transcript of a plain-text chat (any text is one, but for its header).

    Raises:
        TranscriptError: a ``Date:`` header that is not an ISO 8601 date or datetime
            (``FILE:LINE``; :func:`vault_sync.page_dates.iso_day`: never today's date, or a
            day that does not exist, in its place).
    """
    lines = text.replace("\r\n", "\n").split("\n")
    header: dict[str, str] = {}
    number = 0
    while lines and (match := _HEADER.match(lines[0].strip())):
        number += 1
        key, value = match.group(1).lower(), match.group(2).strip()
        if key == "date" and iso_day(value) is None:
            raise TranscriptError(f"{source}:{number}: Date: {ISO_DATE_SAID} (got {value[:40]!r})")
        header[key] = value
        lines.pop(0)
    turns: list[list[str]] = []  # [role, line, line...]
    call: ToolCall | None = None
    messages: list[Message] = []
    role = "user"  # of text before any label, and of text after a command's output
    for line in lines:
        turn, command = _TURN.match(line), _COMMAND.match(line)
        if turn:
            _flush(turns, call, messages)
            call = None
            role = "user" if turn.group(1).lower() in _USER else "assistant"
            turns.append([role, turn.group(2)])
        elif command:
            _flush(turns, call, messages)
            call = tool_call("shell", {"command": command.group(1)})
        elif call is not None:
            if not line.strip():
                _flush(turns, call, messages)
                call = None
            else:
                call = with_output(call, (call.output + "\n" + line).lstrip("\n"))
        elif turns:
            turns[-1].append(line)
        elif line.strip():
            turns.append([role, line])
    _flush(turns, call, messages)
    stem = re.sub(r"\.[^./]*$", "", source.replace("\\", "/").rsplit("/", 1)[-1])
    date = header.get("date")
    agent = re.sub(r"[^0-9a-z_-]", "", header.get("agent", "").casefold()) or None
    return Transcript(
        session_id=header.get("session") or stem or "session",
        agent=agent,
        model=header.get("model"),
        started=date,
        ended=date,
        cwd=header.get("cwd"),
        messages=tuple(messages),
        id_from_file="session" not in header,
    )


def _flush(turns: list[list[str]], call: ToolCall | None, messages: list[Message]) -> None:
    """Move the open turns, then the open call, into ``messages``."""
    for role, *body in turns:
        text = "\n".join(body).strip()
        if text:
            messages.append(Message(role, text))
    turns.clear()
    if call is not None:
        messages.append(Message("tool", "", None, call))
