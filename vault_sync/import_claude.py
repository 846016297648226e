"""Claude Code session logs: ``~/.claude/projects/<slug>/<session-id>.jsonl`` (issue 13).

One JSON object a line. Lines with ``type`` ``user`` or ``assistant`` carry ``sessionId``,
``timestamp`` (ISO 8601, UTC), ``cwd`` and ``message`` (the Anthropic Messages API shape:
``role``, ``model`` on assistant turns, ``content`` a string or a list of blocks: ``text``,
``thinking``, ``tool_use`` with ``id``, ``name``, ``input``; ``tool_result`` in the next user
line with ``tool_use_id``, ``content`` and ``is_error``). Other line types (``summary``,
``system``, ``file-history-snapshot``...) are skipped. Meta lines (``isMeta``: command
caveats) are skipped too. Source: the format as Claude Code writes it and public readers
document it (e.g. ``ccusage``, ``claude-code-log``).
"""

from __future__ import annotations

from typing import Any

from vault_sync.errors import TranscriptError
from vault_sync.transcript import Message, Transcript, json_lines, text_of, tool_call, with_output


def looks_like(first: dict[str, Any]) -> bool:
    """Whether a first JSON line looks like Claude Code's (``sessionId`` or a ``summary``)."""
    return "sessionId" in first or (first.get("type") == "summary" and "leafUuid" in first)


def parse(text: str, source: str) -> Transcript:
    """The transcript of a Claude Code session log.

    Raises:
        TranscriptError: a bad line (``FILE:LINE``), or no session id in the file.
    """
    records, truncated = json_lines(text, source)
    messages: list[Message] = []
    pending: dict[str, int] = {}  # tool_use id -> index in messages
    meta: dict[str, Any] = {}
    times: list[str] = []
    for _, record in records:
        if record.get("type") not in ("user", "assistant") or record.get("isMeta"):
            continue
        for key in ("sessionId", "cwd"):
            if isinstance(record.get(key), str) and record[key].strip():  # "" is no id
                meta.setdefault(key, record[key])
        at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if at:
            times.append(at)
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("model"), str) and not message["model"].startswith("<"):
            meta["model"] = message["model"]
        _blocks(message, at, messages, pending)
    if "sessionId" not in meta:
        raise TranscriptError(f"{source}:1: no sessionId in a Claude Code session log")
    return Transcript(
        session_id=meta["sessionId"],
        agent="claude",
        model=meta.get("model"),
        started=times[0] if times else None,
        ended=times[-1] if times else None,
        cwd=meta.get("cwd"),
        messages=tuple(messages),
        truncated=truncated,
    )


def _blocks(
    message: dict[str, Any], at: str | None, messages: list[Message], pending: dict[str, int]
) -> None:
    """Append one API message's text and tool calls; fill in the outputs of earlier calls."""
    role = "assistant" if message.get("role") == "assistant" else "user"
    content = message.get("content")
    if isinstance(content, str):
        if content.strip():
            messages.append(Message(role, content, at))
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            messages.append(Message(role, str(block["text"]), at))
        elif kind == "tool_use":
            inputs: dict[str, Any] = block["input"] if isinstance(block.get("input"), dict) else {}
            pending[str(block.get("id"))] = len(messages)
            call = tool_call(str(block.get("name", "tool")), inputs)
            messages.append(Message("tool", "", at, call))
        elif kind == "tool_result":
            index = pending.pop(str(block.get("tool_use_id")), None)
            output = text_of(block.get("content"))
            if index is not None and messages[index].tool is not None:
                call = with_output(messages[index].tool, output, bool(block.get("is_error")))  # type: ignore[arg-type]
                messages[index] = Message("tool", "", messages[index].at, call)
