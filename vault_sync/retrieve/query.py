"""User text -> a lexical :class:`~vault_sync.query_fields.QueryPlan`: the one place user
text is interpreted (:func:`build_query`), its size checked (:func:`check_query_size`), its
filters as exact terms (:func:`filter_terms`).

Part of :mod:`vault_sync.retrieve` (layer 4, STYLE.md); its clauses are read by
:func:`vault_sync.query_text.read_clauses`, its per-field queries built by
:mod:`vault_sync.query_fields`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

import tantivy

from vault_sync import passages
from vault_sync.errors import QuerySyntaxError
from vault_sync.index import (
    CJK_CHARS,
    MAX_TOKEN_BYTES,
    has_cjk,
    schema,
)
from vault_sync.plaintext import REDACTED_PATTERN
from vault_sync.query_fields import (
    FIELD_BOOSTS,
    QueryPlan,
)
from vault_sync.query_text import DEFAULT_RULES, ClauseRules, Clauses, read_clauses

#: Our redaction token: the scrubbed form of a secret typed into a query.
_REDACTED = re.compile(REDACTED_PATTERN)


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
            :data:`QUERY_MAX_CHARS` characters; a ``tag`` that is empty (or only ``#``).
    """
    text = unicodedata.normalize("NFC", text).translate(FULL_WIDTH)
    check_query_size(text)
    used = {**FIELD_BOOSTS, **(boosts or {})}
    if unknown := used.keys() - FIELD_BOOSTS.keys():
        raise ValueError(f"unknown fields in boosts: {sorted(unknown)}")
    if not text.strip():
        raise QuerySyntaxError("empty query: give at least one word to search for")
    if tag is not None and not tag.strip().lstrip("#").strip():
        # an empty tag matched nothing, silently (fresh-user report 5, item 7)
        raise QuerySyntaxError(
            "the tag filter is empty: name a tag (incident, #incident, ops/deploy)"
        )
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


#: Full-width ASCII forms (U+FF01-FF5E, as CJK input methods type Latin letters, digits and
#: punctuation) and the ideographic space, mapped to ASCII: the compatibility mappings of
#: Unicode's NFKC for that block (UAX #15), so ``ｒｅｔｒｙ ＰＡＹ－２３１`` finds what
#: ``retry PAY-231`` finds. Query side only: page text is indexed as written.
FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
