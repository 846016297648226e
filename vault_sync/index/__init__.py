"""The tantivy full-text index of the vault: one document per page, keyed by its path.

Layer 3 (DESIGN §3, STYLE): imports :mod:`vault_sync.errors` and :mod:`vault_sync.page` only,
and ``tantivy`` is its one heavy import, because it is on the fast-starting ``query`` path.

- :mod:`vault_sync.index.analyzers`: the versioned analyzers, :func:`has_cjk`,
  :func:`is_identifier`;
- :mod:`vault_sync.index.schema`: every field, a new index, a page's document;
- :mod:`vault_sync.index.files`: the folder's files (CRC32 footers checked, permissions shared,
  a read-only folder opened through links);
- :mod:`vault_sync.index.writer`: tantivy's writers (:class:`Writer`, one batch's adds and
  deletes; :class:`KeptWriter`, the writer its owner keeps between batches; a commit in a
  thread);
- :mod:`vault_sync.index.page_index`: :class:`PageIndex` (open, write in batches, raw search).

Queries are built from user text, and hits with snippets and explain made, one layer up, in
:mod:`vault_sync.retrieve`.
"""

from vault_sync.errors import IndexBusyError, IndexCorruptError, IndexSchemaMismatch
from vault_sync.index.analyzers import (
    CJK_ANALYZER,
    CJK_CHARS,
    CODE_ANALYZER,
    EN_ANALYZER,
    IDENT_ANALYZER,
    KEYWORD_ANALYZER,
    MAX_TOKEN_BYTES,
    SCHEMA_VERSION,
    analyzer,
    has_cjk,
    is_identifier,
)
from vault_sync.index.files import share_files, verify_checksums
from vault_sync.index.page_index import PageIndex, Row
from vault_sync.index.schema import (
    build_schema,
    document_fields,
    file_stem,
    make_document,
    page_document,
    register_analyzers,
    schema,
    stored_text,
    tag_ancestors,
)
from vault_sync.index.writer import (
    WRITER_BUSY_WAIT_S,
    WRITER_HEAP_BYTES,
    WRITER_THREADS,
    KeptWriter,
    Writer,
)

__all__ = [
    "CJK_ANALYZER",
    "CJK_CHARS",
    "CODE_ANALYZER",
    "EN_ANALYZER",
    "IDENT_ANALYZER",
    "KEYWORD_ANALYZER",
    "MAX_TOKEN_BYTES",
    "SCHEMA_VERSION",
    "WRITER_BUSY_WAIT_S",
    "WRITER_HEAP_BYTES",
    "WRITER_THREADS",
    "IndexBusyError",
    "IndexCorruptError",
    "IndexSchemaMismatch",
    "KeptWriter",
    "PageIndex",
    "Row",
    "Writer",
    "analyzer",
    "build_schema",
    "document_fields",
    "file_stem",
    "has_cjk",
    "is_identifier",
    "make_document",
    "page_document",
    "register_analyzers",
    "schema",
    "share_files",
    "stored_text",
    "tag_ancestors",
    "verify_checksums",
]
