"""What agents pass to the write commands, in every shape a model produces, made canonical.

Issue 11, Build 3: tags and aliases come as repeated options, a comma list or a JSON list in
one string; relation targets with or without ``[[ ]]``; evidence as ``kind:source`` (with an
optional `` @date``) or a JSON object; dates in ISO forms. Each is normalised here to the form
the page format uses (DESIGN §2), or refused with one line saying what was expected
(:class:`~vault_sync.errors.AgentInputError`, exit 2), as is a title that is empty once on
one line, or a name written as a key or link target that holds a secret. No file is read or
written here.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vault_sync.config import Config
from vault_sync.errors import AgentInputError
from vault_sync.page import EVIDENCE_KINDS, Kind
from vault_sync.page_dates import ISO_DATE_SAID, iso_day
from vault_sync.parser.keys import NON_RELATION_KEYS
from vault_sync.sanitize import Scrubber

_EVIDENCE_TEXT = re.compile(r"\s*([A-Za-z][\w-]*)\s*:\s*(\S.*?)(?:\s+@(\S+))?\s*\Z", re.DOTALL)
_WIKILINK = re.compile(r"\s*!?\[\[(.*)\]\]\s*\Z", re.DOTALL)
#: A relation type as a frontmatter key: snake_case (DESIGN §2 custom types).
_RELATION_KEY = re.compile(r"[a-z][a-z0-9_]*")
#: ASCII punctuation that ends a tag in Obsidian (all but ``_``, ``-`` and ``/``).
_TAG_BREAKING = re.compile(r"[!-,.:-@\[-^`{-~]")
#: Most characters of one tag, alias or relation target an agent may give.
NAME_MAX_CHARS = 200


@dataclass(frozen=True)
class EvidenceInput:
    """One evidence entry to write: ``kind``, ``source``, and optional ``at`` (ISO date or
    datetime text) and ``note``. ``key``: ``(kind, source)``, what identifies it (DESIGN §2)."""

    kind: str
    source: str
    at: str | None = None
    note: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """``(kind, source)``: evidence is identified by these (the same source counts once)."""
        return self.kind, self.source

    def frontmatter_value(self) -> str | dict[str, str]:
        """The list item written: ``kind:source`` (`` @at``) text, or a mapping with a note."""
        if self.note is None:
            return f"{self.kind}:{self.source}" + (f" @{self.at}" if self.at else "")
        out = {"kind": self.kind, "source": self.source}
        if self.at:
            out["at"] = self.at
        out["note"] = self.note
        return out


def names(values: Iterable[str], what: str) -> list[str]:
    """Tags, aliases or targets from repeated options, comma lists or JSON lists, in order,
    without empty or repeated ones (``what`` names them in errors: ``"tag"``).

    Tags are made canonical by :func:`tag`.

    Raises:
        AgentInputError: a value starting with ``[`` that is not a JSON list of strings, a
            tag :func:`tag` refuses, or a name longer than :data:`NAME_MAX_CHARS` or holding a
            line break.
    """
    out: list[str] = []
    for value in values:
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except ValueError:
                loaded = None
            if not isinstance(loaded, list) or not all(isinstance(i, str) for i in loaded):
                raise AgentInputError(
                    f"{what}s starting with [ must be a JSON list of strings,"
                    f' e.g. ["a", "b"] (got {text!r})'
                )
            pieces = loaded
        else:
            pieces = text.split(",")
        for piece in pieces:
            name = unicodedata.normalize("NFC", piece.strip())
            if what == "tag":
                name = tag(name)
            if not name or name in out:
                continue
            if len(name) > NAME_MAX_CHARS or "\n" in name or "\r" in name:
                raise AgentInputError(
                    f"a {what} must be one line of at most {NAME_MAX_CHARS} characters"
                )
            out.append(name)
    return out


def tag(text: str) -> str:
    """One tag as Obsidian reads it: the leading ``#`` dropped, each run of spaces made one
    ``-`` (``machine learning`` -> ``machine-learning``: a tag cannot hold a space). Letters,
    digits, ``_``, ``-``, ``/`` and other non-ASCII characters are kept.

    Raises:
        AgentInputError: ASCII punctuation other than ``_ - /`` (it would end the tag in
            Obsidian), or only digits (Obsidian reads that as no tag); the message names the
            character, never the whole text (it may hold a secret).
    """
    name = re.sub(r"\s+", "-", text.strip().lstrip("#").strip())
    bad = _TAG_BREAKING.search(name)
    if bad:
        raise AgentInputError(
            f"a tag holds letters, digits, _, - and / only (Obsidian ends a tag at {bad[0]!r})"
        )
    if name.isdigit():
        raise AgentInputError("a tag needs a character that is not a digit (Obsidian)")
    return name


def target(text: str) -> str:
    """A page reference with or without ``[[ ]]`` (``[[Page|shown]]`` and ``#heading`` are cut
    to the page part), stripped and NFC-normalised.

    Raises:
        AgentInputError: nothing is left.
    """
    m = _WIKILINK.match(text)
    inner = m[1] if m else text
    inner = inner.split("|", 1)[0].split("#", 1)[0].strip()
    if not inner:
        raise AgentInputError(f"no page named in {text!r}")
    return unicodedata.normalize("NFC", inner)


def relation_type(text: str) -> str:
    """A relation type as its frontmatter key: lower snake_case (``Superseded-By`` ->
    ``superseded_by``).

    Raises:
        AgentInputError: not a name (letters, digits, ``_`` / ``-`` / spaces between), or a
            known key that holds no relation (``kind``, ``status``, ``title``...:
            :data:`vault_sync.parser.keys.NON_RELATION_KEYS`; linking through it would
            overwrite the page's own value).
    """
    key = re.sub(r"[\s-]+", "_", text.strip()).lower()
    if not _RELATION_KEY.fullmatch(key):
        raise AgentInputError(
            f"a relation type is a name such as fixes, causes, related (got {text!r})"
        )
    if key in NON_RELATION_KEYS:
        raise AgentInputError(
            f"{key!r} is a page key, not a relation type (give fixes, causes, related or"
            " a name of your own)"
        )
    return key


def page_kind(text: str) -> str:
    """A page kind, one of :class:`vault_sync.page.Kind` (``Decision`` -> ``decision``).

    Raises:
        AgentInputError: not a known kind (the message lists them).
    """
    kind = text.strip().lower()
    known = [k.value for k in Kind]
    if kind not in known:
        raise AgentInputError(f"unknown kind {text!r} (known: {', '.join(known)})")
    return kind


def date_text(text: str) -> str:
    """An ISO 8601 date or datetime (``2026-03-04``, ``2026-03-04T09:10:00Z``, offsets),
    returned as given once it parses.

    Raises:
        AgentInputError: not an ISO date or datetime.
    """
    value = text.strip()
    if iso_day(value) is None:
        raise AgentInputError(f"{ISO_DATE_SAID} (got {text!r})")
    return value


def evidence(text: str, *, at: str | None = None, note: str | None = None) -> EvidenceInput:
    """One evidence entry from ``kind:source``, ``kind:source @date`` or a JSON object
    ``{"kind": ..., "source": ..., "at": ..., "note": ...}``; ``at`` / ``note`` options win.

    Raises:
        AgentInputError: no kind and source, an unknown kind (one of
            :data:`vault_sync.page.EVIDENCE_KINDS`), or a date that is not ISO 8601.
    """
    fields: dict[str, Any] | None = None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            loaded = json.loads(stripped)
        except ValueError:
            loaded = None
        if isinstance(loaded, dict):
            fields = {k: loaded.get(k) for k in ("kind", "source", "at", "note")}
    else:
        m = _EVIDENCE_TEXT.match(stripped)
        if m:
            fields = {"kind": m[1], "source": m[2], "at": m[3], "note": None}
    if not fields or not isinstance(fields["kind"], str) or not isinstance(fields["source"], str):
        raise AgentInputError(
            f"evidence must be KIND:SOURCE (e.g. session:2026-03-01-a1b2) or JSON (got {text!r})"
        )
    kind, source = fields["kind"].strip().lower(), fields["source"].strip()
    if kind not in EVIDENCE_KINDS:
        raise AgentInputError(
            f"unknown evidence kind {kind!r} (known: {', '.join(EVIDENCE_KINDS)})"
        )
    if not source or "\n" in source or len(source) > NAME_MAX_CHARS:
        raise AgentInputError(f"an evidence source must be one line of at most {NAME_MAX_CHARS}")
    when = at if at is not None else fields.get("at")
    said = note if note is not None else fields.get("note")
    return EvidenceInput(
        kind,
        source,
        date_text(str(when)) if when else None,
        " ".join(str(said).split()) if said else None,
    )


def no_secret(config: Config, text: str, what: str) -> str:
    """``text``, refused when it holds a secret: names written as keys or link targets (a
    relation type, a forward reference) cannot carry a ``[REDACTED:…]`` label.

    Raises:
        AgentInputError: the scrubber (with ``config``'s rules) finds a secret in ``text``.
    """
    clean = Scrubber.from_config(config).scrub(text)[0]
    if clean != text:
        raise AgentInputError(f"{what} cannot hold a secret: {clean!r}")
    return text


#: Bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9): invisible, they make a
#: title read differently from what it holds ("Trojan Source"), so titles drop them.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


#: Control characters agent input may not hold: C0 but tab and newline (a carriage return
#: only before a newline), DEL, and C1 (U+0080-U+009F; U+009B is CSI). ESC, BEL and NUL in a
#: page run as terminal sequences when it is `cat`, `less -R` or `git diff`-ed (an OSC 52
#: sets the clipboard): fresh-user report 4, F9.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def no_controls(arguments: dict[str, Any]) -> None:
    """Refuse a write whose arguments hold control characters (:data:`_CONTROL`); the same
    check for the CLI and the MCP tools (:meth:`vault_sync.app.Engine.write` runs it).

    ``arguments``: a write command's keyword arguments; strings, and lists of strings, are
    looked at (other values are not text).

    Raises:
        AgentInputError: names the argument, the character (``U+001B``) and its line.
    """
    for name, value in arguments.items():
        texts = (
            [value] if isinstance(value, str) else value if isinstance(value, list | tuple) else []
        )
        for text in texts:
            bad = _CONTROL.search(text) if isinstance(text, str) else None
            if bad:
                line = text.count("\n", 0, bad.start()) + 1
                raise AgentInputError(
                    f"{name} holds the control character U+{ord(bad[0][0]):04X} (line {line});"
                    " agent input may hold tab and newline only"
                )


def one_line(text: str, what: str) -> str:
    """``text`` on one line (runs of white space made one space), bidi controls dropped.

    Raises:
        AgentInputError: nothing is left.
    """
    value = " ".join(_BIDI.sub("", text).split())
    if not value:
        raise AgentInputError(f"a {what} must not be empty")
    return value
