"""The tantivy full-text index of the vault: one document per page, keyed by its path.

Layer 3 (DESIGN §3, STYLE): imports :mod:`vault_sync.errors` and :mod:`vault_sync.page` only,
and ``tantivy`` is its one heavy import, because this module is on the fast-starting ``query``
path.

The schema is defined once, in :func:`build_schema`. Every analysis copy of a page's text
(CJK unigrams, split code words, whole identifiers) uses a custom analyzer whose registered name
carries :data:`SCHEMA_VERSION`, so an index written with other analyzers fails to open with
:class:`IndexSchemaMismatch` instead of answering with tokens it never indexed (TECH-NOTES §1.7:
custom tokenizers are not persisted; :func:`register_analyzers` runs on every open).

Queries are built from user text in one place, :func:`build_query`; user text never reaches
tantivy's query-string parser, so ``:``, ``(`` or ``*`` are plain punctuation, not syntax.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from vault_sync.errors import (
    IndexBusyError,
    IndexCorruptError,
    IndexSchemaMismatch,
    QuerySyntaxError,
    StoreError,
)
from vault_sync.page import Page

logger = logging.getLogger(__name__)

#: Bump when a field, an analyzer or the document layout changes. The sidecar stores it, and
#: the analyzer names below carry it, so an index of another version fails to open.
SCHEMA_VERSION = 2

#: Writer heap in bytes: tantivy needs >= 15 MB per thread (TECH-NOTES §1.1); 64 MB holds a
#: batch of thousands of pages before tantivy flushes a segment on its own.
WRITER_HEAP_BYTES = 64_000_000
#: How long a writer waits for another process's tantivy writer (finishing merges), seconds.
WRITER_BUSY_WAIT_S = 10.0
#: Writers held open by this process between batches (index path -> tantivy IndexWriter).
_HELD: dict[str, Any] = {}
#: Writers with adds not yet committed, between the batches of a store set being built
#: (:meth:`PageIndex.batch` ``commit=False``); never released by :func:`release_held`.
_UNCOMMITTED: dict[str, Any] = {}


def release_held() -> None:
    """Finish and drop every writer this process holds (:meth:`PageIndex.batch` ``hold``):
    waits for their merges, which releases tantivy's lock for other processes."""
    while _HELD:
        path, raw = _HELD.popitem()
        raw.wait_merging_threads()
        share_files(Path(path))


def _open_shadow(path: Path, exc: ValueError) -> tantivy.Index:
    """Open, for reading, an index whose folder this user cannot write (a store made by
    another user, a read-only mount): tantivy takes a lock even to read, on a file it must
    open for writing. A private folder of symlinks to the index's files (never its lock
    files) gives it lock files of its own; segment files are immutable, so reading them
    through links is safe. The folder goes when the process exits.

    Raises:
        PermissionError: a file of the index cannot be read by this user either.
    """
    import atexit
    import shutil
    import tempfile

    shadow = Path(tempfile.mkdtemp(prefix="vault-sync-index-"))
    atexit.register(shutil.rmtree, shadow, True)
    for file in path.iterdir():
        if not file.name.startswith(".tantivy-"):
            if not os.access(file, os.R_OK):
                raise PermissionError(f"{file.name} is not readable") from exc
            (shadow / file.name).symlink_to(file)
    return tantivy.Index(_schema(), path=str(shadow), reuse=True)


#: tantivy's own files that it writes atomically through a private (mode 0600) temp file.
_PRIVATE_FILES = ("meta.json", ".managed.json")


def share_files(path: Path) -> None:
    """Give tantivy's ``meta.json`` and ``.managed.json`` the read permissions of the index
    folder (0755 -> 0644, 0700 -> 0600): tantivy writes them mode 0600, so a store made by
    one user could not be read by any other, even where its folder lets them read."""
    try:
        mode = path.stat().st_mode & 0o666
        for name in _PRIVATE_FILES:
            file = path / name
            if file.exists() and file.stat().st_mode & 0o777 != mode:
                file.chmod(mode)
    except OSError:
        pass  # a courtesy to other users; never fails a write


def discard_uncommitted(path: Path) -> None:
    """Roll back and drop the uncommitted writer of the index at ``path``, if this process
    holds one (a store set whose build failed between batches); releases tantivy's lock."""
    raw = _UNCOMMITTED.pop(str(path), None)
    if raw is not None:
        raw.rollback()
        raw.wait_merging_threads()


#: One indexing thread: a 2-thread writer made single updates slower (16.2 vs 9.8 ms,
#: TECH-NOTES §6 (f)) and doubles the segments of a rebuild.
WRITER_THREADS = 1

#: BM25 parameters. tantivy fixes them (TECH-NOTES §1.5, read from ``explain``); stated here
#: so ``--explain`` can show them.
BM25_K1 = 1.2
BM25_B = 0.75

