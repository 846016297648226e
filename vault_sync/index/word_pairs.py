"""Adjacent words of a page's English-analyzed text, indexed so a phrase reads fewer positions.

Part of :mod:`vault_sync.index` (layer 3), after :mod:`~vault_sync.index.section_terms` (whose
analyzed sections give the body's words) and before :mod:`~vault_sync.index.schema` (which
writes the field): it imports no other module of the package.

A phrase query (``"mistwait vaska"``, a word pair's bonus, a split identifier) intersects its
words' postings and then reads both words' positions in every page holding both: at 10k
generated pages, the two words of the benchmark's phrase are in 97 % and 94 % of the bodies
and adjacent in 38 %, so ~60 % of the positions read found nothing: ~0.8 of the phrase
query's 1.6 ms in ``body`` (100k pages: ~8 of 18 ms, and ~1 ms in ``headings``). The
``word_pairs`` field holds, per page, each pair of adjacent words of the fields in
:data:`PAIRED_FIELDS`, each word mapped to one of :data:`PAIR_CODES` characters
(:func:`code`), the pairs cut by tantivy's bigram tokenizer from the string of codes
(:func:`pair_text`); indexed without frequencies or positions. A phrase in one of those
fields is asked together with its pairs' terms at a constant score of 0 (:func:`narrowed`):
the pages without them are skipped before any position is read. The pages kept are a
superset of the phrase's (two words adjacent in a field are adjacent in its analyzed words;
two words mapped to the same code, or a pair of another field, only let a page through that
the phrase then rejects), and the score is the phrase's plus 0.0, the same float: hits,
scores and ``--explain`` are the same.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable, Sequence

import tantivy

#: The field of the word pairs (search only: no stored value, no frequencies).
PAIRS_FIELD = "word_pairs"
#: The English-analyzed fields whose adjacent words ``word_pairs`` holds: every field a
#: phrase is asked in that can hold many words (not ``name``, ``tags_text``, ``metadata``).
PAIRED_FIELDS = frozenset({"title", "aliases", "headings", "body"})
#: How many codes words are mapped to: a pair is one of ``PAIR_CODES ** 2`` terms, and the
#: indexing cost grows with the distinct terms. At 10k generated pages, the benchmark phrase
#: in ``body`` (3,772 pages hold it, 9,300 both words; 1.63 ms without pairs): 64 codes let
#: 5,515 pages through (1.10 ms), 128 4,738 (0.97 ms), 256 4,418 (0.89 ms), 1024 3,841
#: (0.82 ms) for ~80 us of indexing CPU a page at 256 and ~107 at 1024 (64: 27).
PAIR_CODES = 256
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
    """A ``word_pairs`` value of analyzed words in order: their codes as one string, which
    the pairs analyzer (:func:`pairs_analyzer`) cuts into each adjacent two."""
    words = list(words)
    try:  # the words met before: one C-level pass
        return "".join(map(_KEPT.__getitem__, words))
    except KeyError:  # a Python step only for each word not met before
        for word in set(words).difference(_KEPT):
            code(word)
        try:
            return "".join(map(_KEPT.__getitem__, words))
        except KeyError:  # the kept codes were emptied meanwhile (full)
            return "".join(map(code, words))


def pairs_analyzer() -> tantivy.TextAnalyzer:
    """The analyzer of ``word_pairs``: every two adjacent characters of the code string."""
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.ngram(2, 2, False)).build()


def narrowed(schema: tantivy.Schema, phrase: tantivy.Query, words: Sequence[str]) -> tantivy.Query:
    """``phrase`` (over a field of :data:`PAIRED_FIELDS`, of ``words`` in order) asked only
    of the pages holding each adjacent pair of ``words`` in ``word_pairs``, which add 0.0 to
    its score; ``phrase`` itself for fewer than two words."""
    pairs = dict.fromkeys(code(a) + code(b) for a, b in itertools.pairwise(words))
    if not pairs:
        return phrase
    must = tantivy.Occur.Must
    clauses = [(must, phrase)]
    for pair in pairs:
        term = tantivy.Query.term_query(schema, PAIRS_FIELD, pair)
        clauses.append((must, tantivy.Query.const_score_query(term, 0.0)))
    return tantivy.Query.boolean_query(clauses)
