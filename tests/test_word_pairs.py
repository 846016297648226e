"""The word pairs (vault_sync.index.word_pairs, issue 10): a phrase asked only of the pages
holding its pairs finds the same pages with the same scores in each field they narrow, on a
real index, and the pages it skips are those without the pair."""

from __future__ import annotations

import itertools
import random
import zlib
from pathlib import Path

import pytest
import tantivy

from vault_sync.index import EN_ANALYZER, PageIndex, analyzer, schema, stored_text, word_pairs
from vault_sync.index.word_pairs import PAIRED_FIELDS, PAIRS_FIELD, code, narrowed, pair_text
from vault_sync.page import Heading, Page
from vault_sync.query_fields import clause_parts
from vault_sync.retrieve import FIELD_BOOSTS

WORDS = ["alpha", "beta", "gamma", "delta", "running", "runs"]
#: A token the analyzers drop (256 bytes or more): it leaves a gap in the positions.
LONG = "x" * 300


def _body(rng: random.Random) -> str:
    """A body of a few words of :data:`WORDS`, with headings, blank lines, punctuation and
    dropped long tokens between them."""
    parts = []
    for _ in range(rng.randrange(1, 12)):
        parts.append(rng.choice(WORDS))
        parts.append(rng.choice([" ", " ", ", ", "\n\n## ", "\n", f" {LONG} ", " - "]))
    return "".join(parts).strip()


def _page(i: int, body: str, rng: random.Random) -> Page:
    """Page ``i``: ``body``, and a title, aliases and headings of a few words."""
    short = [_body(rng)[:40] for _ in range(4)]
    headings = tuple(Heading(2, text, n) for n, text in enumerate(short[2:], 1))
    return Page(
        path=f"p{i}.md",
        id=f"p{i}",
        title=short[0],
        aliases=(short[1], "alpha"),
        headings=headings,
        body=body,
    )


def _index(tmp_path: Path) -> PageIndex:
    rng = random.Random(5)
    bodies = [_body(rng) for _ in range(300)]
    bodies += ["alpha\n\n## beta", f"alpha {LONG} beta", "alpha gamma beta", "beta alpha"]
    index = PageIndex.open(tmp_path / "index")
    with index.batch() as writer:
        for i, body in enumerate(bodies[:300]):
            writer.add(_page(i, body, rng), "h", 1)
        for i, body in enumerate(bodies[300:], 300):
            writer.add(Page(path=f"p{i}.md", id=f"p{i}", title="Page", body=body), "h", 1)
    return index


def _hits(searcher: tantivy.Searcher, query: tantivy.Query) -> list[tuple[float, str]]:
    found = searcher.search(query, limit=1000).hits
    return sorted((score, stored_text(searcher.doc(addr), "path")) for score, addr in found)


@pytest.mark.parametrize("field", sorted(PAIRED_FIELDS))
def test_a_narrowed_phrase_finds_the_same_pages_with_the_same_scores(
    tmp_path: Path, field: str
) -> None:
    index = _index(tmp_path)
    fields = schema()
    tokens = {w: analyzer(EN_ANALYZER).analyze(w)[0] for w in WORDS}
    phrases = [p for n in (2, 3) for p in itertools.product(WORDS, repeat=n)]
    found = 0
    with index.searching() as searcher:
        for phrase in phrases:
            words = [tokens[w] for w in phrase]
            plain = tantivy.Query.phrase_query(fields, field, words)
            boosted = tantivy.Query.boost_query(plain, 1.1)
            expected = _hits(searcher, boosted)
            got = _hits(searcher, tantivy.Query.boost_query(narrowed(fields, plain, words), 1.1))
            assert got == expected, phrase  # the same floats, not merely close
            found += len(expected)
    assert found > (1000 if field == "body" else 100)  # the pages hold many of the phrases


def test_the_pairs_leave_out_pages_without_them_and_keep_pairs_across_sections(
    tmp_path: Path,
) -> None:
    index = _index(tmp_path)
    fields = schema()
    assert code("alpha") + code("beta") != code("alpha") + code("gamma")
    pair = tantivy.Query.term_query(fields, PAIRS_FIELD, code("alpha") + code("beta"))
    with index.searching() as searcher:
        paths = {path for _score, path in _hits(searcher, pair)}
        phrase = tantivy.Query.phrase_query(fields, "body", ["alpha", "beta"])
        holding = {path for _score, path in _hits(searcher, phrase)}
    n = 300
    assert f"p{n}.md" in holding and f"p{n}.md" in paths  # "alpha\n\n## beta": one pair
    assert f"p{n + 1}.md" in paths  # the long token between: let through, the phrase decides
    assert f"p{n + 2}.md" not in paths and f"p{n + 3}.md" not in paths  # words apart, reversed
    assert holding <= paths
    assert len(paths) < 300  # fewer than the pages holding both words


def test_a_query_phrase_in_the_body_is_narrowed_and_scores_the_same(tmp_path: Path) -> None:
    index = _index(tmp_path)
    parts = clause_parts("alpha beta", phrase=True, boosts=FIELD_BOOSTS)
    body = next(p for p in parts if p.field == "body")
    fields = schema()
    plain = tantivy.Query.boost_query(
        tantivy.Query.phrase_query(fields, "body", ["alpha", "beta"]), FIELD_BOOSTS["body"]
    )
    assert repr(body.query).count("Const(") == 1 and "Const(" not in repr(plain)
    with index.searching() as searcher:
        assert _hits(searcher, body.query) == _hits(searcher, plain)


def test_pair_text_is_one_code_per_word() -> None:
    assert pair_text([]) == ""
    assert pair_text(["alpha", "beta", "alpha"]) == code("alpha") + code("beta") + code("alpha")
    assert pair_text(["new-word-1", "new-word-2"]) == code("new-word-1") + code("new-word-2")
    assert len({code(w) for w in WORDS}) == len(WORDS)


@pytest.mark.parametrize("kept_max", [1 << 20, 2])
def test_pair_text_codes_words_met_before_and_new_alike(
    monkeypatch: pytest.MonkeyPatch, kept_max: int
) -> None:
    """Words met before and new ones in one text (only the new ones are coded one by one),
    and the kept codes emptied while coding them (``kept_max`` 2): the same codes."""
    monkeypatch.setattr(word_pairs, "_KEPT", {})
    monkeypatch.setattr(word_pairs, "_KEPT_MAX", kept_max)
    code("met-before")
    words = ["met-before", "new-1", "met-before", "new-2", "new-1", "new-3"]
    expected = "".join(chr(0x4E00 + zlib.crc32(w.encode()) % 256) for w in words)
    assert pair_text(words) == expected
    assert pair_text(words) == expected  # all met now
