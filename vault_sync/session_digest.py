"""A transcript read in any format, and the text of its session page's body (issue 13).

:func:`read_transcript` picks the reader (``auto``: from the content) and returns a
:class:`~vault_sync.transcript.Transcript`. :func:`digest` is the zero-LLM summary: the user's
requests, the decisions stated (:data:`DECISION_CUES`), the errors met with what came next
(the fix), and the final answer. :func:`condensed` is the transcript itself, each message
quoted, each tool call with its input and the first :data:`OUTPUT_LINES` lines of its output,
cut to a character budget. Both take an already sanitized transcript: nothing here scrubs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from vault_sync import import_claude, import_codex, import_gemini, import_plain
from vault_sync.errors import TranscriptError
from vault_sync.sanitize import cut_end
from vault_sync.transcript import Message, ToolCall, Transcript, last_line

#: Formats ``--format`` takes.
FORMATS = ("auto", "claude-code", "codex", "gemini", "plain")
_READERS: dict[str, Callable[[str, str], Transcript]] = {
    "claude-code": import_claude.parse,
    "codex": import_codex.parse,
    "gemini": import_gemini.parse,
    "plain": import_plain.parse,
}
#: Phrases that state a decision or a finding (matched case-insensitively in a sentence).
DECISION_CUES = (
    "we decided",
    "i decided",
    "decided to",
    "decision:",
    "going with",
    "go with",
    "root cause",
    "the cause is",
    "the fix is",
    "we'll use",
    "we will use",
    "chose to",
    "settled on",
    "instead of",
)
_CUE = re.compile("|".join(re.escape(c) for c in DECISION_CUES), re.I)
_ERROR = re.compile(r"(?i)\b(error|exception|traceback|failed|fatal|not found|denied)\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
#: Lines of a tool's output kept in the condensed transcript.
OUTPUT_LINES = 4
#: Most items per digest list; longest digest line (characters).
DIGEST_ITEMS = 8
LINE_CHARS = 240
#: Longest line of a message or tool output kept in the transcript (characters): a minified
#: JSON answer is one line.
TEXT_LINE_CHARS = 400


def detect(text: str, source: str) -> str:
    """The format of a transcript's text: ``codex``, ``claude-code``, ``gemini`` or ``plain``.
    Text starting with ``{``, or a whole JSON array, is JSON: one of the known formats, or
    refused — never imported as a plain-text chat.

    Raises:
        TranscriptError: JSON in none of the known shapes; a line that is not JSON before the
            format is known (``FILE:LINE: not a JSON line``: a cut-short last line after
            good ones is no such line); a one-document file that does not parse
            (``FILE:LINE: not JSON``).
    """
    body = text.lstrip("\ufeff \t\r\n")
    skipped = text[: len(text) - len(body)].count("\n")  # lines before the body
    unknown = f"{source}:{skipped + 1}: JSON in no known transcript format (give --format)"
    if body.startswith("["):
        try:
            json.loads(body)
        except json.JSONDecodeError:
            return "plain"  # text starting with a bracket: "[10:02] User: ..."
        raise TranscriptError(unknown)
    if not body.startswith("{"):
        return "plain"
    lines = body.split("\n")
    bad: tuple[int, str] | None = None  # the first line that is not JSON, and why
    for number, line in enumerate(lines[:50], 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:  # maybe a first line still being written
            if re.match(r'\{"timestamp":\s*"[^"]*",\s*"type":\s*"session_meta"', line):
                return "codex"
            if '"projectHash":' in line:
                return "gemini"
            if '"sessionId":' in line and '"messages":' not in body:
                return "claude-code"
            bad = (number, exc.msg) if line.strip() else None
            break
        if isinstance(record, dict) and import_codex.looks_like(record):
            return "codex"
        if isinstance(record, dict) and import_gemini.looks_like_line(record):
            return "gemini"
        if isinstance(record, dict) and import_claude.looks_like(record):
            return "claude-code"
    try:
        whole = json.loads(body)
    except json.JSONDecodeError as exc:
        if '"sessionId"' in body[:4000] and '"messages"' in body[:4000]:
            return "gemini"  # a Gemini file cut short: its reader names the line
        if lines[0].strip() == "{":  # one pretty-printed document
            raise TranscriptError(
                f"{source}:{skipped + exc.lineno}: not JSON ({exc.msg})"
            ) from None
        if bad is not None and (bad[0] == 1 or bad[0] < last_line(lines)):  # not a cut end
            raise TranscriptError(
                f"{source}:{skipped + bad[0]}: not a JSON line ({bad[1]})"
            ) from None
        raise TranscriptError(unknown) from None
    if isinstance(whole, dict) and import_gemini.looks_like(whole):
        return "gemini"
    raise TranscriptError(unknown)


def read_transcript(text: str, source: str, fmt: str = "auto") -> Transcript:
    """``text`` (a transcript file's content; ``source`` names it in errors) as a transcript.

    Raises:
        TranscriptError: an unknown format, a file its reader cannot read (file:line), or
            one without a message.
    """
    if fmt not in FORMATS:
        raise TranscriptError(f"{source}: --format is one of {', '.join(FORMATS)} (got {fmt!r})")
    chosen = detect(text, source) if fmt == "auto" else fmt
    transcript = _READERS[chosen](text.lstrip("\ufeff"), source)
    if not transcript.messages:
        raise TranscriptError(f"{source}: no messages to import")
    return transcript


def _line(text: str, chars: int = LINE_CHARS) -> str:
    """``text`` on one line, cut to ``chars`` characters (at a space when there is one in
    its last fifth) with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= chars:
        return flat
    cut = flat[: cut_end(flat, chars - 1)]  # never inside a [REDACTED:…] token
    space = cut.rfind(" ")
    return (cut[:space] if space > chars * 4 // 5 else cut).rstrip(" ,;:") + "…"


def topic(transcript: Transcript) -> str:
    """A few words of the first request (the title's topic), or ``session``."""
    first = next((m.text for m in transcript.messages if m.role == "user"), "")
    return _line(first.strip().split("\n", 1)[0], 60) or "session"


def _call_line(call: ToolCall) -> str:
    shown = call.commands[0] if call.commands else ", ".join(call.files)
    return f"`{call.name}`" + (f" {_code(_line(shown, 160))}" if shown else "")


def _errors(messages: tuple[Message, ...]) -> list[str]:
    """``call: first error line → what the agent said next`` for each failed tool call."""
    out: list[str] = []
    for i, message in enumerate(messages):
        call = message.tool
        if call is None:
            continue
        bad = next((ln for ln in call.output.split("\n") if _ERROR.search(ln)), None)
        if not call.error and bad is None:
            continue
        said = next((m.text for m in messages[i + 1 :] if m.role == "assistant"), "")
        fix = f" → {_line(_first_sentence(said), 160)}" if said.strip() else ""
        out.append(f"{_call_line(call)}: {_line(bad or call.output or 'failed', 120)}{fix}")
    return out


def _first_sentence(text: str) -> str:
    found = _SENTENCE.search(text.strip())
    return found.group(0).strip() if found else text


def digest(transcript: Transcript) -> str:
    """The digest section: requests, decisions, errors and fixes, the final answer."""
    said = [m for m in transcript.messages if m.role in ("user", "assistant")]
    requests = [_line(m.text) for m in said if m.role == "user"]
    decisions = [
        _line(s.group(0).strip())
        for m in said
        for s in _SENTENCE.finditer(m.text)
        if _CUE.search(s.group(0))
    ]
    final = next((m.text for m in reversed(said) if m.role == "assistant"), "")
    parts = ["## Digest", ""]
    for heading, items in (
        ("Asked", requests),
        ("Decided", list(dict.fromkeys(decisions))),
        ("Errors met", _errors(transcript.messages)),
    ):
        if items:
            shown = items[:DIGEST_ITEMS]
            more = [f"- … and {len(items) - len(shown)} more"] if len(items) > len(shown) else []
            parts += [f"**{heading}**", "", *(f"- {i}" for i in shown), *more, ""]
    if final.strip():
        parts += ["**Outcome**", "", *_quoted(_cut_lines(final, 12)), ""]
    return "\n".join(parts).rstrip("\n") + "\n"


def _cut_lines(text: str, keep: int) -> str:
    """The first ``keep`` lines of ``text``, each at most :data:`TEXT_LINE_CHARS`."""
    lines = [
        ln if len(ln) <= TEXT_LINE_CHARS else ln[: cut_end(ln, TEXT_LINE_CHARS - 1)] + "…"
        for ln in text.strip("\n").split("\n")
    ]
    if len(lines) <= keep:
        return "\n".join(lines)
    return "\n".join([*lines[:keep], f"… ({len(lines) - keep} more lines)"])


def _quoted(text: str) -> list[str]:
    return [f"> {ln}".rstrip() for ln in text.split("\n")]


def _code(text: str) -> str:
    ticks = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str) -> list[str]:
    ticks = max((len(r) for r in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (ticks + 1)
    return [fence + "text", *text.split("\n"), fence]


def _entry(message: Message) -> list[str]:
    when = f" · {message.at[11:16]}" if message.at and len(message.at) >= 16 else ""
    call = message.tool
    if call is None:
        return [f"**{message.role}**{when}", "", *_quoted(_cut_lines(message.text, 40)), ""]
    failed = " (failed)" if call.error else ""
    lines = [f"- tool {_call_line(call)}{failed}"]
    if call.output.strip():
        lines += [
            "",
            *("  " + ln if ln else "" for ln in _fenced(_cut_lines(call.output, OUTPUT_LINES))),
        ]
    return [*lines, ""]


def condensed(transcript: Transcript, max_chars: int) -> str:
    """The transcript section, at most about ``max_chars`` characters (then a line saying
    how many entries were left out)."""
    parts = ["## Transcript", ""]
    used = 0
    for i, message in enumerate(transcript.messages):
        entry = _entry(message)
        size = sum(len(ln) + 1 for ln in entry)
        if used + size > max_chars:
            parts += [f"… ({len(transcript.messages) - i} more entries left out: size limit)", ""]
            break
        parts += entry
        used += size
    if transcript.truncated:
        parts += ["(the transcript's last line was still being written: left out)", ""]
    return "\n".join(parts).rstrip("\n") + "\n"
