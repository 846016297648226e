"""The clauses of a query's user text: words, phrases, exclusions, CJK bigrams, word pairs.

Part of the retrieval layer (4), between :mod:`vault_sync.query_fields` (how one word or
phrase becomes tantivy queries over the fields, and every ranking constant) and
:mod:`vault_sync.retrieve` (the plan built from these clauses, run against the index): here
user text is split into clauses (a run of non-blanks, a quoted phrase, ``-`` to exclude, a
``#tag`` to filter by), stop words and repeats are left out, a CJK run becomes its bigrams
and two adjacent content words a phrase bonus, as :class:`ClauseRules` says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import tantivy

from vault_sync.index import MAX_TOKEN_BYTES, has_cjk
from vault_sync.query_fields import (
    PAIR_BOOST,
    PAIR_GAP,
    RUN_PHRASE_BOOST,
    FieldQuery,
    cjk_words,
    clause_parts,
    clause_query,
)
from vault_sync.stopwords import STOP_WORDS

_WORD = re.compile(r"\w+")

#: One clause of user text: an optional ``-`` and a quoted phrase or a run of non-blanks. A
#: word starting ``--`` is a word, not an exclusion: a command-line flag (``silverbullet
#: --single``) is looked for, never used to leave out every page holding ``single``.
_CLAUSE = re.compile(r'(-?)"([^"]*)"|(-(?=[^\s"-]))?([^\s"]+)')
_EDGE_PUNCTUATION = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum())
#: A tag as Obsidian writes one: ``#`` then letters, digits, ``_``, ``-`` and ``/`` (nesting),
#: not digits alone (``#1984`` is no tag); a question's closing punctuation is not part of it.
_TAG = re.compile(r"#([\w/-]+)[.,;:!?)]*")


def tag_of(clause: str) -> str | None:
    """The tag an unquoted clause names (``#Ops/Deploy`` -> ``ops/deploy``: compared
    lowercased, as Obsidian and the ``tag_filter`` field do), or ``None``."""
    m = _TAG.fullmatch(clause)
    if m is None or all(c.isdigit() or c in "/-" for c in m[1]):
        return None
    return m[1].strip("/").lower() or None


def _stop_clauses(text: str) -> set[int]:
    """Start offsets of the unquoted, non-excluded words of ``text`` that are stop words,
    when a positive word or phrase outside the list remains (else none: ``the who`` searches
    its words)."""
    stops, others = set(), 0
    for match in _CLAUSE.finditer(text):
        word = match.group(4) if match.group(2) is None and not match.group(3) else None
        if word is not None and word.strip(_EDGE_PUNCTUATION).lower() in STOP_WORDS:
            stops.add(match.start())
            continue
        if not (match.group(1) or match.group(3)):
            others += 1
    return stops if others else set()


@dataclass(frozen=True)
class ClauseRules:
    """How user text becomes clauses; each rule is measured by ``eval`` (docs/eval.md) and
    has a ranking switch that turns it off (``retrieve.SWITCHES``).

    Attributes:
        drop_stop_words: leave out unquoted stop words (:mod:`vault_sync.stopwords`) when
            another word remains.
        keep_repeats: score a word or phrase each time it is typed (else once).
        phrases_required: a quoted phrase must match (else it is searched as its words, the
            phrase ranking first).
        word_pairs: add the phrase bonus of adjacent content words (:data:`PAIR_BOOST`).
        cjk_bigrams: search a CJK run by its bigrams, each a clause (:data:`RUN_PHRASE_BOOST`);
            else the run is one clause, its bigrams OR-ed inside each field.
        tags_filter: an unquoted ``#tag`` (:func:`tag_of`) keeps only pages so tagged, and
            ``-#tag`` leaves them out (else they are searched as words, as when no page is
            left: ``search`` asks again so).
    """

    drop_stop_words: bool = True
    keep_repeats: bool = False
    phrases_required: bool = True
    word_pairs: bool = True
    cjk_bigrams: bool = True
    tags_filter: bool = True


#: The rules of the default ranking.
DEFAULT_RULES = ClauseRules()


@dataclass
class Clauses:
    """The clauses of user text, sorted by what the query does with them."""

    should: list[tantivy.Query] = field(default_factory=list)
    must: list[tantivy.Query] = field(default_factory=list)
    must_not: list[tantivy.Query] = field(default_factory=list)
    parts: list[FieldQuery] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    too_long: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    excluded_tags: list[str] = field(default_factory=list)

    def add(self, parts: list[FieldQuery], boost: float = 1.0) -> None:
        """Add a scoring clause of ``parts`` (weighted ``boost``), kept for ``explain``."""
        query = clause_query(parts)
        self.should.append(query if boost == 1.0 else tantivy.Query.boost_query(query, boost))
        self.parts += parts


def read_clauses(text: str, *, rules: ClauseRules, boosts: Mapping[str, float]) -> Clauses:
    """Each clause of ``text`` (NFC) as field queries: positive words, required phrases,
    exclusions, CJK bigrams and word pairs; the words too long to be indexed are noted (see
    ``retrieve.build_query``). An unquoted ``#tag`` (:func:`tag_of`) is a tag to filter by,
    ``-#tag`` one to leave out; a query of tags alone searches their words (every page so
    tagged holds them in ``tags_text``)."""
    out = Clauses()
    stops = _stop_clauses(text) if rules.drop_stop_words else set()
    seen: set[tuple[bool, str]] = set()
    for match in _CLAUSE.finditer(text):
        if match.start() in stops:
            continue
        quoted = match.group(2) is not None
        exclude = bool(match.group(1) if quoted else match.group(3))
        clause = (match.group(2) if quoted else match.group(4)).strip()
        if not quoted and rules.tags_filter and (tag := tag_of(clause)) is not None:
            (out.excluded_tags if exclude else out.tags).append(tag)
            continue
        is_phrase = quoted and (rules.phrases_required or exclude)
        if not exclude and not rules.keep_repeats:
            # a word asked twice ("Melanie ... Melanie?") counts once, as in plain BM25
            key = (is_phrase, clause.strip(_EDGE_PUNCTUATION).casefold())
            if key in seen:
                continue
            seen.add(key)
        # an excluded word is matched exactly: `-atomic_write_json` must not drop pages
        # that merely hold "atomic" or "json"
        parts = clause_parts(clause, phrase=is_phrase or exclude, boosts=boosts) if clause else []
        if not parts:
            out.too_long += [w for w in _WORD.findall(clause) if len(w.encode()) >= MAX_TOKEN_BYTES]
        elif exclude:
            out.must_not.append(clause_query(parts))
        elif (
            rules.cjk_bigrams and not quoted and _cjk_run_clauses(clause, out, seen, rules, boosts)
        ):
            out.literals.append(clause)
        else:
            (out.must if is_phrase else out.should).append(clause_query(parts))
            out.parts += parts
            out.literals.append(clause)
    if rules.word_pairs:
        for span in _word_pairs(text, _stop_clauses(text), rules.tags_filter):
            if pair := clause_parts(span, phrase=True, boosts=boosts):
                out.add(pair, PAIR_BOOST)
    if out.tags and not (out.should or out.must):
        for tag in dict.fromkeys(out.tags):
            if parts := clause_parts(tag, phrase=False, boosts=boosts):
                out.add(parts)
                out.literals.append(tag)
    return out


#: The keys of :func:`reading`, in the order ``--explain`` prints them.
READING_KEYS = ("words", "phrases", "tags", "excluded", "stop_words", "repeats", "word_pairs")


def reading(text: str, rules: ClauseRules = DEFAULT_RULES) -> dict[str, list[str]]:
    """How :func:`read_clauses` reads user text, for ``query --explain``: ``{key: [clause as
    typed]}`` for each of :data:`READING_KEYS` — ``words`` (searched, any may match; a CJK
    run among them is searched by its bigrams), ``phrases`` (quoted: must match, or their
    words are searched when no page holds one), ``tags`` (``#tag``: only pages so tagged,
    nested tags too; lowercased), ``excluded`` (``-word``, ``-"a phrase"``, ``-#tag``),
    ``stop_words`` (left out while another word remains), ``repeats`` (typed again: counted
    once), ``word_pairs`` (adjacent words earning the pair bonus, :data:`PAIR_BOOST`)."""
    out: dict[str, list[str]] = {key: [] for key in READING_KEYS}
    stops = _stop_clauses(text) if rules.drop_stop_words else set()
    seen: set[tuple[bool, str]] = set()
    for match in _CLAUSE.finditer(text):
        quoted = match.group(2) is not None
        clause = (match.group(2) if quoted else match.group(4)).strip()
        if not clause:
            continue
        is_phrase = quoted and rules.phrases_required
        key = (is_phrase, clause.strip(_EDGE_PUNCTUATION).casefold())
        tag = None if quoted or not rules.tags_filter else tag_of(clause)
        if match.start() in stops:
            out["stop_words"].append(clause)
        elif tag is not None and not match.group(3):
            out["tags"].append(tag)
        elif match.group(1) if quoted else match.group(3):
            out["excluded"].append(clause)
        elif key in seen and not rules.keep_repeats:
            out["repeats"].append(clause)
        else:
            seen.add(key)
            out["phrases" if is_phrase else "words"].append(clause)
    if rules.word_pairs:
        out["word_pairs"] = _word_pairs(text, _stop_clauses(text), rules.tags_filter)
    return out


def _cjk_run_clauses(
    run: str,
    out: Clauses,
    seen: set[tuple[bool, str]],
    rules: ClauseRules,
    boosts: Mapping[str, float],
) -> bool:
    """Add a CJK run of more than one bigram as its whole phrase (:data:`RUN_PHRASE_BOOST`)
    and a clause per bigram and per other word in it (repeats once, unless kept); ``False``
    (nothing added) for a run without CJK or of one bigram."""
    if not has_cjk(run):
        return False
    words = cjk_words(run)
    if words == [run]:
        return False
    out.add(clause_parts(run, phrase=True, boosts=boosts), RUN_PHRASE_BOOST)
    for word in words:
        key = (False, word.casefold())
        if key in seen and not rules.keep_repeats:
            continue
        seen.add(key)
        if parts := clause_parts(word, phrase=True, boosts=boosts):
            out.add(parts)
    return True


def _word_pairs(text: str, stops: set[int], tags: bool = True) -> list[str]:
    """The spans of ``text`` holding two adjacent unquoted content words, with at most
    :data:`PAIR_GAP` stop words (start offsets ``stops``) between them: ``Lay On Hands`` ->
    ``Lay On Hands``; ``how do I reuse the query`` -> ``reuse the query``. Not across a quoted
    phrase, an excluded word, a ``#tag`` (when ``tags`` filter), punctuation alone or CJK
    text."""
    out: dict[str, None] = {}
    prev, gap = None, 0
    for match in _CLAUSE.finditer(text):
        word = match.group(4) if match.group(2) is None and not match.group(3) else None
        if word is None or has_cjk(word) or not _WORD.search(word) or (tags and tag_of(word)):
            prev = None
        elif match.start() in stops:
            gap += 1
        else:
            if prev is not None and gap <= PAIR_GAP:
                out[text[prev : match.end()]] = None
            prev, gap = match.start(), 0
    return list(out)
