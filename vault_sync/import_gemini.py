"""Gemini CLI recorded sessions: ``~/.gemini/tmp/<project-hash>/chats/session-*.json``
(issue 13).

One JSON object a file, rewritten whole as the session goes: the ``ConversationRecord`` of
gemini-cli's ``ChatRecordingService`` (``packages/core/src/services/chatRecordingService.ts``,
the format of the 0.x releases since chat recording landed, checked against its
``chatRecordingService.d.ts``): ``sessionId``, ``projectHash`` (a hash of the project root,
not a path: the page's project comes from ``--project`` or the config), ``startTime``,
``lastUpdated``, ``messages``: each ``id``, ``timestamp``, ``type`` (``user``, ``gemini``,
``info``, ``error``, ``warning``) and ``content`` (a text, or in later releases a list of
parts); a ``gemini`` message may carry ``model`` and ``toolCalls`` (``name``, ``args``,
``result``: a list of ``functionResponse`` parts, ``status``, ``resultDisplay``). A file cut
short mid-write is one error naming its line (there is no line to drop).
"""

from __future__ import annotations

from typing import Any

from vault_sync.errors import TranscriptError
from vault_sync.transcript import (
    Message,
    Transcript,
    parse_json_object,
    text_of,
    tool_call,
    with_output,
)


def looks_like(value: dict[str, Any]) -> bool:
    """Whether a JSON object looks like a Gemini CLI conversation record."""
    return "sessionId" in value and isinstance(value.get("messages"), list)


def parse(text: str, source: str) -> Transcript:
    """The transcript of a Gemini CLI session file.

    Raises:
        TranscriptError: not JSON (``FILE:LINE``), or no ``sessionId`` / ``messages``.
    """
    record = parse_json_object(text, source)
    if not looks_like(record) or not isinstance(record["sessionId"], str):
        raise TranscriptError(f"{source}:1: not a Gemini CLI session (no sessionId and messages)")
    messages: list[Message] = []
    model = None
    for item in record["messages"]:
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
    )


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
