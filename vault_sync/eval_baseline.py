"""The ``plain-bm25`` row of ``vault-sync eval``: BM25 as a textbook would run it (issue 9, item 5).

The harness computes it itself, beside the product, in the same run: its own in-memory
tantivy index with one field holding the whole page text (the page's body as written, which
for a LoCoMo session starts with its date line), tantivy's built-in ``en_stem`` tokenizer and
default BM25 (k1 1.2, b 0.75). The question is lower-cased, its punctuation removed, and
:data:`STOP_WORDS` removed from the query only (the pages keep every word); the words left
are OR-ed. This is the row every default ranking must match or beat (DESIGN Invariant 9).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import tantivy

from vault_sync.eval_data import EvalPage
from vault_sync.stopwords import STOP_WORDS

#: tantivy's ``en_stem``: simple tokenizer, tokens of 40 bytes or more dropped, lower-cased,
#: Porter stemmer (English) — the same chain, to analyze the query words.
_TOKENIZER = "en_stem"
_PUNCTUATION = re.compile(r"[^\w\s]+")


def query_words(question: str) -> list[str]:
    """The words of ``question`` the baseline searches: lower-cased, no punctuation, no stop words.

    An apostrophe is removed with the rest (``Caroline's`` -> ``carolines``), as a plain
    ``str.translate`` of punctuation would.
    """
    words = _PUNCTUATION.sub("", question.lower()).split()
    return [w for w in words if w not in STOP_WORDS]


class PlainBM25:
    """An in-memory one-field BM25 index of a vault's pages.

    Args:
        pages: the pages (their ``body`` is the text indexed; ``project`` scopes queries).
    """

    def __init__(self, pages: Iterable[EvalPage]) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("path", stored=True, tokenizer_name="raw")
        builder.add_text_field("project", tokenizer_name="raw")
        builder.add_text_field("text", tokenizer_name=_TOKENIZER)
        self._schema = builder.build()
        self._index = tantivy.Index(self._schema)
        self._analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        writer = self._index.writer(heap_size=64_000_000, num_threads=1)
        self.pool: dict[str | None, int] = {None: 0}
        for page in pages:
            doc = {"path": page.path, "text": page.body}
            if page.project is not None:
                doc["project"] = page.project
                self.pool[page.project] = self.pool.get(page.project, 0) + 1
            self.pool[None] += 1
            writer.add_document(tantivy.Document.from_dict(doc, self._schema))
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()

    def search(self, question: str, *, project: str | None, limit: int) -> list[str]:
        """Page paths, best first (ties by path), for ``question`` within ``project``.

        Returns ``[]`` when no word is left after stop-word removal.
        """
        terms = dict.fromkeys(t for w in query_words(question) for t in self._analyzer.analyze(w))
        if not terms:
            return []
        words = [
            (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "text", t)) for t in terms
        ]
        query = tantivy.Query.boolean_query(words)
        if project is not None:
            scope = tantivy.Query.const_score_query(
                tantivy.Query.term_query(self._schema, "project", project), 0.0
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, scope)]
            )
        searcher = self._index.searcher()
        hits = searcher.search(query, limit=limit + 20).hits
        rows = [(round(score, 6), searcher.doc(addr)["path"][0]) for score, addr in hits]
        rows.sort(key=lambda row: (-row[0], row[1]))
        return [path for _, path in rows[:limit]]