#: Field boosts (DESIGN §5.1: title, aliases > headings, tags > body). Initial values, to be
#: tuned by ``eval``. ``name`` (the file stem) sits a little below the title: it is found even
#: when the title says something else (case R1). ``body_ident`` is the exact-identifier boost;
#: ``body_code`` (CamelCase and snake_case parts) is weaker evidence than a whole word, so it
#: sits below ``body``.
FIELD_BOOSTS: dict[str, float] = {
    "title": 3.0,
    "aliases": 3.0,
    "names_cjk": 3.0,
    "name": 2.0,
    "name_cjk": 2.0,
    "headings": 2.0,
    "tags_text": 2.0,
    "body": 1.0,
    "body_cjk": 1.0,
    "body_code": 0.8,
    "body_ident": 2.0,
}
#: Fields added to a clause's score in full rather than through its disjunction-max: a page
#: holding the typed identifier literally gains its whole boosted score (case S3).
BONUS_FIELDS = frozenset({"body_ident"})
#: Boost of the exact phrase when a typed word splits into several tokens
#: (``atomic_write_json`` -> atomic, write, json), over the parts OR-ed in ``body``. Initial
#: value, to be tuned by ``eval``.
PHRASE_BOOST = 1.5
#: Each clause scores ``max(field scores) + TIE_BREAKER * (sum of the other field scores)``
#: (a disjunction-max, as Lucene's ``dis_max``), so one word indexed in five analysis copies of
#: the body is not counted five times. Initial value, to be tuned by ``eval``.
TIE_BREAKER = 0.2

#: Longest snippet in characters (about two lines of a terminal).
SNIPPET_MAX_CHARS = 160
#: Marks a snippet that starts after the body's start or ends before its end (case S1): only
#: when the text left out holds a letter or digit, not just punctuation or blanks.
ELLIPSIS = "…"

#: Longest token indexed, in UTF-8 bytes (tantivy's ``remove_long``), the same in every word
#: analyzer at index and query time. A limit exists because tantivy silently drops terms over
#: 65,530 bytes, and a long unbroken run (a base64 blob, minified data) is never typed as a
#: query but bloats the term dictionary; 256 keeps every real word: a 40-hex git SHA, a SHA-512
#: in hex (128), ``Pneumonoultramicroscopicsilicovolcanoconiosis`` (45), long compounds.
#: tantivy's built-in analyzers drop tokens of 40 bytes or more, which made those unsearchable.
MAX_TOKEN_BYTES = 256

_V = f"_v{SCHEMA_VERSION}"
#: Registered analyzer names (versioned, see the module docstring).
EN_ANALYZER = "vs_en" + _V
CJK_ANALYZER = "vs_cjk" + _V
CODE_ANALYZER = "vs_code" + _V
IDENT_ANALYZER = "vs_ident" + _V
KEYWORD_ANALYZER = "vs_keyword" + _V

#: CJK unigrams, other letters/digits as whole words (TECH-NOTES §1.7, verified on S2), and
#: one separator token for each run of other characters (punctuation, symbols, blanks).
#: A CJK word is found as a phrase of unigrams, which must match only characters that are
#: truly adjacent in the text: the separator tokens take positions, so ``乙丙`` does not match
#: ``甲乙。丙丁``, ``| 巨人 | 矮人 |`` or two paragraphs (the tokenizer numbers its matches, so
#: a character no alternative matched would leave its neighbours adjacent). One token per run
#: rather than per character: as correct, and 17% fewer tokens on dnd-srd-zh (its tables).
#: Marks (``\p{M}``) stay inside words. Queries drop separators and keep their positions
#: (:func:`_positioned`).
_CJK_PATTERN = (
    r"\p{Han}|\p{Hiragana}|\p{Katakana}|\p{Hangul}+"
    r"|[\p{L}\p{M}\p{N}--\p{Han}--\p{Hiragana}--\p{Katakana}--\p{Hangul}]+"
    r"|[^\p{L}\p{M}\p{N}]+"
)
#: Code words: splits snake_case and CamelCase (``PageAuthority`` -> page, authority).
#: A run of capitals keeps the next capital (``HTTPServer`` -> https, erver): Rust's regex has
#: no look-ahead to do better.
_CODE_PATTERN = r"\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+"
#: Identifiers kept whole (``atomic_write_json``); letters of any script, so ``café_menu`` is
#: one token rather than ``caf`` + ``_menu``.
_IDENT_PATTERN = r"[\p{L}\p{N}_]+"

#: Kana, Han (with extensions B+), Hangul: the scripts ``_CJK_PATTERN`` splits. Compiled on
#: first use of non-ASCII text: its charset costs ~3 ms to compile, too much for every query.
_CJK_CHARS = (
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)
_WORD = re.compile(r"\w+")
#: A letter or digit: text left out of a snippet holding one is really cut.
_LETTER = re.compile(r"[^\W_]")
#: Punctuation attached to a snippet's last word.
_ATTACHED = re.compile(r"[^\w\s]+")
_CAMEL = re.compile(r"[a-z][A-Z]")
_IDENTIFIER_SHAPE = re.compile(r"_|[a-z][A-Z]")
#: From the first identifier mark of a word (``_``, or a capital after a lower-case letter)
#: to the word's end: one C-level search per identifier instead of one per word. The search
#: skips ahead on the ``[_A-Z]`` charset, so prose costs ~5x less than ``\w+`` + a test per
#: word (0.13 s vs 0.68 s over the 10k-page benchmark vault). Leftmost mark first, so each
#: match ends the word that holds it; ``page_document`` walks back to the word's start.
_IDENTIFIER_TAIL = re.compile(r"[_A-Z](?:(?<=_)|(?<=[a-z][A-Z]))\w*")
#: A word read backwards (on the reversed text) from just before an identifier mark.
_WORD_BACK = re.compile(r"\w*")
#: One clause of user text: an optional ``-`` and a quoted phrase or a run of non-blanks.
_CLAUSE = re.compile(r'(-?)"([^"]*)"|(-?)([^\s"]+)')
#: Segment files are named ``<32 hex digits>.<ext>`` (TECH-NOTES §1.1 layout).
_SEGMENT_FILE = re.compile(r"^[0-9a-f]{32}\.")
_FOOTER_MAGIC = 1337  # tantivy's footer magic number (``0x539``), after the JSON footer


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
        # tantivy's built-in en_stem with a longer token limit, so queries are analyzed by the
        # same object.
        EN_ANALYZER: build(t.simple(), limit, f.lowercase(), f.stemmer("english")),
        CJK_ANALYZER: build(t.regex(_CJK_PATTERN), limit, f.lowercase(), f.ascii_fold()),
        CODE_ANALYZER: build(t.regex(_CODE_PATTERN), limit, f.lowercase(), f.stemmer("english")),
        IDENT_ANALYZER: build(t.regex(_IDENT_PATTERN), limit, f.lowercase()),
        # tags are whole filter keys, matched by a term query on the whole value: no limit
        # short of tantivy's own, or a long tag could never be filtered on.
        KEYWORD_ANALYZER: build(t.raw(), f.lowercase()),
    }


