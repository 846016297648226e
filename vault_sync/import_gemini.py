"""Gemini CLI recorded sessions: ``~/.gemini/tmp/<project-hash>/chats/session-*.jsonl``
(and the older ``session-*.json``) (issue 13).

Followed: gemini-cli **0.61.0** (``@google/gemini-cli-core``, the npm release current when
this was written), ``dist/src/services/chatRecordingService.js`` and
``chatRecordingTypes.d.ts``. It appends one JSON object a line
(``session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl``): first the metadata (``sessionId``,
``projectHash`` — a hash of the project root, not a path: the page's project comes from
``--project`` or the config —, ``startTime``, ``lastUpdated``, ``kind``, ``directories``);
then each message record (``id``, ``timestamp``, ``type``: ``user``, ``gemini``, ``info``,
``error``, ``warning``; ``content``: a text or a list of parts; a ``gemini`` message may carry
``model`` and ``toolCalls``: ``name``, ``args``, ``result`` (``functionResponse`` parts),
``status``, ``resultDisplay``), appended again whole each time it changes (the last copy
wins, in the place of the first); ``{"$set": {...}}`` metadata updates (a ``messages`` list
there replaces every message); ``{"$rewindTo": ID}`` drops that message and all after it.
Read as gemini-cli's own ``loadConversationRecord`` reads it, with this package's JSON Lines
rules (a cut-short last line is left out; any other bad line is one error naming it).

The releases before the JSONL sessions wrote one ``ConversationRecord`` JSON document a file
(``sessionId``, ``projectHash``, ``startTime``, ``lastUpdated``, ``messages``), rewritten
whole as the session went: read too; a document cut short mid-write is one error naming its
line (there is no line to drop).
"""

from __future__ import annotations

from typing import Any

from vault_sync.errors import TranscriptError
from vault_sync.transcript import (
    Message,
    Transcript,
    json_lines,
    parse_json_object,
    text_of,
    tool_call,
    with_output,
)


def looks_like(value: dict[str, Any]) -> bool:
    """Whether a JSON object looks like a Gemini CLI conversation record (a whole older
    ``.json`` file)."""
    return "sessionId" in value and isinstance(value.get("messages"), list)


def looks_like_line(first: dict[str, Any]) -> bool:
    """Whether the first JSON line of a file is a Gemini CLI session's metadata (Claude
    Code's lines carry a ``sessionId`` too, never a ``projectHash``)."""
    return isinstance(first.get("sessionId"), str) and isinstance(first.get("projectHash"), str)


def parse(text: str, source: str) -> Transcript:
    """The transcript of a Gemini CLI session file (JSONL, or the older one JSON document).

    Raises:
        TranscriptError: a bad line (``FILE:LINE``), or no session metadata.
    """
    if text.lstrip().split("\n", 1)[0].strip() == "{":  # an older, pretty-printed document
        record = parse_json_object(text, source)
        if not looks_like(record) or not _id(record["sessionId"]):
            raise TranscriptError(
                f"{source}:1: not a Gemini CLI session (no sessionId and messages)"
            )
        return _transcript(record, record["messages"], False)
    lines, truncated = json_lines(text, source)
    metadata, messages = _replayed(lines)
    if not _id(metadata.get("sessionId")):
        raise TranscriptError(f"{source}:1: not a Gemini CLI session (no sessionId line)")
    return _transcript(metadata, list(messages.values()), truncated)


def _replayed(lines: list[tuple[int, dict[str, Any]]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The metadata and the messages (by id, in order) a JSONL session's records leave."""
    metadata: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for _, record in lines:
        if isinstance(record.get("$rewindTo"), str):
            ids = list(messages)
            cut = ids.index(record["$rewindTo"]) if record["$rewindTo"] in ids else 0
            for gone in ids[cut:]:
                del messages[gone]
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record
        elif isinstance(record.get("$set"), dict):
            if isinstance(record["$set"].get("messages"), list):
                messages.clear()
                _add(messages, record["$set"]["messages"])
            metadata.update(record["$set"])
        elif looks_like_line(record) or looks_like(record):  # (an older document on one line)
            metadata.update(record)
            _add(messages, record.get("messages"))
    return metadata, messages


def _add(messages: dict[str, Any], items: Any) -> None:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            messages[item["id"]] = item


def _transcript(record: dict[str, Any], items: list[Any], truncated: bool) -> Transcript:
    messages: list[Message] = []
    model = None
    for item in items:
        if not isinstance(item, dict):
            continue
        at = item.get("timestamp") if isinstance(item.get("timestamp"), str) else None
        kind = item.get("type")
        text = text_of(item.get("content"))
        if kind == "user" and text.strip():
            messages.append(Message("user", text, at))
        elif kind == "gemini":
            model = item.get("model") if isinstance(item.get("model"), str) else model
            if text.strip():
                messages.append(Message("assistant", text, at))
            messages.extend(_calls(item.get("toolCalls"), at))
    return Transcript(
        session_id=record["sessionId"],
        agent="gemini",
        model=model,
        started=_str(record.get("startTime")),
        ended=_str(record.get("lastUpdated")),
        messages=tuple(messages),
        truncated=truncated,
    )


def _id(value: Any) -> bool:
    """Whether ``value`` is a session id: a text that is not blank (two sessions with ``""``
    would share one page)."""
    return isinstance(value, str) and bool(value.strip())


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _result_text(result: Any) -> str:
    """The output of a tool call: its ``functionResponse.response`` output, else its text."""
    parts = result if isinstance(result, list) else [result]
    texts = []
    for part in parts:
        response = (
            part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        )
        if isinstance(response, dict):
            texts.append(text_of(response.get("output", response.get("error", ""))))
        else:
            texts.append(text_of(part))
    return "\n".join(t for t in texts if t)


def _calls(value: Any, at: str | None) -> list[Message]:
    out = []
    for call in value if isinstance(value, list) else []:
        if not isinstance(call, dict):
            continue
        args: dict[str, Any] = call["args"] if isinstance(call.get("args"), dict) else {}
        made = tool_call(str(call.get("name", "tool")), args)
        output = _result_text(call.get("result")) or text_of(call.get("resultDisplay"))
        failed = call.get("status") in ("error", "cancelled")
        out.append(
            Message(
                "tool", "", _str(call.get("timestamp")) or at, with_output(made, output, failed)
            )
        )
    return out
