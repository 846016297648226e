"""Retrieval: user text -> a query plan -> ranked hits with snippets and explain.

Layer 4 (STYLE.md): above the index (:mod:`vault_sync.index`, storage and raw search), on the
fast-starting ``query`` path, so it imports nothing heavier than ``tantivy``.

A query is built apart from running it (sqlite-utils' ``search_sql`` / ``search``):
:func:`build_query` is the one place user text is interpreted (its clauses read by
:func:`vault_sync.query_text.read_clauses`) and returns a plain
:class:`QueryPlan`; :func:`run_query` runs a plan against an index; :func:`search` does both.
User text never reaches tantivy's query-string parser, so ``:``, ``(`` or ``*`` are plain
punctuation, not syntax. Ranking is BM25 with field boosts (the constants below, to be tuned
by ``eval``).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import tantivy

from vault_sync import fragments, passages
from vault_sync.errors import QuerySyntaxError
from vault_sync.index import (
    CJK_CHARS,
    MAX_TOKEN_BYTES,
    PageIndex,
    has_cjk,
    schema,
    stored_text,
)
from vault_sync.index.page_index import Row
from vault_sync.plaintext import REDACTED_PATTERN
from vault_sync.query_fields import (
    BM25_B,
    BM25_K1,
    BOOSTS_BEFORE,
    FIELD_BOOSTS,
    PHRASE_BOOST,
    TIE_BREAKER,
    QueryPlan,
)
from vault_sync.query_text import DEFAULT_RULES, ClauseRules, Clauses, read_clauses, reading
from vault_sync.snippets import SNIPPET_MAX_CHARS, Snippet, make_snippet

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
#: Our redaction token: the scrubbed form of a secret typed into a query.
_REDACTED = re.compile(REDACTED_PATTERN)
#: The field boosts before ``eval`` measured them (switch ``title-boost-3``).
_BOOSTS_BEFORE_EVAL = {"title": 3.0, "names_cjk": 3.0, "name": 2.0, "name_cjk": 2.0}


def _nothing_to_search(text: str, clauses: Clauses) -> QuerySyntaxError:
    """The error for text with no positive word or phrase to look for."""
    if clauses.must_not:
        return QuerySyntaxError("a query needs at least one word to look for; -word only excludes")
    if clauses.too_long:
        word = clauses.too_long[0]
        return QuerySyntaxError(
            f"words of {MAX_TOKEN_BYTES} bytes or more are not indexed:"
            f" {word[:40]!r}... ({len(word.encode())} bytes)"
        )
    return QuerySyntaxError(f"no searchable words in query: {_quoted(text.strip())}")


#: How much of a query an error message quotes, in characters: a query of 20,000 ``<!--``
#: was echoed whole (80 KB on one line of stderr).
QUOTED_MAX_CHARS = 60
#: The most words and characters a query is read with; a longer one is refused
#: (QuerySyntaxError, exit 2), in the CLI and over MCP alike. Words: blank-separated, plus one
#: per CJK character (a CJK run is searched as one bigram per character). Each word costs work
#: in every stage: 5,000 words took 4-10 s (fresh-user report 4); 256 take ~0.3 s on
#: obsidian-tasks-docs (256 CJK characters ~1.2 s on dnd-srd-zh), and the longest eval
#: question (LongMemEval) has 57 words.
QUERY_MAX_WORDS = 256
QUERY_MAX_CHARS = 4000


def check_query_size(text: str) -> None:
    """Refuse a query longer than :data:`QUERY_MAX_WORDS` words or :data:`QUERY_MAX_CHARS`
    characters, as typed: the front ends call it before the text is scrubbed too (a long
    query of list-numbered common words read as a seed phrase was scrubbed to one token and
    so passed the cap), and the lexical plan again.

    Raises:
        QuerySyntaxError: the query is too long (one line, with its counts).
    """
    words = len(text.split()) + (len(_cjk_char().findall(text)) if has_cjk(text) else 0)
    if words > QUERY_MAX_WORDS or len(text) > QUERY_MAX_CHARS:
        raise QuerySyntaxError(
            f"a query is read with at most {QUERY_MAX_WORDS} words and {QUERY_MAX_CHARS}"
            f" characters (this one has {words} word{'s' * (words != 1)} and {len(text)}"
            " characters): shorten it"
        )


@functools.cache
def _cjk_char() -> re.Pattern[str]:
    """:data:`CJK_CHARS` compiled, once and only for a query holding such a character (~3 ms:
    kept off the query path of other text)."""
    return re.compile(CJK_CHARS)


def _quoted(text: str) -> str:
    """``text`` quoted for a message, cut to :data:`QUOTED_MAX_CHARS` characters (then
    followed by ``…`` and its length)."""
    if len(text) <= QUOTED_MAX_CHARS:
        return repr(text)
    return f"{text[:QUOTED_MAX_CHARS]!r}… ({len(text)} characters)"


def filter_terms(kind: str | None, project: str | None, tag: str | None) -> dict[str, str]:
    """``{index field: exact term}`` of the filters given: a tag as written in a page
    (``#incident``) is the tag ``incident`` (lower-cased, as ``tag_filter`` holds it), and a
    kind is one of the lower-case kind names (``Bug`` is ``bug``)."""
    given = {"kind": kind, "project": project, "tag_filter": tag}
    out = {name: value for name, value in given.items() if value is not None}
    if "kind" in out:
        out["kind"] = out["kind"].lower()
    if "tag_filter" in out:
        out["tag_filter"] = out["tag_filter"].lower().lstrip("#")
    return out


def _filters(
    kind: str | None, project: str | None, tag: str | None
) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """The exact filters (:func:`filter_terms`) as required clauses that add nothing to the
    score."""
    fields = schema()
    out = []
    for name, term in filter_terms(kind, project, tag).items():
        exact = tantivy.Query.term_query(fields, name, term)
        out.append((tantivy.Occur.Must, tantivy.Query.const_score_query(exact, 0.0)))
    return out


def _combined(
    clauses: Clauses, filters: list[tuple[tantivy.Occur, tantivy.Query]]
) -> tantivy.Query:
    """The whole query: the phrases must match, and of the words at least one when there is
    no phrase; no excluded clause may match; the filters must."""
    occur = tantivy.Occur
    positive = [(occur.Must, q) for q in clauses.must] + [(occur.Should, q) for q in clauses.should]
    top = [(occur.Must, tantivy.Query.boolean_query(positive))]
    top += [(occur.MustNot, q) for q in clauses.must_not]
    fields = schema()
    top += [
        (occur.MustNot, tantivy.Query.term_query(fields, "tag_filter", t))
        for t in clauses.excluded_tags
    ]
    return tantivy.Query.boolean_query(top + filters)


def build_query(
    text: str,
    *,
    kind: str | None = None,
    project: str | None = None,
    tag: str | None = None,
    rules: ClauseRules = DEFAULT_RULES,
    boosts: Mapping[str, float] | None = None,
    passage_weight: float | None = None,
) -> QueryPlan:
    """Build the query for user text: the one place user input is interpreted.

    Grammar: blank-separated words are OR-ed and ranked by BM25; ``"a quoted phrase"`` must
    match as a phrase; ``-word`` or ``-"a phrase"`` excludes pages; ``#tag`` keeps only pages
    so tagged (or tagged under it, ``#ops`` finds ``ops/deploy``; any case) as ``tag`` does,
    and ``-#tag`` leaves them out (``"#tag"``, quoted, searches the word). Anything else (``:``,
    ``(``, ``*``, ``+``, and a ``"`` left unclosed, as in a question quoting a title) is plain
    text, split away by the analyzers. Each word or phrase is searched as
    :func:`vault_sync.query_fields.clause_parts` says. Filters are exact terms that must match
    and add nothing to the score.

    Args:
        text: the query as the user typed it.
        kind, project, tag: exact filters (``kind`` and ``tag`` compared lowercased, a
            leading ``#`` dropped; a tag also matches its nested tags, ``inline`` finds
            ``inline/nested`` as Obsidian's tag search does), or ``None``.
        rules: how the text becomes clauses (stop words, repeats, phrases, word pairs, CJK
            bigrams: :class:`~vault_sync.query_text.ClauseRules`, measured by ``eval``);
            :func:`search` asks again with ``phrases_required=False`` when required phrases
            found nothing.
        boosts: field boosts to use instead of :data:`FIELD_BOOSTS`' (by field name; the
            rest keep their default), e.g. for tuning with ``eval``.
        passage_weight: weight of the best passage (:mod:`vault_sync.passages`), default
            :data:`vault_sync.passages.PASSAGE_WEIGHT`; 0 turns the stage off.

    Raises:
        QuerySyntaxError: an empty query, one with no searchable word
            (only punctuation, or only words too long to be indexed), one that only
            excludes, or one longer than :data:`QUERY_MAX_WORDS` words or
            :data:`QUERY_MAX_CHARS` characters.
    """
    text = unicodedata.normalize("NFC", text).translate(_FULL_WIDTH)
    check_query_size(text)
    used = {**FIELD_BOOSTS, **(boosts or {})}
    if unknown := used.keys() - FIELD_BOOSTS.keys():
        raise ValueError(f"unknown fields in boosts: {sorted(unknown)}")
    if not text.strip():
        raise QuerySyntaxError("empty query: give at least one word to search for")
    if "[REDACTED:" in text:
        # a secret typed into the query was scrubbed (typed_text): its token's words
        # ("redacted", "aws", "key") are no words of the user's, so they find nothing
        text, secrets = _REDACTED.subn(" ", text)
        if secrets and not text.strip():
            raise QuerySyntaxError("the query held only a secret, and a secret is never searched")
    clauses = read_clauses(
        text,
        rules=rules,
        boosts=used,
    )
    if not (clauses.should or clauses.must):
        raise _nothing_to_search(text, clauses)
    query = _combined(clauses, _filters(kind, project, tag) + _tag_filters(clauses.tags))
    weight = passages.PASSAGE_WEIGHT if passage_weight is None else passage_weight
    body = frozenset(t for part in clauses.parts if part.field == "body" for t in part.tokens)
    return QueryPlan(
        query,
        tuple(clauses.parts),
        tuple(clauses.literals),
        MappingProxyType(used),
        weight,
        None if clauses.must_not else body,  # the generator also highlights excluded words
        _excluded(clauses),
    )


def _tag_filters(tags: list[str]) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """The ``#tags`` of the text (:func:`vault_sync.query_text.tag_of`) as required
    clauses adding nothing to the score, each as ``--tag`` filters (nested tags too)."""
    return [f for t in dict.fromkeys(tags) for f in _filters(None, None, t)]


def _excluded(clauses: Clauses) -> tantivy.Query | None:
    """What a page brought in by other streams (the graph's) must not match, as one query
    (any of its parts matches), or ``None``: an excluded clause, a ``-#tag``, or the lack of
    a ``#tag`` of the text."""
    fields, should = schema(), tantivy.Occur.Should
    parts = [(should, q) for q in clauses.must_not]
    parts += [
        (should, tantivy.Query.term_query(fields, "tag_filter", t)) for t in clauses.excluded_tags
    ]
    for tag in dict.fromkeys(clauses.tags):
        lacks = [
            (tantivy.Occur.Must, tantivy.Query.all_query()),
            (tantivy.Occur.MustNot, tantivy.Query.term_query(fields, "tag_filter", tag)),
        ]
        parts.append((should, tantivy.Query.boolean_query(lacks)))
    return tantivy.Query.boolean_query(parts) if parts else None


# --------------------------------------------------------------------------- hits


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        path, id, title, kind, project, status, tags: the page's stored fields.
        score: BM25 with field boosts, rounded to 6 decimals.
        snippet: an extract of the body as plain text (:mod:`vault_sync.snippets`); ``…``
            marks a cut end.
        highlights: ``(start, end)`` character offsets of the matched words in ``snippet``.
        explain: per matched field, its terms and score, with the boosts used (and, from
            :mod:`vault_sync.ranking`, every stage's part); ``None`` unless asked for.
        confidence: the page's confidence from its evidence (:mod:`vault_sync.page_facts`),
            in ``[0, 0.99]``; ``None`` from the lexical stream alone.
    """

    path: str
    id: str
    title: str
    kind: str
    project: str | None
    status: str
    tags: tuple[str, ...]
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...] = ()
    explain: dict[str, Any] | None = None
    confidence: float | None = None

    def marked_snippet(self, before: str = "**", after: str = "**") -> str:
        """The snippet with ``before`` / ``after`` around each highlight."""
        return Snippet(self.snippet, self.highlights).marked(before, after)


def hit_of(
    doc: tantivy.Document,
    score: float,
    snippet: Snippet,
    explain: dict[str, Any] | None,
    confidence: float | None = None,
) -> Hit:
    """The :class:`Hit` of a stored document, with its score, snippet and explain."""
    return Hit(
        path=stored_text(doc, "path"),
        id=stored_text(doc, "id"),
        title=stored_text(doc, "title"),
        kind=stored_text(doc, "kind"),
        project=doc.get_first("project"),
        status=stored_text(doc, "status"),
        tags=tuple(doc.get_all("tags")),
        score=score,
        snippet=snippet.text,
        highlights=snippet.highlights,
        explain=explain,
        confidence=confidence,
    )


@dataclass(frozen=True)
class Snippets:
    """What cutting a query's snippets needs: tantivy's generator for the plan's query over
    ``body``, the query's body words with their idf (:func:`vault_sync.passages.query_terms`,
    empty when the plan has no passage weight) to find a long page's answering section, and
    the generator's term scores to choose its passage without it
    (:func:`vault_sync.fragments.term_scores`; ``None`` with an excluded word)."""

    generator: tantivy.SnippetGenerator
    terms: tuple[Any, ...]
    scores: dict[bytes, float] | None = None


def snippet_generator(searcher: tantivy.Searcher, plan: QueryPlan) -> Snippets:
    """The :class:`Snippets` of a plan."""
    generator = tantivy.SnippetGenerator.create(searcher, plan.query, schema(), "body")
    generator.set_max_num_chars(SNIPPET_MAX_CHARS)
    terms = passages.query_terms(plan.parts, searcher) if plan.passage_weight else []
    scores = None
    if plan.body_terms is not None:
        scores = fragments.term_scores({t: searcher.doc_freq("body", t) for t in plan.body_terms})
    return Snippets(generator, tuple(terms), scores)


def snippet_of(snippets: Snippets, doc: tantivy.Document, plan: QueryPlan) -> Snippet:
    """The hit's snippet: tantivy's passage (:func:`vault_sync.fragments.passage`), inside
    the section of a long page that scores best for the query
    (:func:`vault_sync.passages.best_section`) when it has one; :mod:`vault_sync.snippets`
    shows it."""
    body = stored_text(doc, "body")
    section = passages.best_section(snippets.terms, doc)
    if plan.body_terms is not None and not passages.holds_any(doc, plan.body_terms):
        wheres: list[tuple[int, tuple[int, int]] | None] = []  # tantivy would highlight none
    else:
        wheres = [section, None] if section else [None]
    for where in wheres:
        start = 0 if where is None else len(body[: where[1][0]].encode())
        (first, last), marks = fragments.passage(
            snippets.generator, snippets.scores, doc, body, where
        )
        if marks:
            spans = [(start + a, start + b) for a, b in marks]
            return make_snippet(body, (start + first, start + last), spans, plan.literals)
    # tantivy highlights no CJK word of the section (its body copy is English-analyzed)
    return make_snippet(body, None, [], plan.literals, near=section[1][0] if section else 0)


_TERM_CONTEXT = re.compile(r'^Term=Term\(field=\d+, type=Str, "(.*)"\)$')


def _matched_terms(node: dict[str, Any], found: list[str]) -> None:
    for ctx in node.get("context", []):
        m = _TERM_CONTEXT.match(ctx)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    for child in node.get("details", []):
        _matched_terms(child, found)


def lexical_explain(
    plan: QueryPlan, searcher: tantivy.Searcher, addr: tantivy.DocAddress, score: float
) -> dict[str, Any]:
    """Per matched field: its clause, matched terms, boost and boosted BM25 score.

    A clause's score is ``max(fields) + TIE_BREAKER * sum(other fields)`` over its ranked
    fields, plus its :data:`BONUS_FIELDS` scores; the hit's score is the sum over clauses.
    """
    matches: list[dict[str, Any]] = []
    for part in plan.parts:
        try:
            tree = json.loads(part.query.explain(searcher, addr).to_json())
        except ValueError:  # "Document #(n) does not match"
            continue
        terms: list[str] = []
        _matched_terms(tree, terms)
        matches.append(
            {
                "clause": part.clause,
                "field": part.field,
                "terms": terms or list(part.tokens),
                "boost": part.boost,
                "score": round(float(tree["value"]), 6),
            }
        )
    return {
        "score": score,
        "bm25": {"k1": BM25_K1, "b": BM25_B},
        "field_boosts": dict(plan.boosts),
        "phrase_boost": PHRASE_BOOST,
        "tie_breaker": TIE_BREAKER,
        "matches": matches,
    }


# --------------------------------------------------------------------------- running


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


#: Full-width ASCII forms (U+FF01-FF5E, as CJK input methods type Latin letters, digits and
#: punctuation) and the ideographic space, mapped to ASCII: the compatibility mappings of
#: Unicode's NFKC for that block (UAX #15), so ``ｒｅｔｒｙ ＰＡＹ－２３１`` finds what
#: ``retry PAY-231`` finds. Query side only: page text is indexed as written.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


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
    return reading(unicodedata.normalize("NFC", text).translate(_FULL_WIDTH))


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
    text = unicodedata.normalize("NFC", text).translate(_FULL_WIDTH)  # so ＂ is a quote
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
