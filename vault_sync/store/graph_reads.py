"""Rows out of the sidecar for the ranking and the briefing: page facts, rank rows, links.

Part of :mod:`vault_sync.store`. :class:`GraphReads` is a base of
:class:`~vault_sync.store.reads.SidecarReads`: the reads a query's ranking makes for its
~80 candidate pages (:meth:`~GraphReads.rank_rows`, the links touching them) and those of
``brief`` and the watcher's briefing cache (page facts, typed links, what a generation
wrote), each one statement whose plan the connection prepares once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from vault_sync.store.columns import (
    FACT_COLUMNS,
    PAGE_FACTS_INDEX,
    RANK_COLUMNS,
    RULE_LINKS_FROM,
    RULE_LINKS_INTO,
    RULE_LINKS_WHERE,
)

#: The columns of :meth:`GraphReads.fact_rows`, in order, and where they are read from.
_FACT_COLUMNS = ", ".join(FACT_COLUMNS)
_FACT_SQL = f"SELECT {_FACT_COLUMNS} FROM pages INDEXED BY {PAGE_FACTS_INDEX}"


class GraphReads:
    """The ranking's and the briefing's reads of one sidecar connection (``db``, set by
    :class:`~vault_sync.store.reads.SidecarReads`), and :meth:`query`, every read's rows by
    column name."""

    db: sqlite3.Connection

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read-only SQL statement and return rows addressable by column name."""
        cursor = self.db.execute(sql, params)
        cursor.row_factory = sqlite3.Row
        return list(cursor.fetchall())

    def fact_rows(
        self, project: str | None = None, paths: Sequence[str] | None = None
    ) -> list[tuple[Any, ...]]:
        """Tuples (path, title, kind, status, project, valid_from, valid_to; the string
        values of the frontmatter keys ``date``, ``agent`` and ``summary``, else NULL; then
        the page's :data:`~vault_sync.store.columns.EVIDENCE_SUMS`: evidence entries,
        sessions, other entries, newest evidence day or ``""``) by path: of every page, of one
        project's, or of those at ``paths`` (what ``brief`` and the ranking read,
        :mod:`vault_sync.page_facts`), the keys' and sums' columns filled at write time
        (:func:`~vault_sync.store.columns.fact_key_sql`,
        :func:`~vault_sync.store.columns.evidence_sums`)."""
        params: tuple[str, ...] = ()
        if paths is not None:
            # one statement whatever the number of paths (its plan cached by the connection)
            where, params = "path IN (SELECT value FROM json_each(?))", (json.dumps(paths),)
        elif project is not None:
            where, params = "project = ?", (project,)
        else:
            where = "1"
        return self.db.execute(f"{_FACT_SQL} WHERE {where} ORDER BY path", params).fetchall()

    def rank_rows(
        self, paths: Sequence[str]
    ) -> list[tuple[tuple[Any, ...], tuple[tuple[str, str, str], ...], list[str]]]:
        """``(fact row, rule links, tags)`` of each page at ``paths`` that is stored, by
        path, in one statement: its :meth:`fact_rows` row, what :meth:`rule_links_touching`
        gives for it (sorted) and its tags (as :meth:`tags_of`), the last two kept in its row
        (:data:`~vault_sync.store.columns.RANK_COLUMNS`) and read from the covering index of
        its facts: one seek a page (the ranking reads these for ~80 candidate pages a query).
        """
        sql = (
            f"SELECT {_FACT_COLUMNS}, {', '.join(RANK_COLUMNS)} FROM pages INDEXED BY"
            f" {PAGE_FACTS_INDEX} WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path"
        )
        rows = self.db.execute(sql, (json.dumps(list(paths)),)).fetchall()
        width = len(FACT_COLUMNS)
        # every page's JSON arrays decoded in one call (most pages have none)
        texts = [text for row in rows for text in row[width:] if text is not None]
        decoded = iter(json.loads(f"[{','.join(texts)}]") if texts else ())
        out = []
        for row in rows:
            tags = next(decoded) if row[width] is not None else []
            links = next(decoded) if row[width + 1] is not None else ()
            out.append((row[:width], tuple(tuple(link) for link in links), tags))
        return out

    def resolved_links_touching(self, paths: Sequence[str]) -> list[tuple[str, str, str]]:
        """Resolved links ``(source, type, target_path)`` from or into the pages at ``paths``,
        each once, sorted: the ranking's graph stream and its supersession and contradiction
        rules. Unresolved links (no page) never appear; a link to itself neither."""
        return self._links_touching("target_path IS NOT NULL", paths)

    def _links_touching(
        self, where: str, paths: Sequence[str], indexes: tuple[str, str] = ("", "")
    ) -> list[tuple[str, str, str]]:
        """``(source, type, target_path)`` of the links matching ``where`` from or into the
        pages at ``paths``, each once, sorted; no link to itself (``indexes``: the index to
        read from each end, else the planner's choice). One statement of the same text
        whatever the number of paths (a JSON array, not one ``?`` a path): its plan is
        prepared once per connection, where a list of marks was prepared again for each
        new length (~0.2 -> 0.14 ms for ~80 pages at 10k)."""
        parts = []
        for end, index in zip(("source", "target_path"), indexes, strict=True):
            table = f"links INDEXED BY {index}" if index else "links"
            parts.append(
                f"SELECT source, type, target_path FROM {table} WHERE {where}"
                f" AND source != target_path AND {end} IN (SELECT value FROM json_each(?1))"
            )
        rows = self.db.execute(" UNION ALL ".join(parts), (json.dumps(list(paths)),))
        return sorted(set(rows))

    def rule_links_touching(self, paths: Sequence[str]) -> list[tuple[str, str, str]]:
        """What :meth:`resolved_links_touching` gives of the ``supersedes``,
        ``superseded_by`` and ``contradicts`` links, read from the covering partial indexes
        of :data:`~vault_sync.store.columns.RULE_LINKS_WHERE` alone: the ranking's rules read
        them for every candidate page."""
        return self._links_touching(RULE_LINKS_WHERE, paths, (RULE_LINKS_FROM, RULE_LINKS_INTO))

    def typed_edges(self, types: Sequence[str]) -> list[tuple[str, str, str, str | None]]:
        """:meth:`typed_links` as plain ``(source, type, target_text, target_path)`` tuples,
        in the same order (what ``brief`` reads: tuples, not :class:`sqlite3.Row`)."""
        marks = ", ".join("?" for _ in types)
        return self.db.execute(
            "SELECT source, type, target_text, target_path FROM links"
            f" WHERE type IN ({marks}) ORDER BY source, line, rowid",
            tuple(types),
        ).fetchall()

    def typed_links_since(
        self, generation: int, types: Sequence[str]
    ) -> list[tuple[str, int, int, str, str, str | None]]:
        """``(source, line, rowid, type, target_text, target_path)`` of the links of the given
        types that a batch of a later generation than ``generation`` inserted or resolved
        again (all of them for ``-1``), by source, line and rowid."""
        marks = ", ".join("?" for _ in types)
        if generation < 0:
            return self.db.execute(
                "SELECT source, line, rowid, type, target_text, target_path FROM links"
                f" WHERE type IN ({marks}) ORDER BY source, line, rowid",
                tuple(types),
            ).fetchall()
        # by the generation index: ``+type`` keeps SQLite's planner off the type index, and
        # the few rows are sorted here (an ORDER BY makes it scan every link in order)
        return sorted(
            self.db.execute(
                "SELECT source, line, rowid, type, target_text, target_path FROM links"
                f" WHERE generation > ? AND +type IN ({marks})",
                (generation, *types),
            )
        )

    def typed_links(self, types: Sequence[str]) -> list[sqlite3.Row]:
        """Links of the given types (source, type, target_text, target_path, status), by
        source and line; ``target_path`` is NULL for an unresolved target."""
        marks = ", ".join("?" for _ in types)
        return self.query(
            "SELECT source, type, target_text, target_path, status FROM links"
            f" WHERE type IN ({marks}) ORDER BY source, line, rowid",
            tuple(types),
        )
