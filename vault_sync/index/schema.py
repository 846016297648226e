"""The index schema: every field, the analyzers, and a page's document.

Part of :mod:`vault_sync.index` (layer 3). The schema is defined once, in :func:`build_schema`.
Every analysis copy of a page's text (CJK unigrams, split code words, whole identifiers) uses a
custom analyzer whose registered name carries :data:`SCHEMA_VERSION`, so an index written with
other analyzers fails to open with :class:`~vault_sync.index.IndexSchemaMismatch` instead of
answering with tokens it never indexed (TECH-NOTES §1.7: custom tokenizers are not persisted;
:func:`register_analyzers` runs on every open). Queries analyze their text with the same
objects (:func:`analyzer`), in :mod:`vault_sync.retrieve`.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from vault_sync.index.section_terms import analyze, encoded
from vault_sync.index.word_pairs import PAIRS_FIELD, pair_text, pairs_analyzer
from vault_sync.plaintext import REDACTED_PATTERN

if TYPE_CHECKING:  # the page model loads with the parser: a query never builds a document
    from vault_sync.page import Page

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
_REDACTED = re.compile(REDACTED_PATTERN)

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
_EN_SIMPLE = "vs_en_simple" + _V

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
#: look-ahead), so ``page_document`` first parts the words at :data:`_ACRONYM_END`.
_CODE_PATTERN = r"\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+"
#: Where a run of capitals ends and a capitalised word begins (``HTTP|Server``,
#: ``XML|HttpRequest``, ``OOM|Killed``): the body's CamelCase words are parted there before
#: :data:`_CODE_PATTERN` reads them, so ``http``, ``xml`` and ``oom`` find them (a fresh
#: user's report). Two lower-case letters after, so a plural acronym (``PRs``, ``APIs``) is
#: left whole.
_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z]{2})")
#: Identifiers kept whole (``atomic_write_json``); letters of any script, so ``café_menu`` is
#: one token rather than ``caf`` + ``_menu``.
_IDENT_PATTERN = r"[\p{L}\p{N}_]+"

#: Kana, Han (with extensions B+), Hangul, Thai, Lao, Myanmar, Khmer: the scripts
#: ``_CJK_PATTERN`` splits. Never compiled as a ``str`` regex (its charset costs ~3 ms to
#: compile, too much for a query process): :func:`has_cjk` matches its UTF-8 bytes.
_CJK_CHARS = (
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff"
    "\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
#: CamelCase: a capital after a lower-case letter, or a run of capitals before a capitalised
#: word (``IOError``, ``OOMKilled``; :data:`_ACRONYM_END`).
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]{2}")
_IDENTIFIER_SHAPE = re.compile(r"_|[a-z][A-Z]|[A-Z][A-Z][a-z]{2}")
#: From the first identifier mark of a word (``_``, a capital after a lower-case letter, or
#: the capital starting a word after a run of capitals: ``_IDENTIFIER_SHAPE``)
#: to the word's end: one C-level search per identifier instead of one per word. The search
#: skips ahead on the ``[_A-Z]`` charset, so prose costs ~5x less than ``\w+`` + a test per
#: word (0.13 s vs 0.68 s over the 10k-page benchmark vault). Leftmost mark first, so each
#: match ends the word that holds it; ``page_document`` walks back to the word's start.
_IDENTIFIER_TAIL = re.compile(r"[_A-Z](?:(?<=_)|(?<=[a-z][A-Z])|(?<=[A-Z][A-Z])(?=[a-z]{2}))\w*")
#: A word read backwards (on the reversed text) from just before an identifier mark.
_WORD_BACK = re.compile(r"\w*")


# --------------------------------------------------------------------------- schema


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
        _EN_SIMPLE: build(t.simple(), limit, f.lowercase(), f.stemmer("english")),
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
_SCHEMA: list[tantivy.Schema] = []


def analyzer(name: str) -> tantivy.TextAnalyzer:
    """The custom analyzer registered as ``name`` (one of the ``*_ANALYZER`` names), built once.

    Raises:
        KeyError: ``name`` is not one of them.
    """
    if not _ANALYZERS:
        _ANALYZERS.update(_analyzers())
    return _ANALYZERS[name]


def schema() -> tantivy.Schema:
    """The schema of :func:`build_schema`, built once per process."""
    if not _SCHEMA:
        _SCHEMA.append(build_schema())
    return _SCHEMA[0]


def build_schema() -> tantivy.Schema:
    """Return the index schema: the one definition of every field.

    Stored fields (returned with hits): ``path`` and ``id`` (raw: exact keys; deletes go by
    ``path``), ``title``, ``aliases``, ``tags`` (raw, lowercased when indexed, for filters),
    ``kind``, ``project``, ``status``, ``valid_from``, ``valid_to`` (raw), ``body``,
    ``hash`` (raw) and ``generation`` (u64, indexed and fast); stored only: ``sections``
    (bytes: the body's sections analyzed for the passage scorer,
    :func:`vault_sync.index.section_terms.encode`).

    Search-only fields: ``tag_filter`` (each tag and the tags it is nested in, raw, for
    ``--tag``), ``headings``, ``tags_text``, ``name`` (the file stem, case R1) and
    ``metadata`` (string values of frontmatter keys the model does not interpret, issue 16),
    English-stemmed like ``title`` and ``body``; ``names_cjk`` (title and aliases),
    ``name_cjk``, ``metadata_cjk`` and ``body_cjk`` (CJK unigrams, case S2),
    ``body_code`` (snake_case and CamelCase parts), ``body_ident`` (identifiers whole, S3);
    ``word_pairs`` (adjacent English words of the body, title, aliases and headings, coded:
    only narrows a phrase's pages, :mod:`vault_sync.index.word_pairs`).
    """
    sb = tantivy.SchemaBuilder()
    for name in ("path", "id"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    for name in ("title", "aliases"):
        sb.add_text_field(name, stored=True, tokenizer_name=EN_ANALYZER)
    sb.add_text_field("headings", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("headings_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("tags", stored=True, tokenizer_name=KEYWORD_ANALYZER)
    sb.add_text_field("tag_filter", tokenizer_name=KEYWORD_ANALYZER)
    sb.add_text_field("tags_text", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("name", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("name_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("metadata", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("metadata_cjk", tokenizer_name=CJK_ANALYZER)
    for name in ("kind", "project", "status", "valid_from", "valid_to"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    sb.add_text_field("body", stored=True, tokenizer_name=EN_ANALYZER)
    sb.add_text_field("names_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("body_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("body_code", tokenizer_name=CODE_ANALYZER)
    sb.add_text_field("body_ident", tokenizer_name=IDENT_ANALYZER)
    sb.add_text_field(PAIRS_FIELD, tokenizer_name=PAIRS_ANALYZER, index_option="basic")
    sb.add_text_field("hash", stored=True, tokenizer_name="raw")
    sb.add_bytes_field("sections", stored=True)
    sb.add_unsigned_field("generation", stored=True, indexed=True, fast=True)
    return sb.build()


#: Bytes of stored documents compressed together (tantivy's ``docstore_blocksize``; its
#: default 16384). Reading one stored document decompresses its whole block, and a query
#: reads ~75 documents of ~4.5 kB scattered over the index (the lexical stream's ~50 for
#: their sections, the graph's pages, the hits): at 10k generated pages 4096 read a random
#: document in 16.0 us where 16384 took 21.0 (2048: 16.3), the store 7% bigger (23.1 vs
#: 21.5 MB); no compression read in 13.9 us with a store 86% bigger.
DOCSTORE_BLOCK_BYTES = 4096


def create_index(path: Path) -> None:
    """Create the index at ``path`` (an empty folder) with blocks of
    :data:`DOCSTORE_BLOCK_BYTES`: tantivy-py sets no index setting, so the new index's
    ``meta.json`` (no segment yet) gets it before the index is opened; tantivy reads its
    settings from there, and every segment written or merged later uses them (a segment's
    store records its own block size, so older indexes read as before)."""
    tantivy.Index(schema(), path=str(path), reuse=True)  # writes meta.json
    meta_file = path / "meta.json"
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    meta["index_settings"]["docstore_blocksize"] = DOCSTORE_BLOCK_BYTES
    temp = path / "meta.json.tmp"
    temp.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(temp, meta_file)


def register_analyzers(index: tantivy.Index) -> None:
    """Register the custom analyzers on an opened index (needed on EVERY open).

    tantivy does not persist custom tokenizers: without this, adds fail at commit and
    searches fail (TECH-NOTES §1.7).
    """
    names = (EN_ANALYZER, CJK_ANALYZER, CODE_ANALYZER, IDENT_ANALYZER, KEYWORD_ANALYZER)
    for name in (*names, PAIRS_ANALYZER):
        index.register_tokenizer(name, analyzer(name))


def page_document(page: Page, content_hash: str, generation: int) -> tantivy.Document:
    """Return the index document of a page (:func:`document_fields` with its generation).

    Args:
        page: the parsed page (its ``body`` already sanitized by the caller).
        content_hash: the hash of the file's bytes, as the sidecar stores it.
        generation: the generation of the batch that writes it (>= 0).

    Raises:
        ValueError: a value does not fit its field (a negative generation).
    """
    return make_document(document_fields(page, content_hash), generation)


def make_document(fields: dict[str, Any], generation: int) -> tantivy.Document:
    """The document of :func:`document_fields` ``fields``, written by ``generation`` (>= 0).

    Raises:
        ValueError: a value does not fit its field (a negative generation).
    """
    return tantivy.Document.from_dict({**fields, "generation": generation}, schema())


def document_fields(page: Page, content_hash: str) -> dict[str, Any]:
    """Return the index fields of a page, but its generation: ``{field name: str | list[str]}``
    of plain values (built in worker processes during large syncs; see :func:`make_document`).

    Args:
        page: the parsed page (its ``body`` already sanitized by the caller).
        content_hash: the hash of the file's bytes, as the sidecar stores it.
    """
    names = [page.title, *page.aliases]
    stem = file_stem(page.path)
    # The analysis copies hold only what the English copy cannot match, which keeps indexing
    # ~3x faster (the regex tokenizers cost 0.1-0.2 ms per 1.5 kB page): identifiers
    # (snake_case or CamelCase words) for body_ident, CamelCase words for body_code (the
    # English analyzer already splits snake_case), the body for body_cjk only if it has CJK.
    # Same list as [w for w in re.findall(r"\w+", body) if is_identifier(w)], found
    # without a Python step per word (speed: see _IDENTIFIER_TAIL).
    body, backwards = page.body, ""
    if "[REDACTED:" in body:  # our tokens' labels are no identifiers (`github_token`)
        body = _REDACTED.sub(lambda m: " " * len(m.group()), body)
    idents: list[str] = []
    for m in _IDENTIFIER_TAIL.finditer(body):
        backwards = backwards or body[::-1]  # reversed once, for the pages that need it
        head = _WORD_BACK.match(backwards, len(body) - m.start())  # always matches (\w*)
        idents.append(body[len(body) - (head.end() if head else 0) : m.end()])
    camel = [w for w in idents if _CAMEL.search(w)]
    analyzed = analyze(page.body, _section_analyzers(page.body))  # the tokens as one unit
    fields: dict[str, Any] = {
        "path": page.path,
        "id": page.id,
        "title": page.title,
        "aliases": list(page.aliases),
        "headings": [h.text for h in page.headings],
        "headings_cjk": [h.text for h in page.headings if has_cjk(h.text)],
        "tags": list(page.tags),
        "tag_filter": tag_ancestors(page.tags),
        "tags_text": list(page.tags),
        "name": stem,
        "name_cjk": stem if has_cjk(stem) else "",
        "metadata": list(page.metadata),
        "metadata_cjk": [m for m in page.metadata if has_cjk(m)],
        "kind": page.kind,
        "status": page.status,
        "body": page.body,
        "names_cjk": names,
        "body_cjk": page.body if has_cjk(page.body) else "",
        "body_code": _ACRONYM_END.sub(" ", " ".join(camel)),
        "body_ident": " ".join(idents),
        "hash": content_hash,
        "sections": encoded(analyzed),
        PAIRS_FIELD: _pairs(page, analyzed[0]),
    }
    for key in ("project", "valid_from", "valid_to"):
        value = getattr(page, key)
        if value is not None:
            fields[key] = value
    return fields


def _pairs(page: Page, body: list[list[str]]) -> list[str]:
    """The ``word_pairs`` values of a page (:mod:`vault_sync.index.word_pairs`): the words of
    its body (from its analyzed sections), of its title and aliases, of its headings; the
    values of a field joined, so a pair across two of them is there too."""
    names = _en_words("\n".join((page.title, *page.aliases)))  # one call: a line break
    headings = _en_words("\n".join(h.text for h in page.headings))  # only separates words
    return [pair_text(itertools.chain.from_iterable(body)), pair_text(names), pair_text(headings)]


def _en_words(text: str) -> list[str]:
    """``text`` analyzed as the English fields are (the simple tokenizer's same words where
    it holds no token of ours: :data:`_EN_SIMPLE`)."""
    return analyzer(EN_ANALYZER if "[REDACTED:" in text else _EN_SIMPLE).analyze(text)


def _section_analyzers(body: str) -> list[tantivy.TextAnalyzer]:
    """The analyzers of the ``sections`` field (:mod:`vault_sync.passages` looks for the
    words of ``body`` and ``body_cjk`` in a section): English, and CJK for a CJK body."""
    en = EN_ANALYZER if "[REDACTED:" in body else _EN_SIMPLE  # the same words, faster
    names = [en, CJK_ANALYZER] if has_cjk(body) else [en]
    return [analyzer(name) for name in names]


def tag_ancestors(tags: Sequence[str]) -> list[str]:
    """Each tag and the tags it is nested in (``a/b/c`` -> ``a/b/c``, ``a/b``, ``a``), for the
    ``--tag`` filter: Obsidian's tag search finds ``#a/b`` under ``a``."""
    out: dict[str, None] = {}
    for tag in tags:
        parts = tag.split("/")
        out.update(dict.fromkeys("/".join(parts[: i + 1]) for i in range(len(parts)) if parts[i]))
    return list(out)


def file_stem(path: str) -> str:
    """The file name of a vault-relative path without its extension, NFC (``Summer 2021``)."""
    name = path.rsplit("/", 1)[-1]
    base, dot, _ext = name.rpartition(".")
    return unicodedata.normalize("NFC", base if dot and base else name)


def has_cjk(text: str) -> bool:
    """True when ``text`` holds a character of a script the CJK analyzer splits (Kana, Han,
    Hangul, Thai, Lao, Myanmar, Khmer: :data:`_CJK_CHARS`)."""
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
    """:data:`_CJK_CHARS` as a pattern over UTF-8 bytes: the same matches, compiled in
    ~0.5 ms where the ``str`` charset takes ~3 ms (its Han and Hangul ranges are set one
    code point at a time by ``re``'s compiler; byte classes have at most 256). Every
    alternative starts with one lead byte, so ``re`` scans for the set of them in C and
    skips other text as fast as the ``str`` charset does."""
    chars = _CJK_CHARS[1:-1]
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


def stored_text(doc: tantivy.Document, field: str) -> str:
    """The first stored text of ``field`` in a document, or ``""``."""
    value = doc.get_first(field)
    return str(value) if value is not None else ""