_ANALYZERS: dict[str, tantivy.TextAnalyzer] = {}
_SCHEMA: list[tantivy.Schema] = []


def _analyzer(name: str) -> tantivy.TextAnalyzer:
    if not _ANALYZERS:
        _ANALYZERS.update(_analyzers())
    return _ANALYZERS[name]


def _schema() -> tantivy.Schema:
    if not _SCHEMA:
        _SCHEMA.append(build_schema())
    return _SCHEMA[0]


def build_schema() -> tantivy.Schema:
    """Return the index schema: the one definition of every field.

    Stored fields (returned with hits): ``path`` and ``id`` (raw: exact keys; deletes go by
    ``path``), ``title``, ``aliases``, ``tags`` (raw, lowercased when indexed, for filters),
    ``kind``, ``project``, ``status``, ``valid_from``, ``valid_to`` (raw), ``body``,
    ``hash`` (raw) and ``generation`` (u64, indexed and fast).

    Search-only fields: ``headings``, ``tags_text`` and ``name`` (the file stem, case R1),
    English-stemmed like ``title`` and ``body``; ``names_cjk`` (title and aliases), ``name_cjk``
    and ``body_cjk`` (CJK unigrams, case S2),
    ``body_code`` (snake_case and CamelCase parts), ``body_ident`` (identifiers whole, S3).
    """
    sb = tantivy.SchemaBuilder()
    for name in ("path", "id"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    for name in ("title", "aliases"):
        sb.add_text_field(name, stored=True, tokenizer_name=EN_ANALYZER)
    sb.add_text_field("headings", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("tags", stored=True, tokenizer_name=KEYWORD_ANALYZER)
    sb.add_text_field("tags_text", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("name", tokenizer_name=EN_ANALYZER)
    sb.add_text_field("name_cjk", tokenizer_name=CJK_ANALYZER)
    for name in ("kind", "project", "status", "valid_from", "valid_to"):
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    sb.add_text_field("body", stored=True, tokenizer_name=EN_ANALYZER)
    sb.add_text_field("names_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("body_cjk", tokenizer_name=CJK_ANALYZER)
    sb.add_text_field("body_code", tokenizer_name=CODE_ANALYZER)
    sb.add_text_field("body_ident", tokenizer_name=IDENT_ANALYZER)
    sb.add_text_field("hash", stored=True, tokenizer_name="raw")
    sb.add_unsigned_field("generation", stored=True, indexed=True, fast=True)
    return sb.build()


def register_analyzers(index: tantivy.Index) -> None:
    """Register the custom analyzers on an opened index (needed on EVERY open).

    tantivy does not persist custom tokenizers: without this, adds fail at commit and
    searches fail (TECH-NOTES §1.7).
    """
    for name in (EN_ANALYZER, CJK_ANALYZER, CODE_ANALYZER, IDENT_ANALYZER, KEYWORD_ANALYZER):
        index.register_tokenizer(name, _analyzer(name))


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
    return tantivy.Document.from_dict({**fields, "generation": generation}, _schema())


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
    # Same list as [w for w in _WORD.findall(body) if _IDENTIFIER_SHAPE.search(w)], found
    # without a Python step per word (speed: see _IDENTIFIER_TAIL).
    body, backwards = page.body, ""
    idents: list[str] = []
    for m in _IDENTIFIER_TAIL.finditer(body):
        backwards = backwards or body[::-1]  # reversed once, for the pages that need it
        head = _WORD_BACK.match(backwards, len(body) - m.start())  # always matches (\w*)
        idents.append(body[len(body) - (head.end() if head else 0) : m.end()])
    camel = [w for w in idents if _CAMEL.search(w)]
    fields: dict[str, Any] = {
        "path": page.path,
        "id": page.id,
        "title": page.title,
        "aliases": list(page.aliases),
        "headings": [h.text for h in page.headings],
        "tags": list(page.tags),
        "tags_text": list(page.tags),
        "name": stem,
        "name_cjk": stem if _has_cjk(stem) else "",
        "kind": page.kind,
        "status": page.status,
        "body": page.body,
        "names_cjk": names,
        "body_cjk": page.body if _has_cjk(page.body) else "",
        "body_code": " ".join(camel),
        "body_ident": " ".join(idents),
        "hash": content_hash,
    }
    for key in ("project", "valid_from", "valid_to"):
        value = getattr(page, key)
        if value is not None:
            fields[key] = value
    return fields


def file_stem(path: str) -> str:
    """The file name of a vault-relative path without its extension, NFC (``Summer 2021``)."""
    name = path.rsplit("/", 1)[-1]
    base, dot, _ext = name.rpartition(".")
    return unicodedata.normalize("NFC", base if dot and base else name)


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class FieldQuery:
    """One field's part of one clause, kept for ``explain``.

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
    """

    query: tantivy.Query
    parts: tuple[FieldQuery, ...]
    literals: tuple[str, ...]


@dataclass(frozen=True)
class _SearchField:
    name: str
    analyzer: str
    applies: Callable[[str], bool]


def _always(_text: str) -> bool:
    return True


def _has_cjk(text: str) -> bool:
    return not text.isascii() and re.search(_CJK_CHARS, text) is not None


def _is_identifier(text: str) -> bool:
    return _IDENTIFIER_SHAPE.search(text) is not None


#: Fields a clause searches, and when: CJK copies only for text with CJK characters, the
#: whole-identifier copy only for snake_case or CamelCase text.
_SEARCH_FIELDS: tuple[_SearchField, ...] = (
    _SearchField("title", EN_ANALYZER, _always),
    _SearchField("aliases", EN_ANALYZER, _always),
    _SearchField("headings", EN_ANALYZER, _always),
    _SearchField("tags_text", EN_ANALYZER, _always),
    _SearchField("name", EN_ANALYZER, _always),
    _SearchField("body", EN_ANALYZER, _always),
    _SearchField("names_cjk", CJK_ANALYZER, _has_cjk),
    _SearchField("name_cjk", CJK_ANALYZER, _has_cjk),
    _SearchField("body_cjk", CJK_ANALYZER, _has_cjk),
    _SearchField("body_code", CODE_ANALYZER, _always),
    _SearchField("body_ident", IDENT_ANALYZER, _is_identifier),
)


def _is_separator(token: str) -> bool:
    """A separator token of the CJK analyzer: a run without a letter or digit."""
    return not any(ch.isalnum() for ch in token)


def _positioned(analyzer: str, text: str) -> list[tuple[int, str]]:
    """The searchable tokens of ``text`` with their positions relative to the first one.

    The CJK analyzer's separator tokens are dropped but keep their positions, so ``雾凇：词库``
    matches the two words with one run of non-letters between, whatever it is (``"子丑 寅卯"``
    finds ``子丑`` and ``寅卯`` across a line break or ``，`` as well as a space).
    """
    tokens = _analyzer(analyzer).analyze(text)
    if analyzer != CJK_ANALYZER:
        return list(enumerate(tokens))
    kept = [(i, t) for i, t in enumerate(tokens) if not _is_separator(t)]
    return [(i - kept[0][0], t) for i, t in kept] if kept else []


def _field_query(field: str, tokens: list[tuple[int, str]], *, with_parts: bool) -> tantivy.Query:
    """Term query for one token; phrase for several (plus the parts OR-ed when asked)."""
    schema = _schema()
    if len(tokens) == 1:
        return tantivy.Query.term_query(schema, field, tokens[0][1])
    words: list[str | tuple[int, str]] = [t for _, t in tokens]
    if tokens[-1][0] != len(tokens) - 1:  # a gap left by a separator
        words = list(tokens)
    phrase = tantivy.Query.phrase_query(schema, field, words)
    if not with_parts:
        return phrase
    parts = [
        tantivy.Query.term_query(schema, field, t) for t in dict.fromkeys(t for _, t in tokens)
    ]
    clauses = [(tantivy.Occur.Should, tantivy.Query.boost_query(phrase, PHRASE_BOOST))]
    clauses += [(tantivy.Occur.Should, q) for q in parts]
    return tantivy.Query.boolean_query(clauses)


def _clause_parts(text: str, *, phrase: bool) -> list[FieldQuery]:
    parts = []
    for spec in _SEARCH_FIELDS:
        if not spec.applies(text):
            continue
        tokens = _positioned(spec.analyzer, text)
        if not tokens:
            continue
        with_parts = not phrase and spec.name == "body"
        boost = FIELD_BOOSTS[spec.name]
        query = tantivy.Query.boost_query(
            _field_query(spec.name, tokens, with_parts=with_parts), boost
        )
        parts.append(FieldQuery(text, spec.name, tuple(t for _, t in tokens), boost, query))
    return parts


def _clause_query(parts: list[FieldQuery]) -> tantivy.Query:
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


def build_query(
    text: str,
    *,
    kind: str | None = None,
    project: str | None = None,
    tag: str | None = None,
) -> QueryPlan:
    """Build the query for user text: the one place user input is interpreted.

    Grammar: blank-separated words are OR-ed and ranked by BM25; ``"a quoted phrase"`` must
    match as a phrase; ``-word`` or ``-"a phrase"`` excludes pages. Anything else (``:``,
    ``(``, ``*``, ``+``) is plain text, split away by the analyzers. Each word or phrase is
    searched in every field that applies (see :data:`FIELD_BOOSTS`) and scored as a
    disjunction-max over them (:data:`TIE_BREAKER`), plus the exact-identifier bonus
    (:data:`BONUS_FIELDS`) for snake_case or CamelCase words. A word that splits into several tokens
    (``atomic_write_json``) matches as a phrase (:data:`PHRASE_BOOST`) and, in ``body``, by its
    parts, so pages holding the words apart are found below the exact literal. Filters are
    exact terms that must match and add nothing to the score.

    Args:
        text: the query as the user typed it.
        kind, project, tag: exact filters (``tag`` compared lowercased), or ``None``.

    Raises:
        QuerySyntaxError: an unbalanced ``"``, an empty query, one with no searchable word
            (only punctuation, or only words too long to be indexed), or one that only
            excludes.
    """
    text = unicodedata.normalize("NFC", text)
    if not text.strip():
        raise QuerySyntaxError("empty query: give at least one word to search for")
    if text.count('"') % 2:
        raise QuerySyntaxError(f"unbalanced quote in query: {text.strip()!r}")
    should: list[tantivy.Query] = []
    must: list[tantivy.Query] = []
    must_not: list[tantivy.Query] = []
    plan_parts: list[FieldQuery] = []
    literals: list[str] = []
    too_long: list[str] = []
    for match in _CLAUSE.finditer(text):
        is_phrase = match.group(2) is not None
        exclude = bool(match.group(1) if is_phrase else match.group(3))
        clause = (match.group(2) if is_phrase else match.group(4)).strip()
        # an excluded word is matched exactly: `-atomic_write_json` must not drop pages
        # that merely hold "atomic" or "json"
        parts = _clause_parts(clause, phrase=is_phrase or exclude) if clause else []
        if not parts:
            too_long += [w for w in _WORD.findall(clause) if len(w.encode()) >= MAX_TOKEN_BYTES]
            continue
        if exclude:
            must_not.append(_clause_query(parts))
            continue
        (must if is_phrase else should).append(_clause_query(parts))
        plan_parts += parts
        literals.append(clause)
    if not (should or must):
        if must_not:
            raise QuerySyntaxError(
                "a query needs at least one word to look for; -word only excludes"
            )
        if too_long:
            raise QuerySyntaxError(
                f"words of {MAX_TOKEN_BYTES} bytes or more are not indexed:"
                f" {too_long[0][:40]!r}... ({len(too_long[0].encode())} bytes)"
            )
        raise QuerySyntaxError(f"no searchable words in query: {text.strip()!r}")
    occur = tantivy.Occur
    # phrases must match; of the words, at least one when no phrase
    positive = [(occur.Must, q) for q in must] + [(occur.Should, q) for q in should]
    top = [(occur.Must, tantivy.Query.boolean_query(positive))]
    top += [(occur.MustNot, q) for q in must_not]
    schema = _schema()
    for field, value in (("kind", kind), ("project", project), ("tags", tag)):
        if value is not None:
            term = value.lower() if field == "tags" else value
            exact = tantivy.Query.term_query(schema, field, term)
            top.append((occur.Must, tantivy.Query.const_score_query(exact, 0.0)))
    return QueryPlan(tantivy.Query.boolean_query(top), tuple(plan_parts), tuple(literals))


# --------------------------------------------------------------------------- hits


@dataclass(frozen=True)
class Hit:
    """One search result.

    Attributes:
        path, id, title, kind, project, status, tags: the page's stored fields.
        score: BM25 with field boosts, rounded to 6 decimals.
        snippet: an extract of the body with matches as ``**term**``; ``…`` marks a cut end.
        explain: per matched field, its terms and score, with the boosts used; ``None``
            unless asked for.
    """

    path: str
    id: str
    title: str
    kind: str
    project: str | None
    status: str
    tags: tuple[str, ...]
    score: float
    snippet: str
    explain: dict[str, Any] | None = None


def _render(body_bytes: bytes, start: int, end: int, marks: list[tuple[int, int]]) -> str:
    """Render ``body_bytes[start:end]`` with ``**`` around byte ranges ``marks`` (absolute).

    The end takes in punctuation attached to the last word (tantivy's fragments end on a
    token, so ``vault.`` would lose its period), and :data:`ELLIPSIS` marks a side only when
    the text left out there holds a letter or digit: a body ending ``... vault.`` or starting
    ``# Title`` is not cut.
    """
    attached = _ATTACHED.match(body_bytes[end : end + 16].decode(errors="ignore"))
    if attached:
        end += len(attached.group().encode())
    out: list[str] = []
    pos = start
    for a, b in sorted(marks):
        if a < pos or b > end or a >= b:
            continue
        out += [body_bytes[pos:a].decode(errors="ignore"), "**"]
        out += [body_bytes[a:b].decode(errors="ignore"), "**"]
        pos = b
    out.append(body_bytes[pos:end].decode(errors="ignore"))
    text = " ".join("".join(out).split())
    head = ELLIPSIS if _LETTER.search(body_bytes[:start].decode(errors="ignore")) else ""
    tail = ELLIPSIS if _LETTER.search(body_bytes[end:].decode(errors="ignore")) else ""
    return f"{head}{text}{tail}"


def _fallback_snippet(body: str, literals: tuple[str, ...]) -> str:
    """A window around the first literal occurrence of a query word, else the body's start."""
    found = None
    for literal in literals:
        m = re.search(re.escape(literal), body, re.IGNORECASE)
        if m and (found is None or m.start() < found[0]):
            found = (m.start(), m.end())
    if found is None:
        start, end, marks = 0, min(len(body), SNIPPET_MAX_CHARS), []
    else:
        start = max(0, found[0] - (SNIPPET_MAX_CHARS - (found[1] - found[0])) // 2)
        end = min(len(body), start + SNIPPET_MAX_CHARS)
        marks = [found]
    encoded = body.encode()

    def b(i: int) -> int:
        return len(body[:i].encode())

    return _render(encoded, b(start), b(end), [(b(x), b(y)) for x, y in marks])


def _snippet(generator: tantivy.SnippetGenerator, doc: tantivy.Document, plan: QueryPlan) -> str:
    body = _stored(doc, "body")
    snippet = generator.snippet_from_doc(doc)
    marks = snippet.highlighted()
    if not marks:
        return _fallback_snippet(body, plan.literals)
    frag = snippet.fragment_range()
    return _render(
        body.encode(),
        frag.start,
        frag.end,
        [(frag.start + r.start, frag.start + r.end) for r in marks],
    )


_TERM_CONTEXT = re.compile(r'^Term=Term\(field=\d+, type=Str, "(.*)"\)$')


def _matched_terms(node: dict[str, Any], found: list[str]) -> None:
    for ctx in node.get("context", []):
        m = _TERM_CONTEXT.match(ctx)
        if m and m.group(1) not in found:
            found.append(m.group(1))
    for child in node.get("details", []):
        _matched_terms(child, found)


def _explain(
    plan: QueryPlan, searcher: tantivy.Searcher, addr: tantivy.DocAddress, score: float
) -> dict[str, Any]:
    """Per matched field: its clause, matched terms, boost and boosted BM25 score.

    A clause's score is ``max(fields) + TIE_BREAKER * sum(other fields)`` over its ranked
    fields, plus its :data:`BONUS_FIELDS` scores; the hit's score is the sum over clauses.
    """
    matches: list[dict[str, Any]] = []
    for part in plan.parts:
        try:
            tree = json.loads(part.query.explain(searcher, addr).to_json())
        except ValueError:  # "Document #(n) does not match"
            continue
        terms: list[str] = []
        _matched_terms(tree, terms)
        matches.append(
            {
                "clause": part.clause,
                "field": part.field,
                "terms": terms or list(part.tokens),
                "boost": part.boost,
                "score": round(float(tree["value"]), 6),
            }
        )
    return {
        "score": score,
        "bm25": {"k1": BM25_K1, "b": BM25_B},
        "field_boosts": dict(FIELD_BOOSTS),
        "phrase_boost": PHRASE_BOOST,
        "tie_breaker": TIE_BREAKER,
        "matches": matches,
    }


# --------------------------------------------------------------------------- the index


def _is_panic(exc: BaseException) -> bool:
    """True for pyo3's ``PanicException`` (a BaseException): tantivy panicked on bad data."""
    return type(exc).__name__ == "PanicException"


class Writer:
    """Adds and deletes of one batch; :meth:`PageIndex.batch` commits them once."""

    def __init__(self, writer: tantivy.IndexWriter) -> None:
        self._writer = writer

    def delete(self, path: str) -> None:
        """Delete the page at ``path`` (exact, vault-relative; a missing path is a no-op)."""
        self._writer.delete_documents_by_term("path", path)

    def add(self, page: Page, content_hash: str, generation: int) -> None:
        """Add a page; to replace one, :meth:`delete` its path first in the same batch."""
        self._writer.add_document(page_document(page, content_hash, generation))

    def add_fields(self, fields: dict[str, Any], generation: int) -> None:
        """Add a page given as its :func:`document_fields`; like :meth:`add`."""
        self._writer.add_document(make_document(fields, generation))

    def delete_all(self) -> None:
        """Delete every page."""
        self._writer.delete_all_documents()


class PageIndex:
    """The index folder, opened for search and for batches of writes.

    Open with :meth:`open`. Readers need no lock; a batch opens the tantivy writer and drops it
    after its commit, so the index's OS lock is held only while a batch is applied
    (TECH-NOTES §7).
    """

    def __init__(self, path: Path, index: tantivy.Index) -> None:
        self.path = path
        self._index = index

    @classmethod
    def open(cls, path: Path, *, verify: bool = False) -> PageIndex:
        """Open the index at ``path``, creating it (and its parents) when missing.

        Args:
            path: the index folder.
            verify: also check every segment file's CRC32 footer (reads the whole index:
                about 10 ms for 10k pages; worth it for writers and ``status``, not for each
                query).

        Raises:
            IndexSchemaMismatch: the index was written with another schema or analyzers.
            IndexCorruptError: a file is missing, truncated or damaged.
        """
        existing = (path / "meta.json").exists()
        if not existing and path.is_dir():
            strays = [p.name for p in path.iterdir() if _SEGMENT_FILE.match(p.name)]
            if strays:
                raise IndexCorruptError(
                    f"index at {path} is damaged: meta.json is missing but segment files remain"
                )
        path.mkdir(parents=True, exist_ok=True)
        if verify and existing:
            verify_checksums(path)
        try:
            try:
                index = tantivy.Index(_schema(), path=str(path), reuse=True)
            except ValueError as exc:
                if "Failed to acquire Lockfile" not in str(exc):
                    raise
                index = _open_shadow(path, exc)  # a folder this user cannot write
            register_analyzers(index)
            index.searcher()
        except PermissionError as exc:
            raise StoreError(f"index at {path} cannot be read by this user: {exc}") from exc
        except ValueError as exc:
            if "PermissionDenied" in str(exc):
                msg = f"index at {path} cannot be read by this user: {_first_line(exc)}"
                raise StoreError(msg) from exc
            if "schema does not match" in str(exc):
                raise IndexSchemaMismatch(
                    f"index at {path} has another schema (expected version {SCHEMA_VERSION}):"
                    " rebuild it"
                ) from exc
            raise IndexCorruptError(f"index at {path} is damaged: {_first_line(exc)}") from exc
        return cls(path, index)

    def reload(self) -> None:
        """Make the last commit visible to this object's searches (about 0.5 ms)."""
        self._index.reload()

    def _open_writer(self) -> Any:
        """Open a tantivy writer, waiting up to :data:`WRITER_BUSY_WAIT_S` while another
        process's writer finishes its merges (it holds tantivy's own lock meanwhile)."""
        deadline = time.monotonic() + WRITER_BUSY_WAIT_S
        while True:
            try:
                return self._index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=WRITER_THREADS)
            except ValueError as exc:
                if "LockBusy" not in str(exc):
                    raise IndexCorruptError(f"index at {self.path}: {_first_line(exc)}") from exc
                if time.monotonic() >= deadline:
                    msg = f"index at {self.path} is locked by another writer"
                    raise IndexBusyError(msg) from exc
                time.sleep(0.05)

    @contextmanager
    def batch(self, *, hold: bool = False, commit: bool = True) -> Iterator[Writer]:
        """Open a writer for one batch; commit once and reload at exit, roll back on error.

        Args:
            hold: keep the writer open after the commit (this process's next batch reuses it)
                and let tantivy's merges run in the background, instead of waiting for them.
                The watcher holds between batches and calls :func:`release_held` when idle: a
                merge can take ~1 s at 10k pages every 8th small commit, and waiting for it
                delayed the next save by as much (benchmarks/watch_latency.py).
            commit: ``False`` keeps this batch's adds uncommitted in a writer the next batch
                of this process continues; the batch that commits makes all of them visible
                at once. Only for a store set being built, which no one reads yet: one commit
                instead of one per batch saves ~0.8 s of a 10k-page cold sync (fewer, larger
                segments and no merges between batches). A crash loses the uncommitted adds,
                and the half-built set with them (``layout``'s ``BUILDING`` marker).

        Raises:
            IndexBusyError: another process's writer kept tantivy's lock too long.
            StoreError: the commit failed (the batch is rolled back).
        """
        key = str(self.path)
        raw = _UNCOMMITTED.pop(key, None) or _HELD.pop(key, None) or self._open_writer()
        try:
            yield Writer(raw)
            if not commit:
                _UNCOMMITTED[key] = raw
                return
            raw.commit()
        except BaseException as exc:
            raw.rollback()
            raw.wait_merging_threads()  # consumes the writer: the OS lock is released now
            if isinstance(exc, ValueError):  # commit failed: I/O, or a value tantivy refused
                msg = f"cannot commit to index at {self.path}: {_first_line(exc)}"
                raise StoreError(msg) from exc
            raise
        # Reload first: the commit is visible to every reader now. Then wait for merges, which
        # consumes the writer (the OS lock is released even while the caller still holds the
        # Writer) and keeps segments few (TECH-NOTES §6: 10-17 segments after 30 commits
        # without, 4 with).
        self._index.reload()
        if hold:
            _HELD[str(self.path)] = raw
            share_files(self.path)  # merges still running rewrite it: release_held again
        else:
            raw.wait_merging_threads()
            share_files(self.path)

    def commit_in_background(self) -> Callable[[], None]:
        """Commit, in a thread, the adds a ``batch(commit=False)`` of this process left
        uncommitted, and return the function that waits for it (and reloads).

        tantivy releases the GIL while it commits (~0.55 s at 10k pages: the last segment's
        flush), so a store set being built resolves its links and indexes its sidecar
        meanwhile (benchmarks/run.py, 2026-12-01).

        Raises (from the returned function):
            StoreError: the commit failed.
        """
        raw = _UNCOMMITTED.pop(str(self.path))
        failed: list[BaseException] = []

        def run() -> None:
            try:
                raw.commit()
                raw.wait_merging_threads()  # releases tantivy's lock
            except BaseException as exc:  # re-raised by join() in the caller's thread
                failed.append(exc)

        thread = threading.Thread(target=run, name="vault-sync-index-commit", daemon=True)
        thread.start()

        def join() -> None:
            thread.join()
            if failed:
                msg = f"cannot commit to index at {self.path}: {_first_line(failed[0])}"
                raise StoreError(msg) from failed[0]
            share_files(self.path)
            self._index.reload()

        return join

    def delete_all(self) -> None:
        """Delete every page in one committed batch."""
        with self.batch() as writer:
            writer.delete_all()

    def doc_count(self) -> int:
        """Number of pages visible to searches."""
        return int(self._index.searcher().num_docs)

    def paths_with_generation(self) -> dict[str, int]:
        """Map every indexed path to the generation that wrote it (to check the sidecar).

        Raises:
            IndexCorruptError: a stored document cannot be read.
        """
        searcher = self._index.searcher()
        total = searcher.num_docs
        if not total:
            return {}
        try:
            result = searcher.search(tantivy.Query.all_query(), limit=total)
            out = {}
            for _score, addr in result.hits:
                doc = searcher.doc(addr)
                out[_stored(doc, "path")] = int(doc.get_first("generation") or 0)
        except BaseException as exc:
            raise self._damaged(exc) from exc
        return out

    def search(
        self,
        text: str,
        *,
        limit: int = 10,
        kind: str | None = None,
        project: str | None = None,
        tag: str | None = None,
        explain: bool = False,
    ) -> list[Hit]:
        """Search the pages; best first, ties by path, so the order never depends on segments.

        Args:
            text: the query as typed (see :func:`build_query` for its grammar).
            limit: most hits to return (>= 1).
            kind, project, tag: exact filters, or ``None``.
            explain: attach :attr:`Hit.explain`.

        Returns:
            Up to ``limit`` hits sorted by ``(-score, path)``.

        Raises:
            QuerySyntaxError: the text cannot be read as a query.
            IndexCorruptError: the index could not be read.
            ValueError: ``limit`` < 1.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        plan = build_query(text, kind=kind, project=project, tag=tag)
        searcher = self._index.searcher()
        try:
            return self._search(searcher, plan, limit, explain)
        except BaseException as exc:
            if isinstance(exc, ValueError) or _is_panic(exc):
                raise self._damaged(exc) from exc
            raise

    def _search(
        self, searcher: tantivy.Searcher, plan: QueryPlan, limit: int, explain: bool
    ) -> list[Hit]:
        total = searcher.num_docs
        if not total:
            return []
        fetch = min(limit + 1, total)
        while True:  # fetch past the cut until the score there differs, so ties sort by path
            hits = searcher.search(plan.query, limit=fetch).hits
            if len(hits) < fetch or fetch >= total:
                break
            if round(hits[-1][0], 6) != round(hits[min(limit, len(hits)) - 1][0], 6):
                break
            fetch = min(fetch * 2, total)
        rows = [(round(float(score), 6), addr, searcher.doc(addr)) for score, addr in hits]
        rows.sort(key=lambda row: (-row[0], _stored(row[2], "path")))
        generator = tantivy.SnippetGenerator.create(searcher, plan.query, _schema(), "body")
        generator.set_max_num_chars(SNIPPET_MAX_CHARS)
        out = []
        for score, addr, doc in rows[:limit]:
            out.append(
                Hit(
                    path=_stored(doc, "path"),
                    id=_stored(doc, "id"),
                    title=_stored(doc, "title"),
                    kind=_stored(doc, "kind"),
                    project=doc.get_first("project"),
                    status=_stored(doc, "status"),
                    tags=tuple(doc.get_all("tags")),
                    score=score,
                    snippet=_snippet(generator, doc, plan),
                    explain=_explain(plan, searcher, addr, score) if explain else None,
                )
            )
        return out

    def _damaged(self, exc: BaseException) -> IndexCorruptError:
        return IndexCorruptError(f"index at {self.path} is damaged: {_first_line(exc)}")


def _stored(doc: tantivy.Document, field: str) -> str:
    """The first stored text of ``field``, or ``""``."""
    value = doc.get_first(field)
    return str(value) if value is not None else ""


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def verify_checksums(path: Path) -> None:
    """Check the CRC32 footer of every segment file of the index at ``path``.

    tantivy ends each segment file with a JSON footer holding the CRC32 (the zlib/IEEE
    polynomial, as ``crc32fast``) of the bytes before it, then the footer's length (u32 LE) and
    the magic number 1337. tantivy checks only the magic number at open, so garbage written
    inside a file goes unseen until a search panics or, for positions, silently misranks.

    Only segments named in ``meta.json`` are checked: files of a merge or commit that a
    killed writer left half-written are not part of the index (tantivy deletes them when the
    next writer opens), so they must not make a healthy index look damaged.

    Raises:
        IndexCorruptError: a file's footer is missing or its checksum differs, or
            ``meta.json`` cannot be read.
    """
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        live = {seg["segment_id"].replace("-", "") for seg in meta["segments"]}
        live_deletes = {
            f"{seg['segment_id'].replace('-', '')}.{seg['deletes']['opstamp']}.del"
            for seg in meta["segments"]
            if seg.get("deletes")
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexCorruptError(f"index at {path} is damaged: meta.json: {exc}") from exc
    for file in sorted(path.iterdir()):
        if not _SEGMENT_FILE.match(file.name):
            continue
        if file.name.endswith(".del"):
            if file.name not in live_deletes:
                continue
        elif file.name.split(".", 1)[0] not in live:
            continue
        data = file.read_bytes()
        try:
            if len(data) < 8:
                raise ValueError("shorter than its footer")
            length = int.from_bytes(data[-8:-4], "little")
            magic = int.from_bytes(data[-4:], "little")
            if magic != _FOOTER_MAGIC or length + 8 > len(data):
                raise ValueError("footer magic number mismatch")
            footer = json.loads(data[-8 - length : -8])
            if zlib.crc32(data[: -8 - length]) != footer["crc"]:
                raise ValueError("checksum mismatch")
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexCorruptError(f"index at {path} is damaged: {file.name}: {exc}") from exc
