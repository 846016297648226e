"""Values the sidecar stores: a page's file state and its rows, ready to insert.

Part of :mod:`vault_sync.store`; no SQL here, so worker processes build records cheaply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from vault_sync.store.columns import evidence_sums

if TYPE_CHECKING:  # the page model: with the parser, off the query path
    from vault_sync.page import Page


class FileState(NamedTuple):
    """What the sidecar knows of a page's file: content hash, mtime (ns), size (bytes), and
    its name on disk (vault-relative; None when not read): the page's key is the NFC path, so
    a rename between spellings equal after NFC (``Café.md`` NFC -> NFD) changes only this.
    A named tuple: every sync reads one per stored page (:meth:`Sidecar.file_states`)."""

    hash: str
    mtime_ns: int
    size: int
    disk_path: str | None = None


Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class PageRecord:
    """A page as the sidecar stores it: its file state and its rows, ready to insert.

    Plain tuples of str / int / None, so a record built in a worker process crosses to the
    writer cheaply (pickling ~10k pages of rows: 0.5 s; of :class:`Page` objects: 1.6 s).
    Build with :meth:`of`.

    Attributes:
        path: the page's vault-relative NFC path.
        title: its title; with ``aliases``, the names other pages link it by.
        aliases: its aliases.
        state: its file state.
        page_row: the ``pages`` row up to its frontmatter: without ``generation`` and the
            ``*_key`` columns of ``store.columns.FACT_KEYS`` (the insert fills them).
        alias_rows, tag_rows, evidence_rows, issue_rows: rows of those tables.
        evidence_sums: :func:`~vault_sync.store.columns.evidence_sums` of ``evidence_rows``
            (``pages`` columns).
        link_rows: ``links`` rows for (source, target_text, target_key, target_last_key,
            type, anchor, display, line, origin).
    """

    path: str
    title: str
    aliases: tuple[str, ...]
    state: FileState
    page_row: Row
    alias_rows: tuple[Row, ...]
    tag_rows: tuple[Row, ...]
    evidence_rows: tuple[Row, ...]
    issue_rows: tuple[Row, ...]
    link_rows: tuple[Row, ...]
    evidence_sums: tuple[int, int, int, str] = (0, 0, 0, "")

    @classmethod
    def of(cls, page: Page, disk_path: str, state: FileState) -> PageRecord:
        """The record of a parsed (and sanitized) page whose file is ``disk_path``."""
        from vault_sync.links import link_keys  # here: a query never builds a record
        from vault_sync.page import name_key, path_id, path_stem

        path = page.path
        evidence = tuple((path, e.kind, e.source, e.at, e.note, e.line) for e in page.evidence)
        return cls(
            path=path,
            title=page.title,
            aliases=page.aliases,
            state=state,
            page_row=(
                path,
                disk_path,
                page.id,
                name_key(page.id),
                name_key(path),
                name_key(path_id(path)),
                name_key(path_stem(path)),
                page.title,
                name_key(page.title),
                page.kind,
                page.status,
                page.project,
                page.valid_from,
                page.valid_to,
                state.hash,
                state.mtime_ns,
                state.size,
                json.dumps(page.frontmatter, ensure_ascii=False, sort_keys=True, default=str),
            ),
            alias_rows=tuple((path, a, name_key(a)) for a in page.aliases),
            tag_rows=tuple((path, t) for t in page.tags),
            evidence_rows=evidence,
            issue_rows=tuple(
                (path, i.severity.value, i.code, i.message, i.line, i.key) for i in page.issues
            ),
            link_rows=tuple(
                (
                    path,
                    link.target,
                    *link_keys(link.target),
                    link.type,
                    link.anchor,
                    link.display,
                    link.line,
                    link.origin.value,
                )
                for link in page.links
            ),
            evidence_sums=evidence_sums(evidence),
        )
