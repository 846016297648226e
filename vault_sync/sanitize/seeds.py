"""Wallet seed phrases (label ``seed_phrase``): BIP-39 mnemonics, bare or after a label.

A BIP-39 mnemonic (github.com/bitcoin/bips bip-0039) is 12, 15, 18, 21 or 24 words of a fixed
list of 2,048 English words of 3 to 8 letters; whoever reads it owns the wallet. Two forms:

- **bare**: a run of :data:`MIN_WORDS`+ consecutive list words, separated by blanks, commas,
  line breaks, list markers or numbers (``1. abandon 2. ability …``, one word a line). Ordinary
  prose never holds such a run: the longest in the 22 MB of ``shared/corpora`` prose
  (LongMemEval, LoCoMo, obsidian-tasks, silverbullet, dnd-srd-zh) is 8 words, so no checksum
  is asked for (a hand-typed phrase with a wrong last word is still someone's secret);
- **labelled**: after ``mnemonic``, ``seed phrase``, ``seed words``, ``recovery phrase``,
  ``backup phrase``, ``secret recovery phrase``, ``wallet seed`` and an operator (``:``,
  ``=``, ``is``), a run of 12 to 25 words of 3 to 8 letters of which at least
  :data:`LABELLED_SHARE` are list words (a typo, or an Electrum or Monero seed of other
  words, is one still).

The wordlist is the reference implementation's (``mnemonic``, trezor/python-mnemonic, MIT),
loaded on the first text that has a run of short words. Both searches are RE2 (linear in the
text whatever it holds) over the lowercased ASCII view :mod:`.search` makes, then one pass
over each run's words. Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

from vault_sync.sanitize.overlaps import Candidate
from vault_sync.sanitize.rule import label_rank

LABEL = "seed_phrase"
#: The fewest words of a bare run: BIP-39's shortest mnemonic.
MIN_WORDS = 12
#: The share of list words a labelled run needs (9 of 12).
LABELLED_SHARE = 0.75
#: Between two words: blanks or a comma, or a line break then a list marker; either then a
#: number (``2.``, ``2)``, ``02:``) — the forms a seed phrase is written down in.
_SEP = (
    r"(?:[ \t]{0,4}[,;]?[ \t]{0,4}(?:\r?\n[ \t]{0,8}(?:[-*+][ \t]{1,4})?)?|[ \t]{1,4})"
    r"(?:[0-9]{1,2}[.):][ \t]{0,4})?"
)
_WORD = r"[a-z]{3,8}"
#: A seed's label, then an operator, then (after quotes or a line break) the words.
_LABELLED = (
    r"(?:mnemonic|seed[ _-]?(?:phrase|words)?|(?:secret[ _-])?recovery[ _-](?:phrase|words|seed)"
    r"|backup[ _-](?:phrase|words)|wallet[ _-](?:seed|words))"
    r"[*_\"']{0,3}[ \t]{0,4}(?:[:=]|is|was)[*_]{0,3}[ \t]{0,4}[\"'`]?[ \t]{0,4}(?:\r?\n[ \t]{0,8})?"
    rf"(?:[0-9]{{1,2}}[.):][ \t]{{0,4}})?({_WORD}(?:(?:{_SEP}){_WORD}){{11,24}})"
)
_LETTERS = re.compile(rb"[a-z]+")
#: Markup the plain-text views drop, blanked before words are read (same length, so offsets
#: hold): an HTML comment, a tag, a ``${…}`` expression (``legal <!-- x -->winner``).
_MARKUP = re.compile(rb"<!--[^\n]{0,64}?-->|</?[a-z][^<>\n]{0,64}>|\$\{[^{}\n]{0,64}\}")


#: A run of :data:`MIN_WORDS`+ words of 3 to 8 letters, each two apart by 1 to 16 other
#: bytes (blanks, commas, a line break and a number, a table's `` |\n| 2 | ``): the gate,
#: in the lowercased view. Runs of short words cover about a fifth of prose; only their words
#: are looked up.
_SHORT_WORDS = (
    rf"(?:\A|[^a-z])[a-z]{{3,8}}(?:[^a-z]{{1,16}}[a-z]{{3,8}}){{{MIN_WORDS - 1},}}(?:[^a-z]|\z)"
)


@functools.cache
def _patterns() -> tuple[Any, Any]:
    """:data:`_SHORT_WORDS` and :data:`_LABELLED` as RE2 patterns (bytes), compiled on first
    use."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(_SHORT_WORDS.encode(), options), re2.compile(_LABELLED.encode(), options)


@functools.cache
def _wordlist() -> frozenset[bytes]:
    """The 2,048 BIP-39 English words (``mnemonic``'s list)."""
    return frozenset(w.encode() for w in _mnemonic().wordlist)


#: Every byte but ``a-z`` -> a blank (the view is lowercased): its ``split()`` is the words.
_ONLY_LETTERS = bytes(i if 97 <= i <= 122 else 32 for i in range(256))
_RUN_MARK = b"\x01" * MIN_WORDS


#: What may stand between two words of a seed phrase: blanks, a line break, a comma, a dash,
#: a table's pipe, a list's number (``2.``, ``2)``); and what may not (code's ``task.file``,
#: ``sample_number``, ``('x')``: identifiers, not a phrase written down).
_GAP_NEEDS = re.compile(rb"[ \t\r\n,|-]")
_GAP_REFUSES = re.compile(rb"[_('\"\[\]{}<>=/\\@$&~^]")


