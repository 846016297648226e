"""The sidecar's derived columns and the indexes its reads name: what each holds, computed.

Part of :mod:`vault_sync.store`. Besides a page's own values, its ``pages`` row keeps what the
ranking and ``brief`` read of every page they look at: the string values of some frontmatter
keys (:data:`FACT_KEYS`, by :func:`fact_key_sql`), its evidence sums (:func:`evidence_sums`),
its tags and the resolved rule links touching it (:data:`RANK_COLUMNS`). Here are those
values, the SQL that fills them, and the names of the covering indexes the reads name
(``INDEXED BY``); the migrations that make them are in :mod:`vault_sync.store.schema`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from vault_sync.page_dates import day_of

#: The link types the ranking's rules read for every candidate page (supersession and
#: contradiction, :mod:`vault_sync.ranking`), as SQL: the partial indexes of
#: migration ``004_rule_links`` hold only these resolved links, and a query uses them only when
#: its ``WHERE`` repeats this term (:meth:`~vault_sync.store.Sidecar.rule_links_touching`).
RULE_LINK_TYPES = ("contradicts", "superseded_by", "supersedes")
RULE_LINKS_WHERE = (
    f"type IN ({', '.join(repr(t) for t in RULE_LINK_TYPES)}) AND target_path IS NOT NULL"
)


#: The frontmatter keys whose string values the ranking and ``brief`` read for every page
#: they look at (``fact_rows``), kept in a column each, ``<key>_key``.
FACT_KEYS = ("date", "agent", "summary")


def fact_key_sql(key: str, frontmatter: str) -> str:
    """SQL of the value of frontmatter key ``key`` when it is a string (else NULL), from the
    JSON text ``frontmatter`` (a column or a parameter such as ``?18``): SQLite's JSON1, and
    ``instr`` first, as most pages lack the key and parsing the JSON is the cost."""
    at = f"'$.\"{key}\"'"
    return (
        f"CASE WHEN instr({frontmatter}, '\"{key}\"') AND json_type({frontmatter}, {at})"
        f" = 'text' THEN json_extract({frontmatter}, {at}) END"
    )


#: The ``pages`` columns of migration ``008_evidence_sums``, in order: the values of
#: :func:`evidence_sums`.
EVIDENCE_SUMS = ("evidence_count", "sessions", "other_evidence", "newest_evidence")


def evidence_sums(rows: Iterable[tuple[Any, ...]]) -> tuple[int, int, int, str]:
    """``(entries, sessions, other, newest)`` of one page's evidence rows ``(path, kind,
    source, at, ...)``, as the ``evidence`` table keeps them (its ``UNIQUE (path, kind,
    source)`` and ``INSERT OR IGNORE``: the first of a repeated ``kind:source`` counts):
    entries kept, distinct ``session`` sources, other distinct entries, and the newest ISO
    day their ``at`` starts with (:func:`vault_sync.page_dates.day_of`), else ``""``. The
    ``pages`` columns of migration ``008_evidence_sums``: what ranking and ``brief`` read of
    a page's evidence (:class:`vault_sync.page_facts.PageFacts`)."""
    seen: set[tuple[Any, Any]] = set()
    sessions = other = 0
    newest = ""
    for row in rows:
        key = (row[1], row[2])
        if key in seen:
            continue
        seen.add(key)
        if row[1] == "session":
            sessions += 1
        else:
            other += 1
        day = day_of(row[3])
        if day is not None and day > newest:
            newest = day
    return len(seen), sessions, other, newest


#: The partial indexes of the resolved rule links (:data:`RULE_LINKS_WHERE`) from each end
#: (migration ``009_rule_links_by_page``): a query names them (``INDEXED BY``), since SQLite's
#: planner prefers ``links_typed`` for ``type IN (...)``.
RULE_LINKS_FROM, RULE_LINKS_INTO = "links_rule_from", "links_rule_into"


#: The columns of a page's facts (:meth:`~vault_sync.store.Sidecar.fact_rows`), in order:
#: the key of the index migration ``010_page_facts`` makes of them (a migration that changes
#: them makes that index again).
FACT_COLUMNS = (
    "path", "title", "kind", "status", "project", "valid_from", "valid_to",
    *(f"{key}_key" for key in FACT_KEYS), *EVIDENCE_SUMS,
)  # fmt: skip
#: That index, named by the queries that read it (``INDEXED BY``: for a list of paths the
#: planner picks the primary key's index and reads each row from the table).
PAGE_FACTS_INDEX = "pages_facts"


#: The ``pages`` columns of migration ``011_rank_reads``: what the ranking reads of each
#: candidate page beside its facts, kept in its row: its tags (a JSON array, in the order
#: of the ``tags`` rows; NULL when it has none) and the resolved rule links touching it
#: (:func:`rule_links_json`; NULL when none).
RANK_COLUMNS = ("tags_json", "rule_links_json")


def tags_json(tags: Iterable[str]) -> str | None:
    """The :data:`RANK_COLUMNS` ``tags_json`` value of a page's tags: a JSON array, or
    ``None`` for none."""
    found = list(tags)
    return json.dumps(found, ensure_ascii=False) if found else None


def rule_links_json(
    links: Iterable[tuple[str, str, str]], paths: Iterable[str]
) -> dict[str, str | None]:
    """``{path: rule_links_json}`` of each page at ``paths``: the ``(source, type,
    target_path)`` links of ``links`` (resolved rule links, sorted, each once, none to
    itself: what :meth:`~vault_sync.store.Sidecar.rule_links_touching` gives) that touch
    it, as a JSON array of triples in that order, or ``None`` for none."""
    out: dict[str, list[tuple[str, str, str]]] = {path: [] for path in paths}
    for link in links:
        for end in {link[0], link[2]}:
            if end in out:
                out[end].append(link)
    return {p: json.dumps(v, ensure_ascii=False) if v else None for p, v in out.items()}


def fill_rule_links(db: sqlite3.Connection) -> None:
    """Write every page's ``rule_links_json`` (:data:`RANK_COLUMNS`) from one read of the
    resolved rule links (the migration, and the end of a bulk load, whose indexes are not
    there yet); pages touching none keep NULL."""
    links = sorted(
        set(
            db.execute(
                f"SELECT source, type, target_path FROM links WHERE {RULE_LINKS_WHERE}"
                " AND source != target_path"
            )
        )
    )
    ends = {end for link in links for end in (link[0], link[2])}
    db.executemany(
        "UPDATE pages SET rule_links_json = ? WHERE path = ?",
        ((value, path) for path, value in rule_links_json(links, ends).items()),
    )
