"""The index's analyzers: how each copy of a page's text is cut into terms, versioned.

Part of :mod:`vault_sync.index` (layer 3). Every analysis copy of a page's text (English words,
CJK unigrams, split code words, whole identifiers, tags) uses a custom analyzer whose
registered name carries :data:`SCHEMA_VERSION`, so an index written with other analyzers fails
to open with :class:`~vault_sync.index.IndexSchemaMismatch` instead of answering with tokens
it never indexed (TECH-NOTES §1.7: custom tokenizers are not persisted;
:func:`~vault_sync.index.schema.register_analyzers` runs on every open). Queries analyze their
text with the same objects (:func:`analyzer`), in :mod:`vault_sync.retrieve`. Also the text
tests both sides share: :func:`has_cjk` (a script the CJK analyzer splits) and
:func:`is_identifier`.
"""

from __future__ import annotations

import functools
import re

import tantivy

from vault_sync.index.word_pairs import pairs_analyzer
from vault_sync.plaintext import REDACTED_PATTERN

#: Bump when a field, an analyzer or the document layout changes. The sidecar stores it, and
#: the analyzer names below carry it, so an index of another version fails to open.
SCHEMA_VERSION = 10

#: Longest token indexed, in UTF-8 bytes (tantivy's ``remove_long``), the same in every word
#: analyzer at index and query time. A limit exists because tantivy silently drops terms over
#: 65,530 bytes, and a long unbroken run (a base64 blob, minified data) is never typed as a
#: query but bloats the term dictionary; 256 keeps every real word: a 40-hex git SHA, a SHA-512
#: in hex (128), ``Pneumonoultramicroscopicsilicovolcanoconiosis`` (45), long compounds.
#: tantivy's built-in analyzers drop tokens of 40 bytes or more, which made those unsearchable.
MAX_TOKEN_BYTES = 256

#: Our redaction token, one unit in every text analyzer (schema 10): the words of its label
#: (``[REDACTED:github_token]``: redacted, github, token) are never indexed, so a page that
#: held a secret is not found by ``github token`` or ``REDACTED`` (fresh-user report). The
#: stored text keeps the token; its one term is never a query's: a query drops our tokens
#: (:mod:`vault_sync.retrieve`).
_TOKEN_UNIT = REDACTED_PATTERN + "|"
#: tantivy's ``simple`` tokenizer as a regex (a run of ``char::is_alphanumeric``: Unicode
#: Alphabetic or Numeric), with our token first: the same words for any other text.
_EN_PATTERN = _TOKEN_UNIT + r"[\p{Alphabetic}\p{N}]+"

_V = f"_v{SCHEMA_VERSION}"
#: Registered analyzer names (versioned, see the module docstring).
EN_ANALYZER = "vs_en" + _V
CJK_ANALYZER = "vs_cjk" + _V
CODE_ANALYZER = "vs_code" + _V
IDENT_ANALYZER = "vs_ident" + _V
KEYWORD_ANALYZER = "vs_keyword" + _V
PAIRS_ANALYZER = "vs_pairs" + _V
#: tantivy's ``simple`` tokenizer in place of :data:`_EN_PATTERN`: the same words for a text
#: without our token, 4x faster (tantivy's regex tokenizer costs ~45 ms per MB more). Never
#: registered: the sections of a page without a token are analyzed with it.
EN_SIMPLE_ANALYZER = "vs_en_simple" + _V

#: CJK unigrams, other letters/digits as whole words (TECH-NOTES §1.7, verified on S2), and
#: one separator token for each run of other characters (punctuation, symbols, blanks).
#: A CJK word is found as a phrase of unigrams, which must match only characters that are
#: truly adjacent in the text: the separator tokens take positions, so ``乙丙`` does not match
#: ``甲乙。丙丁``, ``| 巨人 | 矮人 |`` or two paragraphs (the tokenizer numbers its matches, so
#: a character no alternative matched would leave its neighbours adjacent). One token per run
#: rather than per character: as correct, and 17% fewer tokens on dnd-srd-zh (its tables).
#: Marks (``\p{M}``) stay inside words. Hangul is split into syllables too (schema 3): a
#: Korean compound is written without spaces (``기억`` inside ``장기기억동기화``). Thai, Lao,
#: Khmer and Burmese, written without spaces between words, are split into letters, each with
#: its combining marks (vowel signs, tone marks). Queries drop separators and keep their
#: positions (:mod:`vault_sync.retrieve`).
_CJK_PATTERN = (
    r"\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}"
    r"|[\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}--\p{M}]\p{M}*"
    r"|[\p{L}\p{M}\p{N}--\p{Han}--\p{Hiragana}--\p{Katakana}--\p{Hangul}"
    r"--\p{Thai}--\p{Lao}--\p{Khmer}--\p{Myanmar}]+"
    r"|[^\p{L}\p{M}\p{N}\[]+|\["  # `[` apart: our token (first in the analyzer) starts there
)
#: Code words: splits snake_case and CamelCase (``PageAuthority`` -> page, authority). A run
#: of capitals would keep the next capital (``HTTPServer`` -> https, erver: Rust's regex has no
#: look-ahead), so ``page_document`` first parts the words where a run of capitals ends
#: (:mod:`vault_sync.index.schema`).
_CODE_PATTERN = r"\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+"
#: Identifiers kept whole (``atomic_write_json``); letters of any script, so ``café_menu`` is
#: one token rather than ``caf`` + ``_menu``.
_IDENT_PATTERN = r"[\p{L}\p{N}_]+"