def _apart(gap: bytes) -> bool:
    """Whether ``gap`` separates two words of a written-down phrase."""
    return _GAP_NEEDS.search(gap) is not None and _GAP_REFUSES.search(gap) is None


#: The fewest distinct words a bare run needs: half a mnemonic's (BIP-39's own test vector
#: ``legal winner thank year wave sausage worth useful legal winner thank yellow`` has 9 of
#: 12); a run of one word again and again (``word word word …``: a query of 256 ``word``s
#: was scrubbed whole) or of two or three is no seed.
MIN_DISTINCT = MIN_WORDS // 2


def _varied(view: bytes, run: list[tuple[int, int]]) -> bool:
    """Whether a run of list words holds :data:`MIN_DISTINCT` distinct words."""
    return len({view[a:b] for a, b in run}) >= MIN_DISTINCT


#: A gap that makes a run a list: a line break, or a list's number (``2.``, ``2)``).
_LIST_GAP = re.compile(rb"[\r\n]|[0-9][.):]")
#: A mnemonic's lengths (BIP-39: 128 to 256 bits of entropy, 32 bits a step, 3 words each).
_LENGTHS = (12, 15, 18, 21, 24)


def _seed_like(view: bytes, run: list[tuple[int, int]]) -> bool:
    """Whether a run of list words is a seed: :data:`MIN_DISTINCT` distinct words, and a run
    written as a list (one word a line, or numbered: no 12 words in a row on one line)
    holds a mnemonic whose BIP-39 checksum holds, of its first or last 12, 15, … 24 words.
    BIP-39's 2,048 words include everyday ones (``apple``, ``bread``, ``coffee``,
    ``sugar``…), so a shopping list of them was a seed; a list passes the checksum by
    chance 1 time in 16 (12 words) to 256 (24 words). A run of 12 words on one line
    (blanks or commas between) needs none: prose holds no such run."""
    if not _varied(view, run):
        return False
    inline = longest = 1  # the most words in a row with no list gap between them
    for a, b in itertools.pairwise(run):
        inline = 1 if _LIST_GAP.search(view[a[1] : b[0]]) else inline + 1
        longest = max(longest, inline)
    if longest >= MIN_WORDS:
        return True
    words = [view[a:b].decode("ascii") for a, b in run]
    for n in _LENGTHS:
        if len(words) < n:
            break
        for window in {(0, n), (len(words) - n, len(words))}:
            if _checksum_holds(words[window[0] : window[1]]):
                return True
    return False


def _checksum_holds(words: list[str]) -> bool:
    """BIP-39's checksum of ``words`` (all list words): the last ``len / 3`` bits of their
    11-bit indexes are the first bits of the SHA-256 of the entropy before them."""
    return bool(_mnemonic().check(" ".join(words)))


@functools.cache
def _mnemonic() -> Any:
    """The reference implementation's English ``Mnemonic`` (its checksum check)."""
    from mnemonic import Mnemonic

    return Mnemonic("english")


def _bare_runs(view: bytes, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Each maximal run of :data:`MIN_WORDS`+ list words in ``view[start:end]`` (a run of
    short words) that is a seed (:func:`_seed_like`). A word followed by ``:`` or ``=``
    (after blanks, a quote, markup) is a label (``seed phrase: …``, both list words), never
    part of a run."""
    words = _wordlist()
    marks = bytes(map(words.__contains__, view[start:end].translate(_ONLY_LETTERS).split()))
    if marks.find(_RUN_MARK) < 0:
        return
    run: list[tuple[int, int]] = []
    for m in _LETTERS.finditer(view, start, end):
        after = view[m.end() : m.end() + 8].lstrip(b" \t\"'*_")[:1]
        if m.group() in words and after not in (b":", b"="):
            if run and not _apart(view[run[-1][1] : m.start()]):
                if len(run) >= MIN_WORDS and _seed_like(view, run):
                    out.append((run[0][0], run[-1][1]))
                run = []
            run.append(m.span())
            continue
        if len(run) >= MIN_WORDS and _seed_like(view, run):
            out.append((run[0][0], run[-1][1]))
        run = []
    if len(run) >= MIN_WORDS and _seed_like(view, run):
        out.append((run[0][0], run[-1][1]))


def _labelled_run(view: bytes, start: int, end: int) -> bool:
    """Whether the words of ``view[start:end]`` are at least :data:`LABELLED_SHARE` list
    words."""
    words = _wordlist()
    found = [w in words for w in view[start:end].translate(_ONLY_LETTERS).split()]
    return len(found) >= MIN_WORDS and sum(found) >= LABELLED_SHARE * len(found)


def seed_candidates(view: bytes, out: list[Candidate]) -> None:
    """Add a ``seed_phrase`` candidate for each seed phrase in ``view`` (the text's lowercased
    ASCII view: one byte per character, so offsets are the text's)."""
    short_words, labelled = _patterns()
    spans: list[tuple[int, int]] = []
    if b"<" in view or b"${" in view:
        view = _MARKUP.sub(lambda m: b" " * len(m.group()), view)
    for m in short_words.finditer(view):
        _bare_runs(view, m.start(), m.end(), spans)
    if b"mnemonic" in view or b"seed" in view or b"recovery" in view or b"phrase" in view:
        for m in labelled.finditer(view):
            if _labelled_run(view, m.start(1), m.end(1)):
                spans.append(m.span(1))
    rank = label_rank()[LABEL]
    out.extend(Candidate(rank, s, e, LABEL, (s, e)) for s, e in spans)
