"""Running a lexical plan: :func:`run_query` and :func:`lexical_rows` (BM25F, then each page's
best passage), :func:`search` (build, then run), the plans of a query's text with the one to
ask when its phrases find nothing (:func:`lexical_plans`), and the ranking switches of the
lexical stream ``eval --ablate`` flips (:data:`SWITCHES`).

Part of :mod:`vault_sync.retrieve` (layer 4, STYLE.md): builds with
:mod:`vault_sync.retrieve.query`, makes hits with :mod:`vault_sync.retrieve.hits`.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import tantivy

from vault_sync import passages
from vault_sync.index import (
    PageIndex,
)
from vault_sync.index.page_index import Row
from vault_sync.query_fields import (
    BOOSTS_BEFORE,
    QueryPlan,
)
from vault_sync.query_text import ClauseRules, reading
from vault_sync.retrieve.hits import Hit, hit_of, lexical_explain, snippet_generator, snippet_of
from vault_sync.retrieve.query import FULL_WIDTH, build_query
from vault_sync.snippets import Snippet

#: Ranking switches ``eval --ablate`` can flip, by name: each is a stage or option of this
#: module that ``search(switches={name})`` turns off (or on). Add a name here with its stage.
SWITCHES: dict[str, str] = {
    "keep-stop-words": "search question words (the, did, what, ...: stopwords.py) too",
    "keep-repeats": "score a word typed twice twice",
    "phrases-required": "a quoted phrase no page holds finds nothing (no fallback to its words)",
    "title-boost-3": "title and aliases boost 3, file name 2 (the boosts before eval)",
    "no-word-pairs": "no phrase bonus for two adjacent content words",
    "cjk-one-clause": "a CJK run is one clause, its bigrams OR-ed in each field",
    "boosts-before": "headings 2, no CJK headings, CJK names 1.1, code parts 0.8 (the old boosts)",
    "no-passages": "no best-passage score: a page is scored as one whole body (passages.py)",
    "tags-as-words": "a #tag in the query is searched as a word, not kept as a tag filter",
}


#: The field boosts before ``eval`` measured them (switch ``title-boost-3``).
_BOOSTS_BEFORE_EVAL = {"title": 3.0, "names_cjk": 3.0, "name": 2.0, "name_cjk": 2.0}


def run_query(
    index: PageIndex,
    plan: QueryPlan,
    *,
    limit: int = 10,
    explain: bool = False,
    snippets: bool = True,
) -> list[Hit]:
    """Run a built query: best first, ties by path, so the order never depends on segments.

    Args:
        index: the opened index.
        plan: from :func:`build_query`.
        limit: most hits to return (>= 1).
        explain: attach :attr:`Hit.explain`.
        snippets: cut :attr:`Hit.snippet` (else ``""``: ``eval`` reads only the ranking,
            and snippets are most of a search's time at 50 hits).

    Returns:
        Up to ``limit`` hits sorted by ``(-score, path)``.

    Raises:
        IndexCorruptError: the index could not be read.
        ValueError: ``limit`` < 1.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    with index.searching() as searcher:
        rows = lexical_rows(index, searcher, plan, limit)
        if not rows:
            return []
        generator = snippet_generator(searcher, plan) if snippets else None
        hits = []
        for score, addr, doc in rows:
            snippet = snippet_of(generator, doc, plan) if generator else Snippet("", ())
            details = lexical_explain(plan, searcher, addr, score) if explain else None
            hits.append(hit_of(doc, score, snippet, details))
        return hits


def lexical_rows(
    index: PageIndex, searcher: tantivy.Searcher, plan: QueryPlan, limit: int
) -> list[Row]:
    """The best ``limit`` pages of a plan, ``(score, address, document)`` sorted by
    ``(-score, path)``: tantivy's BM25F, then the best passage of each
    (:func:`vault_sync.passages.rerank`, weighted ``plan.passage_weight``).

    Raises:
        IndexCorruptError: the index could not be read.
    """
    rows = index.top_documents(searcher, plan.query, limit)
    return passages.rerank(searcher, plan.parts, rows, plan.passage_weight)


def _switched(switches: frozenset[str], boosts: Mapping[str, float] | None) -> dict[str, Any]:
    """The :func:`build_query` options that ``switches`` (:data:`SWITCHES`) set.

    Raises:
        ValueError: an unknown switch.
    """
    if unknown := switches - SWITCHES.keys():
        raise ValueError(f"unknown ranking switches: {sorted(unknown)}")
    if "title-boost-3" in switches:
        boosts = {**_BOOSTS_BEFORE_EVAL, **(boosts or {})}
    if "boosts-before" in switches:
        boosts = {**BOOSTS_BEFORE, **(boosts or {})}
    rules = ClauseRules(
        drop_stop_words="keep-stop-words" not in switches,
        keep_repeats="keep-repeats" in switches,
        word_pairs="no-word-pairs" not in switches,
        cjk_bigrams="cjk-one-clause" not in switches,
        tags_filter="tags-as-words" not in switches,
    )
    options: dict[str, Any] = {"rules": rules, "boosts": boosts}
    if "no-passages" in switches:
        options["passage_weight"] = 0.0
    return options


def search(
    index: PageIndex,
    text: str,
    *,
    limit: int = 10,
    kind: str | None = None,
    project: str | None = None,
    tag: str | None = None,
    explain: bool = False,
    now: str | None = None,
    switches: frozenset[str] = frozenset(),
    boosts: Mapping[str, float] | None = None,
    snippets: bool = True,
) -> list[Hit]:
    """Search the pages: :func:`build_query` then :func:`run_query`.

    Args:
        index: the opened index.
        text: the query as typed (see :func:`build_query` for its grammar).
        limit: most hits to return (>= 1).
        kind, project, tag: exact filters, or ``None``.
        explain: attach :attr:`Hit.explain`.
        now: the reference date (ISO 8601) for relative time phrases (DESIGN §5.6), default
            today; accepted for the ranking's date stage, which no stage reads yet.
        switches: names of :data:`SWITCHES` to flip (``eval --ablate``).
            When the quoted phrases of ``text`` leave no hit, the query is asked again with
            them as words (``phrases_required`` of
            :class:`~vault_sync.query_text.ClauseRules`).
        boosts: field boosts overriding :data:`FIELD_BOOSTS` (see :func:`build_query`).
        snippets: cut snippets (see :func:`run_query`).

    Returns:
        Up to ``limit`` hits sorted by ``(-score, path)``.

    Raises:
        QuerySyntaxError: the text cannot be read as a query.
        IndexCorruptError: the index could not be read.
        ValueError: ``limit`` < 1, an unknown switch or an unknown field in ``boosts``.
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, not {limit}")
    del now  # the date stage lives in vault_sync.ranking, above this lexical stream
    plan, fallback = lexical_plans(
        text, kind=kind, project=project, tag=tag, switches=switches, boosts=boosts
    )
    hits = run_query(index, plan, limit=limit, explain=explain, snippets=snippets)
    if hits or fallback is None:
        return hits
    return run_query(index, fallback(), limit=limit, explain=explain, snippets=snippets)


def query_reading(text: str) -> dict[str, list[str]]:
    """How the default ranking reads ``text`` (:func:`vault_sync.query_text.reading`), after
    the same normalisation as :func:`lexical_plans` (NFC, full-width forms as ASCII)."""
    return reading(unicodedata.normalize("NFC", text).translate(FULL_WIDTH))


def lexical_plans(
    text: str,
    *,
    kind: str | None = None,
    project: str | None = None,
    tag: str | None = None,
    switches: frozenset[str] = frozenset(),
    boosts: Mapping[str, float] | None = None,
) -> tuple[QueryPlan, Callable[[], QueryPlan] | None]:
    """The lexical plan of ``text``, and how to build the plan to ask instead when its
    required phrases or ``#tag`` filters leave no hit (``None`` when it has neither, or with
    ``phrases-required`` and ``tags-as-words``): built only then (most phrases are found;
    building it was ~0.07 ms of a phrase query).

    No page holds a quoted phrase as written (a question quoting a title from memory): its
    words are searched, pages holding the phrase first, rather than answering nothing. No
    page tagged as a ``#tag`` asks holds the words (a question naming a marker, ``a marker
    like #task``, where no page has that tag): it is searched as a word, as before tags
    filtered.

    Raises:
        QuerySyntaxError: the text cannot be read as a query.
        ValueError: an unknown switch (of :data:`SWITCHES`) or field in ``boosts``.
    """
    options = {"kind": kind, "project": project, "tag": tag, **_switched(switches, boosts)}
    text = unicodedata.normalize("NFC", text).translate(FULL_WIDTH)  # so ＂ is a quote
    plan = build_query(text, **options)
    rules = options["rules"]
    relaxed = {
        "phrases_required": '"' in text and "phrases-required" not in switches,
        "tags_filter": "#" in text and rules.tags_filter,
    }
    if not any(relaxed.values()):
        return plan, None
    options["rules"] = replace(rules, **{k: False for k, on in relaxed.items() if on})
    return plan, functools.partial(build_query, text, **options)
