"""An agent's session transcript as a plain value: :class:`Transcript` (issue 13, Build 2).

Each vendor's reader (``import_claude``, ``import_codex``, ``import_gemini``, ``import_plain``)
turns a transcript file's text into one :class:`Transcript`; everything after that (digest,
condensed transcript, the session page) works on this value only. Layer 1: values, no I/O.
The JSON Lines reader shared by the JSONL formats (:func:`json_lines`) is total on a
transcript still being written: a last line cut short is dropped (``truncated``), a bad line
anywhere else is one :class:`~vault_sync.errors.TranscriptError` naming file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from vault_sync.errors import TranscriptError

#: Where each vendor's CLI writes its transcripts (below the user's home): the default roots
#: an importer that must not read arbitrary paths (the MCP ``import_session`` tool) allows.
VENDOR_ROOTS = {
    "claude-code": "~/.claude/projects",
    "codex": "~/.codex/sessions",
    "gemini": "~/.gemini/tmp",
}
#: Input keys naming a file a tool read or wrote (Claude Code, Gemini CLI, Codex tools).
FILE_KEYS = ("file_path", "path", "notebook_path", "absolute_path", "filepath", "file")
#: Input keys holding a shell command.
COMMAND_KEYS = ("command", "cmd")
#: ``apply_patch`` headers naming the file a patch touches (Codex CLI).
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)


@dataclass(frozen=True)
class ToolCall:
    """One tool call: its name, inputs (JSON values), output text (``""`` when none came
    back), whether it failed, and the files it touched and commands it ran."""

    name: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    output: str = ""
    error: bool = False
    files: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class Message:
    """One entry of a transcript, in order: ``role`` is ``user``, ``assistant`` or ``tool``
    (then ``tool`` holds the call and ``text`` is empty); ``at`` an ISO 8601 time or None."""

    role: str
    text: str = ""
    at: str | None = None
    tool: ToolCall | None = None


@dataclass(frozen=True)
class Transcript:
    """A session: its id, vendor (``claude``, ``codex``, ``gemini``; ``None`` for plain text),
    model, first and last times (ISO 8601, as recorded), working directory, messages,
    ``truncated`` when the file's last line was cut short (still being written), and
    ``id_from_file`` when the transcript records no id of its own (``session_id`` is then the
    file's stem, which the importer makes unique:
    :func:`vault_sync.session_page.file_session_id`)."""

    session_id: str
    agent: str | None = None
    model: str | None = None
    started: str | None = None
    ended: str | None = None
    cwd: str | None = None
    messages: tuple[Message, ...] = ()
    truncated: bool = False
    id_from_file: bool = False

    def mapped(self, clean: Callable[[str], str]) -> Transcript:
        """This transcript with every text in it (id, agent, model, times, cwd, messages,
        tool names, inputs, outputs, files, commands) passed through ``clean`` (the
        sanitizer)."""

        def tool(call: ToolCall) -> ToolCall:
            return replace(
                call,
                name=clean(call.name),
                inputs=_mapped_json(call.inputs, clean),
                output=clean(call.output),
                files=tuple(clean(f) for f in call.files),
                commands=tuple(clean(c) for c in call.commands),
            )

        messages = tuple(
            replace(
                m,
                text=clean(m.text),
                at=clean(m.at) if m.at else None,
                tool=tool(m.tool) if m.tool else None,
            )
            for m in self.messages
        )
        return replace(
            self,
            session_id=clean(self.session_id),
            agent=clean(self.agent) if self.agent else None,
            started=clean(self.started) if self.started else None,
            ended=clean(self.ended) if self.ended else None,
            model=clean(self.model) if self.model else None,
            cwd=clean(self.cwd) if self.cwd else None,
            messages=messages,
        )


def _mapped_json(value: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, Mapping):
        return {clean(str(k)): _mapped_json(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped_json(v, clean) for v in value]
    return value


def last_line(lines: list[str]) -> int:
    """The 1-based number of the last line of ``lines`` holding more than blanks (0: none):
    a transcript's last line, which may be cut short (blank lines after it or not: the
    importers of a file, a hook and a watcher read the same file the same way)."""
    last = len(lines)
    while last and not lines[last - 1].strip():
        last -= 1
    return last


def json_lines(text: str, source: str) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
    """The JSON objects of a JSON Lines text with their 1-based line numbers, and whether
    the last line (:func:`last_line`) was cut short (not JSON: dropped).

    Raises:
        TranscriptError: a line other than a cut-short last one is not a JSON object
            (``FILE:LINE: ...``).
    """
    lines = text.split("\n")
    last = last_line(lines)
    out: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == last:  # the last line: still being written (a newline after it too)
                return out, True
            raise TranscriptError(f"{source}:{number}: not a JSON line ({exc.msg})") from None
        if not isinstance(value, dict):
            raise TranscriptError(f"{source}:{number}: a line is a JSON object, not {line[:20]!r}")
        out.append((number, value))
    return out, False


def text_of(value: Any) -> str:
    """The text of a message content in the shapes vendors use: a string, a list of parts
    (``{"text": ...}``, ``{"type": "text"|"input_text"|"output_text", ...}``), or a part."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(v) for v in value) if t)
    if isinstance(value, Mapping):
        for key in ("text", "output", "content"):
            if isinstance(value.get(key), (str, list)):
                return text_of(value[key])
    return ""


def tool_call(name: str, inputs: Mapping[str, Any]) -> ToolCall:
    """A :class:`ToolCall` with the files and commands its inputs name."""
    files: list[str] = []
    commands: list[str] = []
    for key in FILE_KEYS:
        if isinstance(inputs.get(key), str) and inputs[key]:
            files.append(inputs[key])
    for value in inputs.values():
        if isinstance(value, str):
            files.extend(m.strip() for m in _PATCH_FILE.findall(value))
    for key in COMMAND_KEYS:
        command = inputs.get(key)
        if isinstance(command, list) and all(isinstance(c, str) for c in command):
            # Codex: ["bash", "-lc", "the command"] -> the command itself
            command = (
                command[-1] if command[:1] in (["bash"], ["sh"], ["zsh"]) else " ".join(command)
            )
        if isinstance(command, str) and command.strip():
            commands.append(command.strip())
    return ToolCall(name, dict(inputs), files=tuple(dict.fromkeys(files)), commands=tuple(commands))


def with_output(call: ToolCall, output: str, error: bool = False) -> ToolCall:
    """``call`` with its output (and failure) filled in."""
    return replace(call, output=output, error=error)


def parse_json_object(text: str, source: str) -> dict[str, Any]:
    """``text`` as one JSON object.

    Raises:
        TranscriptError: not JSON (``FILE:LINE: ...``, the line of the error) or not an object.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"{source}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise TranscriptError(f"{source}:1: expected a JSON object")
    return value
