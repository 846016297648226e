"""Parse one Markdown page into a :class:`~vault_sync.page.Page` (DESIGN §2).

Both halves are total (no ``str`` input makes them raise; a hypothesis property pins it):

* :mod:`~vault_sync.parser.frontmatter`: split off the frontmatter block and load its YAML
  with every scalar kept as written;
* :mod:`~vault_sync.parser.keys`: the one table of known keys, and the checks of their values
  derived from it (plain-Python fast checks; pydantic, the reference, only when needed);
* :mod:`~vault_sync.parser.body`: the line scanner for headings, links and ``#tags``.

This module puts them together: :func:`parse_page`. A package, not two modules beside the
others: the three parts are one parser's (its private helpers cross between them, and nothing
outside the parser uses them), and together they are three times STYLE.md's module size.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from vault_sync.page import (
    REFERENCES,
    TITLE_MAX_CHARS,
    Heading,
    Issue,
    Kind,
    Link,
    LinkOrigin,
    Page,
    Status,
    path_id,
    path_stem,
)
from vault_sync.parser.body import _WIKI_WHOLE, _edge_type, _scan_body, _wikilink, field_keys
from vault_sync.parser.frontmatter import _Front, _read_front, _warning, parse_frontmatter
from vault_sync.parser.keys import _KNOWN, _RELATION_KEYS, _evidence, _Known, _validate_known

__all__ = ["parse_frontmatter", "parse_page", "written_keys"]


def _frontmatter_links(front: _Front, known: _Known, path: str, issues: list[Issue]) -> list[Link]:
    """Typed links of relation keys, then of other keys whose values are all wikilinks."""
    links: list[Link] = []

    def add(key: str, values: Iterable[Any], edge: str, report: bool) -> None:
        lines = front.value_lines.get(key, [])
        key_line = front.key_lines.get(key, front.first_line)
        for i, value in enumerate(values):
            line = lines[i] if i < len(lines) else key_line
            m = _WIKI_WHOLE.match(value) if isinstance(value, str) else None
            link = _wikilink(m[2], m[3], path) if m else None
            if link is not None:
                target, anchor, display = link
                links.append(Link(target, edge, line, anchor, display, LinkOrigin.FRONTMATTER))
            elif report:
                issues.append(
                    _warning("invalid_relation", f"{key}: expected a wikilink such as "
                             '"[[Page]]"; the value is ignored', line, key)
                )  # fmt: skip

    for key in _RELATION_KEYS:
        # DESIGN §2: `references:` is an edge only where its values are wikilinks; other values
        # (file paths, URLs, as in silverbullet-docs) are plain metadata, not a mistake.
        values = getattr(known, key)
        if values:  # most pages have none of the 7 keys: skip the call (50 ms per 10k pages)
            add(key, values, key, report=key != REFERENCES)
    for key, value in front.mapping.items():
        if key in _KNOWN:
            continue
        values = value if isinstance(value, list) else [value]
        if values and all(isinstance(v, str) and _WIKI_WHOLE.match(v) for v in values):
            add(key, values, _edge_type(key), report=False)
    return links


def written_keys(frontmatter: Any, body: str) -> dict[str, list[str]]:
    """The keys a page's typed links may take their type from, by edge type: each top-level
    frontmatter key and each Dataview inline-field key of ``body``, as written. The
    sanitizer (:func:`vault_sync.clean.clean_page`) looks for secrets in them: an edge type
    is a key snake-cased (:func:`~vault_sync.parser.body._edge_type`), so the type alone may
    no longer show the secret its key holds (``ghp_J9U5…`` -> ``ghp_j9_u5…``)."""
    keys = [str(k) for k in frontmatter] if isinstance(frontmatter, dict) else []
    by_type: dict[str, list[str]] = {}
    for key in [*keys, *(field_keys(body) if "::" in body else ())]:
        by_type.setdefault(_edge_type(key), []).append(key)
    return by_type


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    """First-seen order, duplicates removed case-insensitively."""
    seen: dict[str, str] = {}
    for value in values:
        seen.setdefault(value.casefold(), value)
    return tuple(seen.values())


#: Where a page without a ``title`` key takes its title from (config ``title_from``): its
#: file stem (Obsidian, SilverBullet, Logseq name a page by its file; DESIGN §2), or its
#: first H1 (Foam, MkDocs-style vaults), falling back to the stem.
TITLE_SOURCES = ("stem", "h1")


def _title(
    front: _Front,
    known: _Known,
    headings: list[Heading],
    path: str,
    issues: list[Issue],
    title_from: str,
) -> str:
    """Frontmatter ``title``, else the file stem (or the first H1 under ``title_from="h1"``);
    clamped (with a warning)."""
    title_line = front.key_lines.get("title")
    title = known.title
    if not title:
        h1 = next((h for h in headings if h.level == 1), None) if title_from == "h1" else None
        title, title_line = (h1.text, h1.line) if h1 else (path_stem(path) or path, None)
    if len(title) > TITLE_MAX_CHARS:
        issues.append(
            _warning("title_clamped", f"title longer than {TITLE_MAX_CHARS} characters "
                     f"({len(title)}): clamped", title_line, "title")
        )  # fmt: skip
        title = title[:TITLE_MAX_CHARS]
    return title


#: Most characters of metadata text kept per page: a frontmatter block is a page's header,
#: and a key holding a whole document (a pasted log) must not outweigh the body.
METADATA_MAX_CHARS = 8192


def _metadata(mapping: Any) -> tuple[str, ...]:
    """The string values of the frontmatter keys the page model does not interpret
    (``description``, ``summary``, custom keys), depth first, in key order, for the index's
    ``metadata`` field (DESIGN §2); at most :data:`METADATA_MAX_CHARS` in all."""
    out: list[str] = []
    budget = METADATA_MAX_CHARS

    def walk(value: Any) -> None:
        nonlocal budget
        if budget <= 0:
            return
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, str) and value.strip():
            out.append(value[:budget])
            budget -= len(out[-1])

    if isinstance(mapping, dict):
        for key, value in mapping.items():
            if str(key) not in _KNOWN:
                walk(value)
    return tuple(out)


def parse_page(text: str, path: str, *, title_from: str = "stem") -> Page:
    """Parse one Markdown page. Total: any ``str`` gives a :class:`Page`, problems as issues.

    Args:
        text: the decoded file text (read with ``utf-8-sig``; a leading U+FEFF is ignored
            anyway). CRLF and CR line ends are accepted.
        path: the vault-relative POSIX path with ``.md``; NFC-normalised here if it is not.
        title_from: one of :data:`TITLE_SOURCES`: the title of a page without a ``title``
            key (a first H1 is searched with the other headings either way).

    Returns:
        The page (DESIGN §2): title from frontmatter ``title`` (stringified, lists joined by
        ``", "``), else the file stem (or the first H1, see ``title_from``), clamped to
        :data:`~vault_sync.page.TITLE_MAX_CHARS`; links with 1-based file lines, frontmatter
        relations first; ``issues`` holds YAML errors (the page is still built from its body
        and file name) and warnings for duplicate keys, invalid known keys, clamped titles and
        bad evidence entries.
    """
    if not unicodedata.is_normalized("NFC", path):
        path = unicodedata.normalize("NFC", path)
    front = _read_front(text.lstrip("\ufeff"))
    issues = front.issues
    known = _validate_known(front, issues)
    links = _frontmatter_links(front, known, path, issues)
    evidence = _evidence(front, known.evidence, issues)
    body = _scan_body(front.body, front.body_line, path)
    links.extend(body.links)

    title = _title(front, known, body.headings, path, issues, title_from)
    if known.valid_from and known.valid_to and known.valid_from[:10] > known.valid_to[:10]:
        issues.append(
            _warning("invalid_value", f"valid_from {known.valid_from} is after valid_to "
                     f"{known.valid_to}", front.key_lines.get("valid_from"), "valid_from")
        )  # fmt: skip

    return Page(
        path=path,
        id=known.id or path_id(path) or path,
        title=title,
        kind=(known.kind or Kind.NOTE).value,
        status=(known.status or Status.ACTIVE).value,
        project=known.project,
        tags=_unique([*known.tags, *body.tags]),
        aliases=_unique(known.aliases),
        valid_from=known.valid_from,
        valid_to=known.valid_to,
        headings=tuple(body.headings),
        links=tuple(links),
        evidence=tuple(evidence),
        frontmatter=front.mapping,
        metadata=_metadata(front.mapping),
        body=front.body,
        body_line=front.body_line,
        issues=tuple(issues),
    )
