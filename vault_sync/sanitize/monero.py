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
import itertools
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
#: A run of :data:`WORDS`+ words of 4 to 12 letters, each two parted by 1 to 24 of the
#: characters a seed's separator (:data:`~.seeds._SEP`) is made of: a superset of the runs
#: written as a seed, searched first; each gap is then checked against the separator itself
#: (:data:`_GAP`). One character class between the words keeps RE2's automaton small: with
#: ``_SEP`` itself (which may be empty, so one long word split anywhere matched) the search
#: took 1.1 s of 1.7 s of scrubbing 600 generated pages (cold sync twice main's CPU).
_RUN = (
    rf"(?:\A|[^a-z])({_WORD}(?:[ \t,;\r\n0-9.):*+-]{{1,24}}{_WORD}){{{WORDS - 1},}})"
    r"(?:[^a-z]|\z)"
)
_LETTERS = re.compile(rb"[a-z]+")
#: A gap between two words of a seed: :data:`~.seeds._SEP`, not empty.
_GAP = re.compile(_SEP.encode())


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
        runs = [[spans[0]]]
        for (_, before), (after, end) in itertools.pairwise(spans):
            if _GAP.fullmatch(view, before, after):
                runs[-1].append((after, end))
            else:  # a gap no seed is written with: a new run
                runs.append([(after, end)])
        for run in runs:
            _add_seeds(view, run, rank, out)


def _add_seeds(view: bytes, spans: list[tuple[int, int]], rank: int, out: list[Candidate]) -> None:
    """A candidate for each window of :data:`WORDS` words of one run (``spans``) that is a
    seed (:func:`_checksum_holds`), windows not overlapping."""
    words = [view[a:b] for a, b in spans]
    i = 0
    while i + WORDS <= len(words):
        if _checksum_holds(words[i : i + WORDS]):
            start, end = spans[i][0], spans[i + WORDS - 1][1]
            out.append(Candidate(rank, start, end, LABEL, (start, end)))
            i += WORDS
        else:
            i += 1
