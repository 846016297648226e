"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`` (issue 13).

One JSON object a line, each ``{"timestamp", "type", "payload"}``: first ``session_meta``
(``payload``: ``id``, ``timestamp``, ``cwd``, ``originator``, ``cli_version``), then
``turn_context`` (``cwd``, ``model``...), ``response_item`` (``payload.type``: ``message``
with ``role`` and ``content`` parts ``input_text`` / ``output_text``; ``function_call`` with
``name``, ``arguments`` (a JSON text) and ``call_id``; ``function_call_output`` with
``call_id`` and ``output`` (a text, or in older releases a JSON text ``{"output",
"metadata": {"exit_code"}}``); ``custom_tool_call`` / ``custom_tool_call_output`` (e.g.
``apply_patch`` with its patch as ``input``); ``local_shell_call``; ``reasoning``, skipped) and
``event_msg`` (``user_message``, ``agent_message``, token counts: skipped, as they repeat the
response items). Messages the CLI adds itself (``developer`` role, ``<environment_context>``,
``<user_instructions>``) are skipped. Source: the rollout recorder of openai/codex
(``codex-rs/protocol``: ``RolloutItem``, ``ResponseItem``) and public readers of it.
"""

from __future__ import annotations

import json
from typing import Any

from vault_sync.errors import TranscriptError
from vault_sync.transcript import Message, Transcript, json_lines, text_of, tool_call, with_output

#: Response items that are calls, and the key holding their inputs.
_CALLS = {"function_call": "arguments", "custom_tool_call": "input", "local_shell_call": "action"}
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def looks_like(first: dict[str, Any]) -> bool:
    """Whether a first JSON line looks like a Codex rollout (a ``session_meta`` record)."""
    return first.get("type") == "session_meta" and isinstance(first.get("payload"), dict)


def parse(text: str, source: str) -> Transcript:
    """The transcript of a Codex CLI rollout.

    Raises:
        TranscriptError: a bad line (``FILE:LINE``), or no ``session_meta`` record.
    """
    records, truncated = json_lines(text, source)
    meta: dict[str, Any] = {}
    messages: list[Message] = []
    pending: dict[str, int] = {}
    times: list[str] = []
    for _, record in records:
        payload = record.get("payload")
        at = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            meta.setdefault("id", payload.get("id"))
            meta.setdefault("cwd", payload.get("cwd"))
        elif kind == "turn_context":
            meta["model"] = payload.get("model") or meta.get("model")
            meta.setdefault("cwd", payload.get("cwd"))
        elif kind == "response_item":
            if at:
                times.append(at)
            _item(payload, at, messages, pending)
    if not isinstance(meta.get("id"), str) or not meta["id"].strip():  # "" is no id
        raise TranscriptError(f"{source}:1: no session_meta record with an id in a Codex rollout")
    return Transcript(
        session_id=meta["id"],
        agent="codex",
        model=meta.get("model") if isinstance(meta.get("model"), str) else None,
        started=times[0] if times else None,
        ended=times[-1] if times else None,
        cwd=meta.get("cwd") if isinstance(meta.get("cwd"), str) else None,
        messages=tuple(messages),
        truncated=truncated,
    )


def _inputs(value: Any) -> dict[str, Any]:
    """A call's inputs: ``arguments`` is a JSON text; a custom tool's ``input`` a raw text."""
    if isinstance(value, str):
        try:
            loaded = json.loads(value)
        except json.JSONDecodeError:
            return {"input": value}
        return loaded if isinstance(loaded, dict) else {"input": value}
    return value if isinstance(value, dict) else {}


def _output(value: Any) -> tuple[str, bool]:
    """An output's text and whether it failed (``metadata.exit_code`` other than 0)."""
    text = value if isinstance(value, str) else text_of(value)
    try:
        loaded = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text, False
    if isinstance(loaded, dict) and isinstance(loaded.get("output"), str):
        code = (loaded.get("metadata") or {}).get("exit_code", 0)
        return loaded["output"], code not in (0, None)
    return text, False


def _item(
    payload: dict[str, Any], at: str | None, messages: list[Message], pending: dict[str, int]
) -> None:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        text = text_of(payload.get("content"))
        if role in ("user", "assistant") and text.strip() and not text.lstrip().startswith("<"):
            messages.append(Message(str(role), text, at))
    elif kind in _CALLS:
        inputs = _inputs(payload.get(_CALLS[kind]))
        name = str(payload.get("name") or ("shell" if kind == "local_shell_call" else "tool"))
        pending[str(payload.get("call_id"))] = len(messages)
        messages.append(Message("tool", "", at, tool_call(name, inputs)))
    elif kind in _OUTPUTS:
        index = pending.pop(str(payload.get("call_id")), None)
        call = messages[index].tool if index is not None else None
        if index is not None and call is not None:
            output, failed = _output(payload.get("output"))
            messages[index] = Message(
                "tool", "", messages[index].at, with_output(call, output, failed)
            )
