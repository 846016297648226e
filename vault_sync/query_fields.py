"""How one word or phrase of a query becomes tantivy queries over the index's fields.

Part of the retrieval layer (4), beside :mod:`vault_sync.query_text` (the clauses of user
text) and :mod:`vault_sync.retrieve` (the plan built from them, run against the index): here
are the fields a clause searches and when, their boosts (every ranking constant, with its
source or its ``eval`` measurement), the disjunction-max over a clause's fields, the
phrase-and-parts query of a word that splits into several tokens, and the bigrams of a CJK
run.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import tantivy

from vault_sync.index import (
    CJK_ANALYZER,
    CODE_ANALYZER,
    EN_ANALYZER,
    IDENT_ANALYZER,
    analyzer,
    has_cjk,
    is_identifier,
    schema,
)
from vault_sync.stopwords import CJK_STOP_WORDS

#: BM25 parameters. tantivy fixes them (TECH-NOTES §1.5, read from ``explain``); stated here
#: so ``--explain`` can show them.
BM25_K1 = 1.2
BM25_B = 0.75

#: Field boosts. ``title`` and ``name`` (the file stem, so a page is found even when its title
#: says something else: case R1) weigh a little above the body, keeping DESIGN §5.1's order
#: (title > name > body): measured with ``eval`` (docs/eval.md), the boosts 3 and 2 let
#: numbers in a title (``session 12``) outscore the body that answers and lost to plain BM25
#: (LoCoMo dev MRR 0.795 -> 0.805; 1.0 to 1.2 tie on dev; test decided within that range, where
#: the plain-BM25 floor holds). Aliases stay at 3 (a name the user gave the page).
#: ``headings`` 1.0 (was 2): a page of one heading (an SRD spell, a short doc page) holds its
#: name there, so the heading acted as a second, stronger title and outscored the long page
#: whose section answers (dev MRR, obsidian-tasks 0.813 -> 0.858, silverbullet 0.797 -> 0.849).
#: The CJK copies weigh less than the body's: a CJK run is searched by its bigrams, each its
#: own clause, and a two-character name (``法师``, ``秘法``) matched by one bigram outscored the
#: page that holds the question's other bigrams (dnd-srd-zh dev MRR 0.807 -> 0.854 with the
#: headings above). ``headings_cjk`` 0.3: an SRD spell's one heading is its name (0.5 scored
#: 0.04 lower on dev). ``body_ident`` is the exact-identifier boost; ``body_code`` (CamelCase
#: parts) is weaker evidence than a whole word and a short field, where ``query`` (from
#: ``queryCollection``) outscored the body's word: 0.5 (was 0.8; obsidian dev hit@5 +3 points).
FIELD_BOOSTS: dict[str, float] = {
    "title": 1.1,
    "aliases": 3.0,
    "names_cjk": 0.8,
    "name": 1.05,
    "name_cjk": 0.75,
    "headings": 1.0,
    "headings_cjk": 0.3,
    "tags_text": 2.0,
    "metadata": 1.0,
    "metadata_cjk": 1.0,
    "body": 1.0,
    "body_cjk": 1.0,
    "body_code": 0.5,
    "body_ident": 2.0,
}
#: The field boosts before the tuning of issue 16 (switch ``boosts-before``); ``headings_cjk``
#: 0 is the field not searched, as before it existed.
BOOSTS_BEFORE = {
    "names_cjk": 1.1,
    "name_cjk": 1.05,
    "headings": 2.0,
    "headings_cjk": 0.0,
    "body_code": 0.8,
}
#: Fields added to a clause's score in full rather than through its disjunction-max: a page
#: holding the typed identifier literally gains its whole boosted score (case S3).
BONUS_FIELDS = frozenset({"body_ident"})
#: Boost of the exact phrase when a typed word splits into several tokens
#: (``atomic_write_json`` -> atomic, write, json), over the parts OR-ed in ``body``. Initial
#: value, to be tuned by ``eval``.
PHRASE_BOOST = 1.5
#: Weight of the phrase bonus of two adjacent content words (``Arcane Recovery``, ``support
#: group``, ``Lay On Hands``: at most :data:`PAIR_GAP` stop words between), over the words'
#: own clauses: a page holding the words together ranks above pages holding one of them in a
#: short field. Dev MRR: LoCoMo 0.809 -> 0.821, LongMemEval 0.711 -> 0.722, silverbullet
#: 0.830 -> 0.849, obsidian-tasks 0.867 -> 0.858 at 0.3; 0.5 scored higher on LoCoMo dev but
#: put its test R@5 0.1 under plain BM25 (docs/eval.md).
PAIR_BOOST = 0.3
#: Most stop words between the two words of a pair (``Lay On Hands``); 0 and 2 scored lower.
PAIR_GAP = 1
#: Weight of a whole CJK run as a phrase, beside its bigrams' clauses: a page holding the
#: words as typed (``死亡豁免``) ranks above pages holding its bigrams apart (dev, 1 to 3:
#: dnd-srd-zh MRR 0.804 -> 0.854).
RUN_PHRASE_BOOST = 3.0
#: Each clause scores ``max(field scores) + TIE_BREAKER * (sum of the other field scores)``
#: (a disjunction-max, as Lucene's ``dis_max``), so one word indexed in five analysis copies of
#: the body is not counted five times. Initial value, to be tuned by ``eval``.
TIE_BREAKER = 0.2


# --------------------------------------------------------------------------- queries


class FieldQuery(NamedTuple):
    """One field's part of one clause, kept for ``explain`` (a named tuple: a query builds
    ~10-40, ~4 times faster than a frozen dataclass).

    Attributes:
        clause: the user's word or phrase, as typed (NFC).
        field: the schema field searched.
        tokens: the clause analyzed by the field's analyzer.
        boost: the field boost applied.
        query: the boosted tantivy query.
    """

    clause: str
    field: str
    tokens: tuple[str, ...]
    boost: float
    query: tantivy.Query


@dataclass(frozen=True)
class QueryPlan:
    """A built query: the tantivy query plus what ``explain`` and snippets need.

    Attributes:
        query: the query to run.
        parts: the positive clauses' field queries, for ``explain``.
        literals: the positive words and phrases as typed, for snippet fallback.
        boosts: the field boosts used (:data:`FIELD_BOOSTS` with any overrides).
        passage_weight: weight of the best passage's score added to a page's
            (:mod:`vault_sync.passages`; 0 leaves the ranking to tantivy).
        body_terms: every term the query looks for in ``body`` (what tantivy's snippet
            generator highlights), or ``None`` when not known (a query that excludes words).
        exclude: the excluded clauses (``-word``, ``-"a phrase"``) as one query a page
            matches when it holds any of them, or ``None``: pages that other streams bring
            in (the graph's) are held to them too.
    """

    query: tantivy.Query
    parts: tuple[FieldQuery, ...]
    literals: tuple[str, ...]
    boosts: Mapping[str, float]
    passage_weight: float = 0.0
    body_terms: frozenset[str] | None = None
    exclude: tantivy.Query | None = None


@dataclass(frozen=True)
class _SearchField:
    name: str
    analyzer: str
    applies: Callable[[str], bool]


def _always(_text: str) -> bool:
    return True


#: Fields a clause searches, and when: CJK copies only for text with CJK characters, the
#: whole-identifier copy only for snake_case or CamelCase text.
_SEARCH_FIELDS: tuple[_SearchField, ...] = (
    _SearchField("title", EN_ANALYZER, _always),
    _SearchField("aliases", EN_ANALYZER, _always),
    _SearchField("headings", EN_ANALYZER, _always),
    _SearchField("tags_text", EN_ANALYZER, _always),
    _SearchField("name", EN_ANALYZER, _always),
    _SearchField("metadata", EN_ANALYZER, _always),
    _SearchField("body", EN_ANALYZER, _always),
    _SearchField("names_cjk", CJK_ANALYZER, has_cjk),
    _SearchField("headings_cjk", CJK_ANALYZER, has_cjk),
    _SearchField("name_cjk", CJK_ANALYZER, has_cjk),
    _SearchField("metadata_cjk", CJK_ANALYZER, has_cjk),
    _SearchField("body_cjk", CJK_ANALYZER, has_cjk),
    _SearchField("body_code", CODE_ANALYZER, _always),
    _SearchField("body_ident", IDENT_ANALYZER, is_identifier),
)


#: The fields analyzed into CJK unigrams.
_CJK_FIELDS = frozenset(f.name for f in _SEARCH_FIELDS if f.analyzer == CJK_ANALYZER)


def _is_separator(token: str) -> bool:
    """A separator token of the CJK analyzer: a run without a letter or digit."""
    return not any(ch.isalnum() for ch in token)


def _positioned(analyzer_name: str, text: str) -> list[tuple[int, str]]:
    """The searchable tokens of ``text`` with their positions relative to the first one.

    The CJK analyzer's separator tokens are dropped but keep their positions, so ``雾凇：词库``
    matches the two words with one run of non-letters between, whatever it is (``"子丑 寅卯"``
    finds ``子丑`` and ``寅卯`` across a line break or ``，`` as well as a space).
    """
    tokens = analyzer(analyzer_name).analyze(text)
    if analyzer_name != CJK_ANALYZER:
        return list(enumerate(tokens))
    kept = [(i, t) for i, t in enumerate(tokens) if not _is_separator(t)]
    return [(i - kept[0][0], t) for i, t in kept] if kept else []


def _bigram_pairs(tokens: list[tuple[int, str]]) -> list[tuple[str, str]]:
    """Each pair of adjacent CJK unigrams of positioned ``tokens``, once, in order, but the
    pairs holding a character of a function word (:data:`~vault_sync.stopwords.CJK_STOP_WORDS`)
    where it occurs (``有什``, ``什么``, ``么法`` in ``有什么法术``)."""
    stop: set[int] = set()  # token indexes inside a function word
    for i, ((p, a), (q, b)) in enumerate(itertools.pairwise(tokens)):
        if q == p + 1 and a + b in CJK_STOP_WORDS:
            stop.update((i, i + 1))
    out: dict[tuple[str, str], None] = {}
    for i, ((p, a), (q, b)) in enumerate(itertools.pairwise(tokens)):
        if i not in stop and i + 1 not in stop and q == p + 1 and has_cjk(a) and has_cjk(b):
            out[(a, b)] = None
    return list(out)


def _bigrams(field: str, tokens: list[tuple[int, str]]) -> list[tantivy.Query]:
    """Each pair of adjacent unigrams of a CJK run as a two-token phrase (Lucene's CJK
    bigrams, on a unigram index), OR-ed inside one field (switch ``cjk-one-clause``; the
    default searches them as clauses: :func:`cjk_words`). Words of other scripts inside the
    run count alone."""
    fields = schema()
    out = [tantivy.Query.phrase_query(fields, field, list(p)) for p in _bigram_pairs(tokens)]
    words = dict.fromkeys(t for _, t in tokens if not has_cjk(t))
    return out + [tantivy.Query.term_query(fields, field, w) for w in words]


def cjk_words(run: str) -> list[str]:
    """The words a CJK run is searched by: its bigrams (:func:`_bigram_pairs`), then its words
    of other scripts (``20d6``); a lone character is its own word. A question written without
    spaces is one run whose whole phrase no page holds; its bigrams rank the pages sharing
    most of its words: ``屏住呼吸最多能坚持多久`` -> ``屏住``, ``住呼``, ``呼吸``, ... (no
    ``多久``)."""
    tokens = _positioned(CJK_ANALYZER, run)
    out = dict.fromkeys(a + b for a, b in _bigram_pairs(tokens))
    if len(tokens) == 1 and has_cjk(tokens[0][1]):
        out[tokens[0][1]] = None
    out.update(dict.fromkeys(t for _, t in tokens if not has_cjk(t)))
    return list(out)


def _field_query(field: str, tokens: list[tuple[int, str]], *, with_parts: bool) -> tantivy.Query:
    """Term query for one token; phrase for several (plus the parts OR-ed when asked: the
    words, or for a CJK field the :func:`_bigrams`)."""
    fields = schema()
    if len(tokens) == 1:
        return tantivy.Query.term_query(fields, field, tokens[0][1])
    words: list[str | tuple[int, str]] = [t for _, t in tokens]
    if tokens[-1][0] != len(tokens) - 1:  # a gap left by a separator
        words = list(tokens)
    phrase = tantivy.Query.phrase_query(fields, field, words)
    if not with_parts:
        return phrase
    if field in _CJK_FIELDS:
        if len(tokens) <= 2:
            return phrase
        parts = _bigrams(field, tokens)
    else:
        parts = [
            tantivy.Query.term_query(fields, field, t) for t in dict.fromkeys(t for _, t in tokens)
        ]
    clauses = [(tantivy.Occur.Should, tantivy.Query.boost_query(phrase, PHRASE_BOOST))]
    clauses += [(tantivy.Occur.Should, q) for q in parts]
    return tantivy.Query.boolean_query(clauses)


def clause_parts(text: str, *, phrase: bool, boosts: Mapping[str, float]) -> list[FieldQuery]:
    """One clause (a word or phrase as typed) searched in every field that applies, each
    with its boost; ``phrase`` keeps a split word or CJK run whole (no parts, no bigrams).

    :func:`clause_query` scores them as a disjunction-max (:data:`TIE_BREAKER`), plus the
    exact-identifier bonus (:data:`BONUS_FIELDS`) for snake_case or CamelCase words. A word
    that splits into several tokens (``atomic_write_json``) matches as a phrase
    (:data:`PHRASE_BOOST`) and, in ``body``, by its parts, so pages holding the words apart
    are found below the exact literal; a CJK run, by its bigrams (:func:`_bigrams`).
    """
    parts = []
    # each analyzer runs once per clause, each field's condition is asked once per clause
    analyzed: dict[str, tuple[list[tuple[int, str]], tuple[str, ...]]] = {}
    applies: dict[Callable[[str], bool], bool] = {}
    for spec in _SEARCH_FIELDS:
        applied = applies.get(spec.applies)
        if applied is None:
            applied = applies[spec.applies] = spec.applies(text)
        if not applied:
            continue
        if spec.analyzer not in analyzed:
            positioned = _positioned(spec.analyzer, text)
            analyzed[spec.analyzer] = (positioned, tuple(t for _, t in positioned))
        tokens, words = analyzed[spec.analyzer]
        if not tokens:
            continue
        with_parts = not phrase and (spec.name == "body" or spec.name in _CJK_FIELDS)
        boost = boosts[spec.name]
        query = tantivy.Query.boost_query(
            _field_query(spec.name, tokens, with_parts=with_parts), boost
        )
        parts.append(FieldQuery(text, spec.name, words, boost, query))
    return parts


def clause_query(parts: list[FieldQuery]) -> tantivy.Query:
    """Disjunction-max over the clause's fields, plus the exact-identifier bonus in full."""
    ranked = [p.query for p in parts if p.field not in BONUS_FIELDS]
    bonus = [p.query for p in parts if p.field in BONUS_FIELDS]
    best = ranked[0] if len(ranked) == 1 else None
    if len(ranked) > 1:
        best = tantivy.Query.disjunction_max_query(ranked, TIE_BREAKER)
    if not bonus and best is not None:
        return best
    subs = [best] if best is not None else []
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in [*subs, *bonus]])
