"""tantivy's snippet passage replayed from the stored sections (issue 10's query speed): the same
fragment and highlights as tantivy's generator on a real index, for every page and section."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_index import FILLER, make_index
from vault_sync.fragments import NO_PASSAGE, choose, f32, passage, replayable
from vault_sync.index import stored_text
from vault_sync.index.section_terms import decode, section_spans, streams
from vault_sync.page import Page
from vault_sync.retrieve import build_query, snippet_generator
from vault_sync.snippets import SNIPPET_MAX_CHARS

_PROSE = "The retry storm hit the queue again. Storms like this come from retrying clients. "
LONG = (
    "Intro line about nothing much at all, just words to fill the first fragment here.\n\n"
    + "## Storm notes\n\n"
    + " ".join(f"word{i} filler text" for i in range(40))
    + "\n"
    + _PROSE * 3
    + "\n\n## Later\n\n"
    + " ".join(f"plain{i}" for i in range(60))
    + " storm at the very end"
)
PAGES = [
    Page(path="long.md", id="long", title="Long", body=LONG),
    # a run of letters over the analyzer's 256-byte limit: dropped, so nothing is replayed
    Page(path="huge.md", id="huge", title="Huge", body="storm " + "x" * 300 + " retry storm"),
    # a first token longer than a fragment (160 bytes) but indexed
    Page(path="wide.md", id="wide", title="Wide", body="y" * 200 + " storm retry " * 30),
    Page(path="ties.md", id="ties", title="Ties", body=("storm " + "calm " * 40) * 4),
    Page(path="cafe.md", id="cafe", title="Cafe", body="Le café storm retry " * 20),
    # punctuation outside ASCII (its UTF-8 bytes are blanks between tokens): replayed
    Page(path="quotes.md", id="quotes", title="Quotes", body="The “storm” — retry… it’s " * 12),
    Page(path="snake.md", id="snake", title="Snake", body="retry_storm and RETRY-storm x1 " * 9),
    Page(path="blank.md", id="blank", title="Blank", body="  \n storm first after blanks"),
    Page(
        path="secret.md",
        id="secret",
        title="Secret",
        body="storm key [REDACTED:aws_key] retry storm " * 8,
    ),
    *FILLER,
]
QUERIES = ["storm", "retry storm", '"retry storm"', "Storms retrying", "storm x1 calm", "y" * 200]


@pytest.mark.parametrize("text", QUERIES)
def test_the_replayed_passage_is_tantivys_for_every_page_and_section(
    tmp_path: Path, text: str
) -> None:
    index = make_index(tmp_path / "ix", PAGES)
    plan = build_query(text)
    with index.searching() as searcher:
        snippets = snippet_generator(searcher, plan)
        assert snippets.scores  # the query's body terms, each found in some page
        docs = index.documents(searcher, [p.path for p in PAGES])
        replayed = 0
        for doc in docs.values():
            body = stored_text(doc, "body")
            for section in [None, *enumerate(section_spans(body))]:
                mine = passage(snippets.generator, snippets.scores, doc, body, section)
                theirs = passage(snippets.generator, None, doc, body, section)
                assert mine == theirs, (stored_text(doc, "path"), section)
                replayed += mine != NO_PASSAGE
        assert replayed


def test_a_text_whose_runs_are_not_its_tokens_is_left_to_tantivy(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", PAGES)
    with index.searching() as searcher:
        scores = snippet_generator(searcher, build_query("storm")).scores
        assert scores is not None
        docs = index.documents(searcher, ["huge.md", "long.md"])
        for path, replays in (("huge.md", False), ("long.md", True)):
            doc = docs[path]
            block = decode(doc.get_first("sections"))[0][1]
            chosen = choose(stored_text(doc, "body"), block, scores, SNIPPET_MAX_CHARS)
            assert (chosen is not None) is replays
            if replays:
                section = streams(block)[2]  # "Later": its last word is the only term
                later = LONG[section_spans(LONG)[2][0] :]
                (start, end), marks = choose(later, section, scores, SNIPPET_MAX_CHARS) or ()
                assert [later[a:b] for a, b in marks] == ["storm"]
                assert later[start:end].endswith("storm at the very end")


def test_only_ascii_text_without_our_token_or_leading_blanks_is_replayed() -> None:
    assert replayable("retry storm")
    assert replayable("the “storm” — retry…\u00a0again")
    assert not replayable("café storm")
    assert not replayable(" storm")
    assert not replayable("a [REDACTED:aws_key] b")


def test_an_excluded_word_leaves_the_passage_to_tantivy(tmp_path: Path) -> None:
    # tantivy's generator highlights the excluded words too: not replayed
    index = make_index(tmp_path / "ix", PAGES)
    with index.searching() as searcher:
        assert snippet_generator(searcher, build_query("storm -calm")).scores is None


def test_scores_are_rounded_as_tantivys_f32() -> None:
    assert f32(0.1) == 0.10000000149011612
    assert f32(1 / 3) == 0.3333333432674408
    assert f32(f32(0.1) + f32(0.2)) == 0.30000001192092896


def test_fragment_scores_are_summed_in_f32_ties_to_the_earliest() -> None:
    # the first fragment's two terms sum, in f32, to the third term's score (in float64 they
    # fall short of it): tantivy's tie goes to the earlier fragment
    words = ["aa", "bb", *(f"w{i}" for i in range(60)), "cc"]
    text = " ".join(words)
    stream = ("\n" + "\n\n".join(words) + "\n").encode()
    first, second = f32(0.1), f32(0.2)
    terms = {b"\naa\n": first, b"\nbb\n": second, b"\ncc\n": f32(first + second)}
    assert first + second < terms[b"\ncc\n"]
    chosen = choose(text, stream, terms, SNIPPET_MAX_CHARS)
    assert chosen is not None
    (start, end), marks = chosen
    assert start == 0 and text[end:].startswith(" w")
    assert [text[a:b] for a, b in marks] == ["aa", "bb"]
