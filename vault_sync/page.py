"""The page model: plain, immutable values with no I/O (DESIGN §2).

A :class:`Page` is what the parser makes of one Markdown file; links, evidence, headings and
parse issues hang off it as tuples of small frozen dataclasses. Paths are vault-relative POSIX
strings, NFC-normalised, ending in ``.md``; lines are 1-based file lines.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Kind(enum.StrEnum):
    """Page kinds of DESIGN §2; ``note`` is the default."""

    NOTE = "note"
    SESSION = "session"
    OBSERVATION = "observation"
    ENTITY = "entity"
    CONCEPT = "concept"
    PROCEDURE = "procedure"
    GOTCHA = "gotcha"
    RULE = "rule"
    DECISION = "decision"
    PREFERENCE = "preference"
    BUG = "bug"


class Status(enum.StrEnum):
    """Page statuses of DESIGN §2; ``active`` is the default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    HISTORICAL = "historical"


#: Typed relation keys (frontmatter keys or Dataview inline fields), DESIGN §2.
RELATION_TYPES: tuple[str, ...] = (
    "causes",
    "fixes",
    "contradicts",
    "supersedes",
    "superseded_by",
    "related",
)
#: Every untyped body link, and a ``references:`` key of wikilinks.
REFERENCES = "references"
#: ``![[...]]`` embeds.
EMBEDS = "embeds"

#: Evidence kinds of DESIGN §2.
EVIDENCE_KINDS: tuple[str, ...] = (
    "session",
    "observation",
    "feedback",
    "reconsolidation",
    "commit",
    "document",
)

#: Longest title kept, in characters (DESIGN §2: clamped with a warning).
TITLE_MAX_CHARS = 512


class LinkOrigin(enum.StrEnum):
    """Where a link was written."""

    FRONTMATTER = "frontmatter"  # a relation key's value
    WIKILINK = "wikilink"  # [[...]] or ![[...]] in the body
    MARKDOWN = "markdown"  # [text](path.md) in the body, target made vault-relative
    INLINE_FIELD = "inline_field"  # a Dataview-style `key:: [[X]]` line in the body


@dataclass(frozen=True)
class Link:
    """One outgoing link of a page.

    Attributes:
        target: the target as written, without its anchor (``"Alpha Page"``,
            ``"dir/C"``); for Markdown links, the vault-relative path the href points to
            (``"sub/beta.md"``), percent-decoded; for a same-page link ``[[#H]]``, the
            linking page's own path without ``.md``.
        type: edge type: a relation key, ``references``, ``embeds`` or a custom key.
        line: 1-based file line of the link.
        anchor: ``"#Heading"`` or ``"#^block"`` with its prefix, or ``""``.
        display: the text after ``|`` (or a Markdown link's text), or ``None``.
        origin: where the link was written.
    """

    target: str
    type: str
    line: int
    anchor: str = ""
    display: str | None = None
    origin: LinkOrigin = LinkOrigin.WIKILINK


@dataclass(frozen=True)
class Evidence:
    """One evidence entry: identified by ``(kind, source)`` (DESIGN §2).

    Attributes:
        kind: ``session``, ``observation``, ... (unknown kinds are kept with a warning).
        source: the source id, e.g. ``"2026-03-01-claude-a1b2"``.
        at: ISO date or datetime text as written, or ``None``.
        note: free text, or ``None``.
        line: 1-based file line of the entry.
    """

    kind: str
    source: str
    line: int
    at: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Heading:
    """A Markdown heading: ``level`` 1-6, ``text`` as written, 1-based ``line``."""

    level: int
    text: str
    line: int


class Severity(enum.StrEnum):
    """Lint severity (DESIGN §3)."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    """A problem found in a page, reported by ``lint`` as ``path:line: severity code: message``.

    Attributes:
        severity: error or warning.
        code: a stable short name, e.g. ``yaml_error``, ``duplicate_key``, ``title_clamped``.
        message: one line for a person; never contains a secret.
        line: 1-based file line, or ``None`` when the issue is about the whole file.
        key: the frontmatter key concerned, or ``None``.
    """

    severity: Severity
    code: str
    message: str
    line: int | None = None
    key: str | None = None


@dataclass(frozen=True)
class Page:
    """One parsed Markdown page.

    Attributes:
        path: vault-relative POSIX path, NFC, with ``.md``.
        id: frontmatter ``id`` if set, else ``path`` without ``.md``.
        title: frontmatter title, else the file stem (or the first H1 under config
            ``title_from = "h1"``); at most 512 characters.
        kind: a :class:`Kind` value (unknown values fall back to ``note`` with a warning).
        status: a :class:`Status` value (unknown values fall back to ``active``).
        project: frontmatter ``project`` or ``None`` (config globs are applied by sync).
        tags: frontmatter and inline ``#tags``, ``#`` stripped, first-seen order, no duplicates.
        aliases: Obsidian aliases.
        valid_from, valid_to: ISO date text as written, or ``None``.
        headings: every heading outside code.
        links: every link outside code and HTML comments, frontmatter relations first.
        evidence: evidence entries, duplicates of ``(kind, source)`` removed.
        frontmatter: the parsed mapping with scalars as the text the person wrote
            (``{}`` when there is none or it failed to parse).
        metadata: the string values of the keys the model does not interpret
            (``description``, ``summary``, custom keys): searchable, never shown.
        body: the text after the frontmatter block — also when the block failed to parse, as
            long as its ``---`` delimiters were found; else the whole text.
        body_line: 1-based file line where ``body`` starts.
        issues: parse errors and warnings.
    """

    path: str
    id: str
    title: str
    kind: str = Kind.NOTE.value
    status: str = Status.ACTIVE.value
    project: str | None = None
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    valid_from: str | None = None
    valid_to: str | None = None
    headings: tuple[Heading, ...] = ()
    links: tuple[Link, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    frontmatter: Mapping[str, Any] = field(default_factory=dict)
    metadata: tuple[str, ...] = ()
    body: str = ""
    body_line: int = 1
    issues: tuple[Issue, ...] = ()

    @property
    def errors(self) -> tuple[Issue, ...]:
        """The issues of severity error."""
        return tuple(i for i in self.issues if i.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Issue, ...]:
        """The issues of severity warning."""
        return tuple(i for i in self.issues if i.severity is Severity.WARNING)


def name_key(text: str) -> str:
    """Return the lookup key of a name or path: NFC-normalised, then casefolded (DESIGN §2)."""
    return unicodedata.normalize("NFC", text).casefold()


def path_stem(path: str) -> str:
    """Return the file stem of a vault-relative path: ``"a/b/C.md"`` -> ``"C"``."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.lower().endswith(".md") else name


def path_id(path: str) -> str:
    """Return the default page id of a path: the path without ``.md``."""
    return path[:-3] if path.lower().endswith(".md") else path
