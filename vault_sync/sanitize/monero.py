"""Monero wallet seeds (label ``seed_phrase``): 25 words, the last a checksum word.

A Monero mnemonic (monero-project ``src/mnemonics/electrum-words.cpp``) is 24 words of a
1,626-word list, then one of them again as a checksum: the word at index ``crc32(the first
three letters of each of the 24, joined) mod 24`` (``create_checksum_index``; the English
list's unique prefix is 3 letters). Its words are not BIP-39's, so the BIP-39 rule
(:mod:`.seeds`) let a Monero seed through (a fresh user's).

Known without its word list: a run of 25 words of 4 to 12 letters, written apart as a seed
is (:data:`~.seeds._SEP`: blanks, commas, line breaks, list numbers), whose 25th word is
the checksum of the 24 before it, and in which two words sharing their first three letters
are the same word (the list's prefixes are unique). Prose never holds 25 words of 4+
letters in a row (its ``the``, ``of``, ``and`` break a run), and a list of that many long
words passes the checksum about 1 time in 24 times the chance that its 25th word repeats
the one the checksum picks. The runs are found by one RE2 search of the lowercased view
(linear in the text whatever it holds); each window of 25 is checked once. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import re
import zlib
from typing import Any

from vault_sync.sanitize.overlaps import Candidate
from vault_sync.sanitize.rule import label_rank
from vault_sync.sanitize.seeds import _SEP, LABEL

#: A seed's words, and the length of a word's prefix that is unique in the English list.
WORDS = 25
PREFIX = 3
#: The fewest distinct words among a seed's 24: 24 drawn from 1,626 repeat one in about one
#: seed in seven, two in about 90, five never in 100,000 draws; a run of one word again and
#: again is no seed.
MIN_DISTINCT = 20
_WORD = r"[a-z]{4,12}"
#: A run of :data:`WORDS`+ words of 4 to 12 letters written apart as a seed.
_RUN = rf"(?:\A|[^a-z])({_WORD}(?:{_SEP}{_WORD}){{{WORDS - 1},}})(?:[^a-z]|\z)"
_LETTERS = re.compile(rb"[a-z]+")


@functools.cache
def _pattern() -> Any:
    """:data:`_RUN` as an RE2 pattern (bytes), compiled on first use."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(_RUN.encode(), options)


def _checksum_holds(words: list[bytes]) -> bool:
    """Whether ``words`` (25) are a Monero seed: :data:`MIN_DISTINCT` distinct words among the
    24, prefixes unique, the last the checksum."""
    if len(set(words[:-1])) < MIN_DISTINCT:
        return False  # `word word word …` passes the checksum: every word is the one picked
    by_prefix: dict[bytes, bytes] = {}
    for word in words:
        if by_prefix.setdefault(word[:PREFIX], word) != word:
            return False
    index = zlib.crc32(b"".join(w[:PREFIX] for w in words[:-1])) % (WORDS - 1)
    return words[-1] == words[index]


def monero_candidates(view: bytes, out: list[Candidate]) -> None:
    """Add a ``seed_phrase`` candidate for each Monero seed in ``view`` (the text's lowercased
    ASCII view: one byte per character, so offsets are the text's)."""
    rank = label_rank()[LABEL]
    for m in _pattern().finditer(view):
        spans = [w.span() for w in _LETTERS.finditer(view, m.start(1), m.end(1))]
        words = [view[a:b] for a, b in spans]
        i = 0
        while i + WORDS <= len(words):
            if _checksum_holds(words[i : i + WORDS]):
                start, end = spans[i][0], spans[i + WORDS - 1][1]
                out.append(Candidate(rank, start, end, LABEL, (start, end)))
                i += WORDS
            else:
                i += 1