#: Kana, Han (with extensions B+), Hangul, Thai, Lao, Myanmar, Khmer: the scripts
#: ``_CJK_PATTERN`` splits. Never compiled as a ``str`` regex (its charset costs ~3 ms to
#: compile, too much for a query process): :func:`has_cjk` matches its UTF-8 bytes.
CJK_CHARS = (
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff"
    "\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
_IDENTIFIER_SHAPE = re.compile(r"_|[a-z][A-Z]|[A-Z][A-Z][a-z]{2}")


# --------------------------------------------------------------------------- analyzers


def _analyzers() -> dict[str, tantivy.TextAnalyzer]:
    """Build the custom analyzers, by registered name."""
    t, f = tantivy.Tokenizer, tantivy.Filter
    limit = f.remove_long(MAX_TOKEN_BYTES)

    def build(tokenizer: tantivy.Tokenizer, *filters: tantivy.Filter) -> tantivy.TextAnalyzer:
        builder = tantivy.TextAnalyzerBuilder(tokenizer)
        for one in filters:
            builder = builder.filter(one)
        return builder.build()

    return {
        # tantivy's built-in en_stem with a longer token limit and our token as one unit, so
        # queries are analyzed by the same object.
        EN_ANALYZER: build(t.regex(_EN_PATTERN), limit, f.lowercase(), f.stemmer("english")),
        EN_SIMPLE_ANALYZER: build(t.simple(), limit, f.lowercase(), f.stemmer("english")),
        CJK_ANALYZER: build(
            t.regex(_TOKEN_UNIT + _CJK_PATTERN), limit, f.lowercase(), f.ascii_fold()
        ),
        CODE_ANALYZER: build(t.regex(_CODE_PATTERN), limit, f.lowercase(), f.stemmer("english")),
        IDENT_ANALYZER: build(t.regex(_IDENT_PATTERN), limit, f.lowercase()),
        # tags are whole filter keys, matched by a term query on the whole value: no limit
        # short of tantivy's own, or a long tag could never be filtered on.
        KEYWORD_ANALYZER: build(t.raw(), f.lowercase()),
        PAIRS_ANALYZER: pairs_analyzer(),
    }


_ANALYZERS: dict[str, tantivy.TextAnalyzer] = {}


def analyzer(name: str) -> tantivy.TextAnalyzer:
    """The custom analyzer registered as ``name`` (one of the ``*_ANALYZER`` names), built once.

    Raises:
        KeyError: ``name`` is not one of them.
    """
    if not _ANALYZERS:
        _ANALYZERS.update(_analyzers())
    return _ANALYZERS[name]


def has_cjk(text: str) -> bool:
    """True when ``text`` holds a character of a script the CJK analyzer splits (Kana, Han,
    Hangul, Thai, Lao, Myanmar, Khmer: :data:`CJK_CHARS`)."""
    if text.isascii():
        return False
    search = _cjk_bytes().search
    # the head first: a CJK page holds such a character early, and encoding it is cheap
    if search(text[:_HEAD].encode("utf-8", "surrogatepass")) is not None:
        return True
    return len(text) > _HEAD and search(text[_HEAD:].encode("utf-8", "surrogatepass")) is not None


#: Characters of a text :func:`has_cjk` looks at first.
_HEAD = 256


@functools.cache
def _cjk_bytes() -> re.Pattern[bytes]:
    """:data:`CJK_CHARS` as a pattern over UTF-8 bytes: the same matches, compiled in
    ~0.5 ms where the ``str`` charset takes ~3 ms (its Han and Hangul ranges are set one
    code point at a time by ``re``'s compiler; byte classes have at most 256). Every
    alternative starts with one lead byte, so ``re`` scans for the set of them in C and
    skips other text as fast as the ``str`` charset does."""
    chars = CJK_CHARS[1:-1]
    ranges = [(ord(chars[i]), ord(chars[i + 2])) for i in range(0, len(chars), 3)]
    alternatives = (
        f"\\x{lead:02x}" + "".join(f"[\\x{a:02x}-\\x{b:02x}]" for a, b in rest)
        for low, high in ranges
        for (first, last), *rest in _utf8_sequences(low, high)
        for lead in range(first, last + 1)
    )
    return re.compile("|".join(alternatives).encode("ascii"))


def _utf8_sequences(low: int, high: int) -> list[list[tuple[int, int]]]:
    """The code points ``low..high`` (no surrogates) as UTF-8 byte-range sequences: each a
    list of ``(first, last)`` byte ranges, one per byte, whose product is a run of the
    code points' encodings (the split RE2 and Rust's ``utf8-ranges`` make)."""
    for bound in (0x7F, 0x7FF, 0xFFFF):  # one encoded length per run
        if low <= bound < high:
            return _utf8_sequences(low, bound) + _utf8_sequences(bound + 1, high)
    for shift in (6, 12, 18):  # ranges aligned on the trailing bytes' boundaries
        mask = (1 << shift) - 1
        if low & ~mask != high & ~mask:
            if low & mask:
                return _utf8_sequences(low, low | mask) + _utf8_sequences((low | mask) + 1, high)
            if high & mask != mask:
                split = high & ~mask
                return _utf8_sequences(low, split - 1) + _utf8_sequences(split, high)
    first, last = chr(low).encode("utf-8"), chr(high).encode("utf-8")
    return [list(zip(first, last, strict=True))]


def is_identifier(text: str) -> bool:
    """True for snake_case or CamelCase text: the words indexed whole in ``body_ident``."""
    return _IDENTIFIER_SHAPE.search(text) is not None
