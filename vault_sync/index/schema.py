"""The index schema: every field, a new index, and a page's document.

Part of :mod:`vault_sync.index` (layer 3). The schema is defined once, in :func:`build_schema`;
its fields are analyzed by the versioned analyzers of :mod:`vault_sync.index.analyzers`, which
:func:`register_analyzers` registers on every open (TECH-NOTES §1.7: custom tokenizers are not
persisted). :func:`document_fields` makes a page's fields (the analysis copies of its text,
its stored sections and word pairs).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from vault_sync.index.analyzers import (
    CJK_ANALYZER,
    CODE_ANALYZER,
    EN_ANALYZER,
    EN_SIMPLE_ANALYZER,
    IDENT_ANALYZER,
    KEYWORD_ANALYZER,
    PAIRS_ANALYZER,
    SCHEMA_VERSION,
    analyzer,
    has_cjk,
)
from vault_sync.index.section_terms import analyze, encoded
from vault_sync.index.word_pairs import PAIRS_FIELD, pair_text
from vault_sync.plaintext import REDACTED_PATTERN

__all__ = [  # SCHEMA_VERSION: read with the schema by the index's owner
    "DOCSTORE_BLOCK_BYTES",
    "SCHEMA_VERSION",
    "build_schema",
    "create_index",
    "document_fields",
    "file_stem",
    "make_document",
    "page_document",
    "register_analyzers",
    "schema",
    "stored_text",
    "tag_ancestors",
]

#: Our redaction token: its label's words are no identifiers (``github_token``).
_REDACTED = re.compile(REDACTED_PATTERN)

if TYPE_CHECKING:  # the page model loads with the parser: a query never builds a document
    from vault_sync.page import Page

#: Where a run of capitals ends and a capitalised word begins (``HTTP|Server``,
#: ``XML|HttpRequest``, ``OOM|Killed``): the body's CamelCase words are parted there before
#: the code analyzer (:data:`~vault_sync.index.analyzers.CODE_ANALYZER`) reads them, so
#: ``http``, ``xml`` and ``oom`` find them (a fresh user's report). Two lower-case letters
#: after, so a plural acronym (``PRs``, ``APIs``) is left whole.
_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z]{2})")
#: CamelCase: a capital after a lower-case letter, or a run of capitals before a capitalised
#: word (``IOError``, ``OOMKilled``; :data:`_ACRONYM_END`).
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][A-Z][a-z]{2}")
#: From the first identifier mark of a word (``_``, a capital after a lower-case letter, or
#: the capital starting a word after a run of capitals: :func:`~.analyzers.is_identifier`)
#: to the word's end: one C-level search per identifier instead of one per word. The search
#: skips ahead on the ``[_A-Z]`` charset, so prose costs ~5x less than ``\w+`` + a test per
#: word (0.13 s vs 0.68 s over the 10k-page benchmark vault). Leftmost mark first, so each
#: match ends the word that holds it; ``page_document`` walks back to the word's start.
_IDENTIFIER_TAIL = re.compile(r"[_A-Z](?:(?<=_)|(?<=[a-z][A-Z])|(?<=[A-Z][A-Z])(?=[a-z]{2}))\w*")
#: A word read backwards (on the reversed text) from just before an identifier mark.
_WORD_BACK = re.compile(r"\w*")


# --------------------------------------------------------------------------- schema

_SCHEMA: list[tantivy.Schema] = []


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
    it holds no token of ours: :data:`EN_SIMPLE_ANALYZER`)."""
    return analyzer(EN_ANALYZER if "[REDACTED:" in text else EN_SIMPLE_ANALYZER).analyze(text)


def _section_analyzers(body: str) -> list[tantivy.TextAnalyzer]:
    """The analyzers of the ``sections`` field (:mod:`vault_sync.passages` looks for the
    words of ``body`` and ``body_cjk`` in a section): English, and CJK for a CJK body."""
    en = EN_ANALYZER if "[REDACTED:" in body else EN_SIMPLE_ANALYZER  # the same words, faster
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


def stored_text(doc: tantivy.Document, field: str) -> str:
    """The first stored text of ``field`` in a document, or ``""``."""
    value = doc.get_first(field)
    return str(value) if value is not None else ""
