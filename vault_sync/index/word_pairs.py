"""Adjacent word pairs of a page's body, indexed so a phrase reads positions of fewer pages.

Part of :mod:`vault_sync.index` (layer 3), after :mod:`~vault_sync.index.section_terms` (whose
analyzed sections give the words) and before :mod:`~vault_sync.index.schema` (which writes
the field): it imports no other module of the package.

A phrase query (``"mistwait vaska"``, a word pair's bonus, a split identifier) intersects its
words' postings and then reads both words' positions in every page holding both: at 10k
generated pages, the two words of the benchmark's phrase are in 97 % and 94 % of the pages
and adjacent in 38 %, so ~60 % of the positions read found nothing, ~1.6 ms of the query's
CPU (20 ms at 100k pages). The ``body_pairs`` field holds, per page, each pair of adjacent
English-analyzed body words, each word mapped to one of :data:`PAIR_CODES` characters
(:func:`code`) and the pairs cut by tantivy's bigram tokenizer from the string of codes
(:func:`pair_text`), indexed without frequencies or positions. A phrase in ``body`` is asked
together with its pairs' terms at a constant score of 0 (:func:`narrowed`): the pages
without them are skipped before any position is read. The pages kept are a superset of the
phrase's (two words adjacent in the body are adjacent in the analyzed words; two words
mapped to the same code only let a page through that the phrase then rejects), and the
score is the phrase's plus 0.0, the same float: hits, scores and ``--explain`` are the same.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Sequence

import tantivy

#: The field of the body's word pairs (search only: no stored value, no frequencies).
PAIRS_FIELD = "body_pairs"
#: How many codes words are mapped to: a pair is one of ``PAIR_CODES ** 2`` terms. At 10k
#: generated pages, 1024 let 1.8 % more pages through than hold the phrase (256: 17 %) and
#: cost 0.7 s of indexing CPU (4096: 1.4 s, more distinct terms).
PAIR_CODES = 1024
#: The first code character (a block of letters no tokenizer splits; each code is one
#: character, so tantivy's bigrams of the code string are exactly the adjacent pairs).
_FIRST_CODE = 0x4E00
#: Words whose code is kept in this process (an indexing process meets each word once;
#: emptied when full).
_KEPT_MAX = 1 << 20
_KEPT: dict[str, str] = {}


def code(word: str) -> str:
    """The one-character code of an analyzed word: its CRC-32 (zlib, the same in every
    process and version) modulo :data:`PAIR_CODES`."""
    found = _KEPT.get(word)
    if found is None:
        if len(_KEPT) >= _KEPT_MAX:
            _KEPT.clear()
        found = _KEPT[word] = chr(_FIRST_CODE + zlib.crc32(word.encode()) % PAIR_CODES)
    return found


def pair_text(words: Iterable[str]) -> str:
    """The ``body_pairs`` value of a body's analyzed words in order: their codes as one
    string, which the pairs analyzer (:func:`pairs_analyzer`) cuts into each adjacent two."""
    words = list(words)
    try:  # the words met before: one C-level pass
        return "".join(map(_KEPT.__getitem__, words))
    except KeyError:
        return "".join(map(code, words))


def pairs_analyzer() -> tantivy.TextAnalyzer:
    """The analyzer of ``body_pairs``: every two adjacent characters of the code string."""
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.ngram(2, 2, False)).build()


def narrowed(schema: tantivy.Schema, phrase: tantivy.Query, words: Sequence[str]) -> tantivy.Query:
    """``phrase`` (over the English-analyzed ``body``, of ``words`` in order) asked only of
    the pages holding each adjacent pair of ``words`` in ``body_pairs``, which add 0.0 to its
    score; ``phrase`` itself for fewer than two words."""
    pairs = dict.fromkeys(code(a) + code(b) for a, b in itertools.pairwise(words))
    if not pairs:
        return phrase
    must = tantivy.Occur.Must
    clauses = [(must, phrase)]
    for pair in pairs:
        term = tantivy.Query.term_query(schema, PAIRS_FIELD, pair)
        clauses.append((must, tantivy.Query.const_score_query(term, 0.0)))
    return tantivy.Query.boolean_query(clauses)
