"""Tests of vault_sync.index and its queries (vault_sync.retrieve) on a real tantivy index.

Pages are built with :class:`vault_sync.page.Page` directly (the parser is tested on its own);
the case files (``tests/pages``, copies of ``../shared/cases/pages``) are only read.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
import tantivy

from vault_sync.errors import QuerySyntaxError, StoreError
from vault_sync.index import (
    MAX_TOKEN_BYTES,
    SCHEMA_VERSION,
    WRITER_BUSY_WAIT_S,
    IndexBusyError,
    IndexCorruptError,
    IndexSchemaMismatch,
    PageIndex,
    build_schema,
)
from vault_sync.index.schema import DOCSTORE_BLOCK_BYTES
from vault_sync.page import Heading, Page
from vault_sync.retrieve import FIELD_BOOSTS, build_query, search
from vault_sync.snippets import ELLIPSIS

CASES = Path(__file__).resolve().parent / "pages"  # copies of ../shared/cases/pages
if not (CASES / "s1-long-page.md").is_file():
    CASES = Path(__file__).resolve().parents[2] / "shared" / "cases" / "pages"

FILLER = [
    Page(
        path=f"filler/f{i}.md",
        id=f"filler/f{i}",
        title=f"Filler {i}",
        body=f"Notes about gardening, {word} and the weather on day {i}. Write it down.",
    )
    for i, word in enumerate(["tomatoes", "json files", "the pane", "atomic clocks", "graphs"])
]


def case_page(name: str) -> Page:
    """A Page from a case file: the title from its frontmatter, the rest as the body."""
    text = (CASES / name).read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    title = re.search(r"^title: (.*)$", front, re.MULTILINE)
    assert title is not None
    return Page(path=name, id=name[:-3], title=title.group(1), body=body)


def make_index(path: Path, pages: Iterable[Page], generation: int = 1) -> PageIndex:
    index = PageIndex.open(path)
    with index.batch() as writer:
        for page in pages:
            writer.add(page, f"hash-{page.path}", generation)
    return index


def paths(index: PageIndex, query: str, **kw: object) -> list[str]:
    return [h.path for h in search(index, query, **kw)]  # type: ignore[arg-type]


@pytest.fixture
def cases_index(tmp_path: Path) -> PageIndex:
    names = ["s1-long-page.md", "s2-cjk.md", "s3-identifiers.md", "s3b-split-words.md"]
    return make_index(tmp_path / "index", [*map(case_page, names), *FILLER])


# --------------------------------------------------------------------------- S1-S3


@pytest.mark.parametrize("word", ["narwhalbeta", "axolotlgamma", "quokkadelta", "zebrafinchomega"])
def test_s1_every_word_of_a_long_page_is_found(cases_index: PageIndex, word: str) -> None:
    assert paths(cases_index, word) == ["s1-long-page.md"]


def test_s1_a_snippet_from_deep_in_the_page_is_cut_and_marked(cases_index: PageIndex) -> None:
    (hit,) = search(cases_index, "quokkadelta")
    assert "**quokkadelta**" in hit.marked_snippet()
    assert hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) < 250


@pytest.mark.parametrize("query", ["雾凇", "雾凇词库", "词库", "同步", "记忆同步引擎"])
def test_s2_cjk_substrings_are_found(cases_index: PageIndex, query: str) -> None:
    hits = search(cases_index, query)
    assert [h.path for h in hits] == ["s2-cjk.md"]
    assert f"**{query}**" in hits[0].marked_snippet()  # literal fallback: body highlights miss CJK


@pytest.mark.parametrize("query", ["部署笔记", "笔记"])
def test_s2_a_cjk_title_is_found(cases_index: PageIndex, query: str) -> None:
    assert paths(cases_index, query) == ["s2-cjk.md"]


@pytest.mark.parametrize(
    "query", ["atomic_write_json", "pane_pid", "graph_neighbors_for_project", "neighbors"]
)
def test_s3_identifiers_are_found_whole_and_by_part(cases_index: PageIndex, query: str) -> None:
    assert paths(cases_index, query)[0] == "s3-identifiers.md"


def test_s3b_is_found_by_the_words(cases_index: PageIndex) -> None:
    assert "s3b-split-words.md" in paths(cases_index, "atomic write json")


@pytest.mark.parametrize("query", ["atomic_write_json", "pane_pid"])
def test_s3_the_exact_literal_ranks_above_the_words_apart(
    cases_index: PageIndex, query: str
) -> None:
    found = paths(cases_index, query)
    # the plain query as typed finds both pages: the ranking, not a filter, decides
    assert "s3b-split-words.md" in found
    assert found.index("s3-identifiers.md") < found.index("s3b-split-words.md")


def test_camel_case_is_found_whole_and_split(tmp_path: Path) -> None:
    page = Page(path="a.md", id="a", title="A", body="The PageAuthority multiplier is clamped.")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    for query in ("PageAuthority", "pageauthority", "authority", "page authority"):
        assert paths(index, query)[:1] == ["a.md"], query


ACRONYM_IDS = (
    "Calls XMLHttpRequest and getHTTPResponseCode, then parseJSON; an IOError or an "
    "HTMLElement; pods OOMKilled at -XX:MaxRAMPercentage=75."
)


@pytest.mark.parametrize(
    "query",
    [
        "http", "xml", "request", "response", "code", "json", "error", "element", "html",
        "oom", "killed", "ram", "percentage", "XMLHttpRequest", "IOError", "OOMKilled",
        "oomkilled", "MaxRAMPercentage",
    ],
)  # fmt: skip
def test_an_identifier_holding_an_acronym_is_found_by_each_part(tmp_path: Path, query: str) -> None:
    """A fresh user's report: a run of capitals before a capitalised word (``XMLHttp``,
    ``HTTPResponse``, ``IOError``, ``OOMKilled``) stayed one token, so its parts found
    nothing; a plural acronym (``PRs``) is not split, so ``rs`` finds nothing."""
    page = Page(path="ids.md", id="ids", title="Ids", body=ACRONYM_IDS)
    plural = Page(path="prs.md", id="prs", title="Prs", body="Review the open PRs and APIs.")
    index = make_index(tmp_path / "ix", [page, plural, *FILLER])
    assert "ids.md" in paths(index, query), query
    assert paths(index, "rs") == []
    assert paths(index, "PRs") == ["prs.md"]


# --------------------------------------------------------------------------- writes


def test_delete_by_path_deletes(tmp_path: Path) -> None:
    odd = ["notes/a b.md", "日记/雾凇 #1.md", "x#y (copy).md"]
    pages = [Page(path=p, id=p[:-3], title="T", body=f"shared word {i}") for i, p in enumerate(odd)]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert index.doc_count() == 3 + len(FILLER)
    with index.batch() as writer:
        for path in odd:
            writer.delete(path)
    assert index.doc_count() == len(FILLER)
    with pytest.raises(QuerySyntaxError):
        search(index, "")
    assert search(index, "shared") == []
    assert not set(odd) & set(index.paths_with_generation())


def test_update_in_one_batch_leaves_one_document(tmp_path: Path) -> None:
    old = Page(path="n.md", id="n", title="N", body="the old lantern")
    index = make_index(tmp_path / "ix", [old, *FILLER])
    new = Page(path="n.md", id="n", title="N", body="the new harbour")
    with index.batch() as writer:
        writer.delete(new.path)
        writer.add(new, "h2", 2)
    assert index.doc_count() == 1 + len(FILLER)
    assert paths(index, "harbour") == ["n.md"]
    assert paths(index, "lantern") == []
    assert index.paths_with_generation()["n.md"] == 2


def test_reopen_registers_analyzers(tmp_path: Path) -> None:
    make_index(tmp_path / "ix", [case_page("s2-cjk.md"), case_page("s3-identifiers.md")])
    again = PageIndex.open(tmp_path / "ix")
    assert paths(again, "同步") == ["s2-cjk.md"]  # needs the CJK analyzer at search
    with again.batch() as writer:  # and at commit
        writer.add(Page(path="z.md", id="z", title="Z", body="词库 PageAuthority"), "h", 2)
    assert set(paths(again, "词库")) == {"s2-cjk.md", "z.md"}
    assert paths(again, "authority") == ["z.md"]


def test_a_new_index_stores_documents_in_small_blocks(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    meta = json.loads((tmp_path / "ix" / "meta.json").read_text(encoding="utf-8"))
    assert meta["index_settings"]["docstore_blocksize"] == DOCSTORE_BLOCK_BYTES == 4096
    assert meta["segments"]  # the committed segment was written with them
    assert paths(PageIndex.open(tmp_path / "ix"), "tomatoes") == ["filler/f0.md"]
    assert index.stored_texts(["filler/f1.md"], "title") == {"filler/f1.md": "Filler 1"}


def test_a_failed_batch_rolls_back_and_releases_the_lock(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    with pytest.raises(RuntimeError), index.batch() as writer:
        writer.delete("filler/f0.md")
        writer.add(Page(path="new.md", id="new", title="New", body="x"), "h", 2)
        raise RuntimeError("boom")
    assert index.doc_count() == len(FILLER)
    with index.batch() as writer:
        writer.add(Page(path="new.md", id="new", title="New", body="kestrel"), "h", 2)
    assert paths(index, "kestrel") == ["new.md"]


def test_a_second_writer_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    """After waiting ``busy_wait_s`` (10 s by default; lowered here) for the other writer."""
    make_index(tmp_path / "ix", FILLER)
    index = PageIndex.open(tmp_path / "ix", busy_wait_s=0.3)
    other = tantivy.Index.open(str(tmp_path / "ix")).writer(64_000_000, 1)
    start = time.monotonic()
    try:
        with pytest.raises(IndexBusyError, match="is locked by another writer"), index.batch():
            pass
    finally:
        del other
    assert time.monotonic() - start >= 0.3
    assert PageIndex.open(tmp_path / "ix").busy_wait_s == WRITER_BUSY_WAIT_S == 10.0


def test_delete_all_and_paths_with_generation(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", FILLER, generation=7)
    assert index.paths_with_generation() == {p.path: 7 for p in FILLER}
    index.delete_all()
    assert index.doc_count() == 0
    assert index.paths_with_generation() == {}


def test_filter_values_and_missing_project_round_trip(tmp_path: Path) -> None:
    page = Page(
        path="r.md",
        id="rules/r",
        title="Rule",
        kind="rule",
        status="superseded",
        project="alpha",
        tags=("Canonical", "ops"),
        body="kestrel",
    )
    index = make_index(tmp_path / "ix", [page, *FILLER])
    (hit,) = search(index, "kestrel")
    assert (hit.id, hit.kind, hit.status, hit.project, hit.tags) == (
        "rules/r",
        "rule",
        "superseded",
        "alpha",
        ("Canonical", "ops"),
    )
    assert search(index, "gardening")[0].project is None


# --------------------------------------------------------------------------- damage


def _segment_files(path: Path, ext: str) -> list[Path]:
    return [p for p in path.iterdir() if re.match(r"^[0-9a-f]{32}\." + ext + "$", p.name)]


def _truncate(path: Path, ext: str) -> None:
    for file in _segment_files(path, ext):
        with file.open("r+b") as fh:
            fh.truncate(file.stat().st_size // 2)


def _scribble(path: Path, ext: str) -> None:
    for file in _segment_files(path, ext):
        with file.open("r+b") as fh:
            fh.seek(file.stat().st_size // 3)
            fh.write(b"\xff\x00garbage\x13\x37" * 4)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: _truncate(p, "idx"), id="truncate-idx"),
        pytest.param(lambda p: _truncate(p, "store"), id="truncate-store"),
        pytest.param(lambda p: _truncate(p, "term"), id="truncate-term"),
        pytest.param(lambda p: (p / "meta.json").write_text("{garbage"), id="garbage-meta"),
        pytest.param(lambda p: (p / "meta.json").write_bytes(b""), id="empty-meta"),
        pytest.param(lambda p: (p / "meta.json").unlink(), id="missing-meta"),
        pytest.param(lambda p: _segment_files(p, "idx")[0].unlink(), id="missing-segment-file"),
    ],
)
def test_a_damaged_index_raises_never_zero_hits(tmp_path: Path, damage: object) -> None:
    make_index(tmp_path / "ix", [case_page("s1-long-page.md"), *FILLER])
    damage(tmp_path / "ix")  # type: ignore[operator]
    with pytest.raises(IndexCorruptError):
        index = PageIndex.open(tmp_path / "ix")
        search(index, "gardening narwhalbeta")


@pytest.mark.parametrize("ext", ["idx", "pos", "term", "store", "fieldnorm", "fast"])
def test_verify_finds_garbage_inside_any_segment_file(tmp_path: Path, ext: str) -> None:
    # tantivy checks only footers at open: garbage inside a file may pass unseen (positions)
    # or panic at search, so writers open with verify=True
    make_index(tmp_path / "ix", [case_page("s1-long-page.md"), *FILLER])
    PageIndex.open(tmp_path / "ix", verify=True)  # intact: passes
    _scribble(tmp_path / "ix", ext)
    with pytest.raises(IndexCorruptError, match=rf"\.{ext}: "):
        PageIndex.open(tmp_path / "ix", verify=True)


def test_a_tantivy_panic_on_bad_data_becomes_index_corrupt(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", [case_page("s1-long-page.md"), *FILLER])
    for file in _segment_files(tmp_path / "ix", "idx"):  # postings: garbage from byte 0
        size = file.stat().st_size
        with file.open("r+b") as fh:
            fh.write(b"\xff" * (size // 2))
    reopened = PageIndex.open(tmp_path / "ix")
    with pytest.raises(IndexCorruptError):
        for query in ("gardening", "narwhalbeta", "filler", "weather"):
            assert search(reopened, query), query  # zero hits would be the silent failure
    del index


def test_corrupt_and_mismatch_errors_are_store_errors() -> None:
    assert issubclass(IndexCorruptError, StoreError)
    assert issubclass(IndexSchemaMismatch, StoreError)


def test_another_schema_is_a_mismatch(tmp_path: Path) -> None:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("path", stored=True, tokenizer_name="raw")
    tantivy.Index(sb.build(), path=str(tmp_path))
    with pytest.raises(IndexSchemaMismatch):
        PageIndex.open(tmp_path)


def test_other_analyzers_are_a_mismatch(tmp_path: Path) -> None:
    # an index written by the previous SCHEMA_VERSION names its analyzers "..._v0"
    meta = build_schema()
    tantivy.Index(meta, path=str(tmp_path))
    text = (tmp_path / "meta.json").read_text()
    (tmp_path / "meta.json").write_text(text.replace(f"_v{SCHEMA_VERSION}", "_v0"))
    with pytest.raises(IndexSchemaMismatch):
        PageIndex.open(tmp_path)


# --------------------------------------------------------------------------- queries


def test_filters_are_exact_and_do_not_change_scores(tmp_path: Path) -> None:
    pages = [
        Page(
            path="a.md",
            id="a",
            title="A",
            kind="rule",
            project="alpha",
            tags=("Ops",),
            body="kestrel",
        ),
        Page(
            path="b.md",
            id="b",
            title="B",
            kind="note",
            project="beta",
            tags=("ops",),
            body="kestrel",
        ),
        Page(path="c.md", id="c", title="C", kind="rule", body="kestrel kestrel"),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert sorted(paths(index, "kestrel", kind="rule")) == ["a.md", "c.md"]
    assert paths(index, "kestrel", project="alpha") == ["a.md"]
    assert paths(index, "kestrel", project="alph") == []
    assert sorted(paths(index, "kestrel", tag="OPS")) == ["a.md", "b.md"]
    assert paths(index, "kestrel", kind="rule", project="beta") == []
    plain = {h.path: h.score for h in search(index, "kestrel")}
    assert {h.path: h.score for h in search(index, "kestrel", kind="rule")} == {
        p: plain[p] for p in ("a.md", "c.md")
    }


@pytest.mark.parametrize("query", ["", "   ", '"', '" "', ":", "( * )"])
def test_unreadable_queries_raise_query_syntax_error(tmp_path: Path, query: str) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    with pytest.raises(QuerySyntaxError) as info:
        search(index, query)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "query", ["gardening:", "title:gardening", "(gardening", "garden*", "a AND (b", "+gardening~2"]
)
def test_punctuation_is_text_not_syntax(tmp_path: Path, query: str) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    search(index, query)  # no tantivy error
    build_query(query)


def test_phrases_must_match_and_minus_excludes(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    assert paths(index, '"json files"') == ["filler/f1.md"]
    assert paths(index, 'gardening "atomic clocks"') == ["filler/f3.md"]
    assert "filler/f2.md" not in paths(index, "gardening -pane")
    assert len(paths(index, "gardening -pane")) == len(FILLER) - 1


@pytest.mark.parametrize("query", ["-pane", '-"the weather"', "-pane -graphs", "-pane :"])
def test_a_query_of_only_exclusions_is_a_syntax_error(tmp_path: Path, query: str) -> None:
    # it listed every other page, each with score 1.000
    index = make_index(tmp_path / "ix", FILLER)
    with pytest.raises(QuerySyntaxError, match="at least one word to look for; -word only"):
        search(index, query)


def test_a_title_match_outranks_a_body_only_match(tmp_path: Path) -> None:
    pages = [
        Page(path="a-body.md", id="a", title="Harbour notes", body="We saw the lighthouse."),
        Page(path="z-title.md", id="z", title="Lighthouse", body="We saw the harbour."),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, "lighthouse") == ["z-title.md", "a-body.md"]


def test_ties_sort_by_path_even_at_the_cut(tmp_path: Path) -> None:
    pages = [
        Page(path=f"t{i}.md", id=f"t{i}", title="Same", body="kestrel") for i in (3, 1, 4, 0, 2)
    ]
    index = PageIndex.open(tmp_path / "ix")
    for page in pages:  # one segment each
        with index.batch() as writer:
            writer.add(page, "h", 1)
    hits = search(index, "kestrel", limit=2)
    assert [h.path for h in hits] == ["t0.md", "t1.md"]
    assert hits[0].score == hits[1].score


def test_search_is_deterministic_and_a_rebuild_scores_the_same(tmp_path: Path) -> None:
    pages = [
        *map(
            case_page, ["s1-long-page.md", "s2-cjk.md", "s3-identifiers.md", "s3b-split-words.md"]
        ),
        *FILLER,
    ]
    first = make_index(tmp_path / "one", pages)
    second = PageIndex.open(tmp_path / "two")
    for chunk in (pages[::2], pages[1::2]):  # other order, two segments
        with second.batch() as writer:
            for page in reversed(chunk):
                writer.add(page, f"hash-{page.path}", 1)
    for query in ["atomic write json", "pane_pid", "同步", "gardening the", "filler"]:
        once = search(first, query, explain=True)
        assert once == search(first, query, explain=True)
        assert [(h.path, h.score, h.snippet) for h in once] == [
            (h.path, h.score, h.snippet) for h in search(second, query)
        ]


def test_explain_lists_fields_terms_scores_and_boosts(cases_index: PageIndex) -> None:
    hit = search(cases_index, "atomic_write_json", explain=True)[0]
    assert hit.explain is not None
    assert hit.explain["field_boosts"] == FIELD_BOOSTS
    by_field = {m["field"]: m for m in hit.explain["matches"]}
    assert by_field["body_ident"]["terms"] == ["atomic_write_json"]
    assert by_field["body_ident"]["boost"] == FIELD_BOOSTS["body_ident"]
    assert all(m["score"] > 0 for m in hit.explain["matches"])
    assert search(cases_index, "atomic_write_json")[0].explain is None


# --------------------------------------------------------------------------- no text is cut off


LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis"  # 45 bytes
SHA = "3f786850e387550fdab836ed7e6dc881de23001b"  # 40 hex digits


@pytest.mark.parametrize(
    ("body", "query"),
    [
        (f"A lung disease: {LONG_WORD}.", LONG_WORD),
        (f"A lung disease: {LONG_WORD}.", LONG_WORD.lower()),
        (f"Fixed in commit {SHA} last week.", SHA),
        (f"修复于提交 {SHA}。", SHA),  # a page with CJK: the CJK copy too
        (f"ident {'x' * 200}_{'y' * 50} here", f"{'x' * 200}_{'y' * 50}"),  # 251 bytes
        (f"camel {'Ab' * 100}Cd end", f"{'Ab' * 100}Cd"),
    ],
)
def test_words_of_40_bytes_and_more_are_found(tmp_path: Path, body: str, query: str) -> None:
    # tantivy's built-in analyzers drop tokens of >= 40 bytes (remove_long(40))
    page = Page(path="long.md", id="long", title="Long", body=body)
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, query) == ["long.md"]


def test_a_long_word_in_the_title_is_found(tmp_path: Path) -> None:
    page = Page(path="t.md", id="t", title=f"On {LONG_WORD}", body="x")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, LONG_WORD) == ["t.md"]


def test_a_word_too_long_to_index_is_named_in_the_error(tmp_path: Path) -> None:
    index = make_index(tmp_path / "ix", FILLER)
    with pytest.raises(QuerySyntaxError, match="not indexed") as info:
        search(index, "z" * MAX_TOKEN_BYTES)
    assert "no searchable words" not in str(info.value)
    with pytest.raises(QuerySyntaxError, match="no searchable words"):
        search(index, ": -- ()")


# --------------------------------------------------------------------------- CJK adjacency


@pytest.mark.parametrize(
    ("body", "query"),
    [
        ("甲乙。丙丁", "乙丙"),
        ("甲乙,丙丁", "乙丙"),
        ("| 戊己 | 庚辛 |", "己庚"),
        ("子丑 寅卯", "丑寅"),
        ("子丑\u3000寅卯", "丑寅"),  # ideographic space
        ("甲乙\n\n丙丁", "乙丙"),  # two paragraphs
        ("| 巨人 | 矮人文字 |", "人矮"),  # dnd-srd-zh: a table row
        ("**巨人**矮人", "人矮"),
        ("巨人x矮人", "人矮"),  # a Latin word between
        ("巨人\u0301矮人", "人矮"),  # a lone combining mark between
    ],
)
def test_cjk_words_do_not_match_across_non_letters(tmp_path: Path, body: str, query: str) -> None:
    page = Page(path="c.md", id="c", title="C", body=body)
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, query) == []
    assert paths(index, body.strip("|* ")[:2]) == ["c.md"]  # the text itself is found


@pytest.mark.parametrize("query", ["乙。丙", '"乙 丙"', "甲乙", "丙丁", "乙", "甲乙。丙丁"])
def test_cjk_words_with_their_punctuation_are_found(tmp_path: Path, query: str) -> None:
    page = Page(path="c.md", id="c", title="C", body="甲乙。丙丁")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, query) == ["c.md"]


def test_a_quoted_cjk_phrase_matches_across_any_blank(tmp_path: Path) -> None:
    page = Page(path="c.md", id="c", title="C", body="子丑\n\n寅卯")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, '"子丑 寅卯"') == ["c.md"]


def test_cjk_title_words_do_not_match_across_punctuation(tmp_path: Path) -> None:
    page = Page(path="c.md", id="c", title="巨人·矮人", aliases=("甲乙、丙丁",), body="x")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, "人矮") == []
    assert paths(index, "乙丙") == []
    assert paths(index, "矮人") == ["c.md"]
    assert paths(index, "丙丁") == ["c.md"]


# --------------------------------------------------------------------------- file names


def test_the_file_name_is_found_when_the_title_differs(tmp_path: Path) -> None:
    # case R1: `Summer 2020.md` renamed to `Summer 2021.md`, its H1 still says 2020
    page = Page(
        path="journal/Summer 2021.md",
        id="journal/Summer 2021",
        title="Summer 2020",
        body="# Summer 2020\n\nWe went to the lake.",
    )
    index = make_index(tmp_path / "ix", [page, *FILLER])
    hit = search(index, "2021", explain=True)
    assert [h.path for h in hit] == ["journal/Summer 2021.md"]
    assert hit[0].explain is not None
    assert [m["field"] for m in hit[0].explain["matches"]] == ["name"]
    assert hit[0].explain["matches"][0]["boost"] == FIELD_BOOSTS["name"]
    assert FIELD_BOOSTS["body"] < FIELD_BOOSTS["name"] < FIELD_BOOSTS["title"]


@pytest.mark.parametrize("query", ["雾凇", "词库", "deploy"])
def test_a_cjk_file_name_is_found(tmp_path: Path, query: str) -> None:
    name = "notes/雾凇词库 deploy.md"
    page = Page(path=name, id="n", title="Other", body="nothing here")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, query) == [name]


def test_a_nfd_file_name_is_found_by_nfc_text(tmp_path: Path) -> None:
    page = Page(path="Cafe\u0301 menu.md", id="c", title="Other", body="nothing here")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, "Caf\u00e9") == ["Cafe\u0301 menu.md"]


def test_full_width_forms_in_a_query_read_as_ascii(tmp_path: Path) -> None:
    """Fresh-user report: a query typed with a CJK input method's full-width Latin letters
    (``ｒｅｔｒｙ``) found nothing; full-width quotes now quote a phrase as ``"`` does."""
    pages = [
        Page(path="a.md", id="a", title="A", body="The retry storm of PAY-231 ended."),
        Page(path="b.md", id="b", title="B", body="A storm, then a retry."),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, "ｒｅｔｒｙ\u3000ＰＡＹ－２３１") == paths(index, "retry PAY-231")
    assert sorted(paths(index, "ｒｅｔｒｙ")) == ["a.md", "b.md"]
    assert paths(index, "＂ｒｅｔｒｙ ｓｔｏｒｍ＂") == ["a.md"]


# --------------------------------------------------------------------------- snippet ends


@pytest.mark.parametrize(
    ("body", "query", "snippet"),
    [
        ("The sync engine watches the vault.", "engine", "The sync **engine** watches the vault."),
        ("The sync engine watches the vault", "vault", "The sync engine watches the **vault**"),
        ("# Heading\n\nThe lantern (lit).\n\n---\n", "lantern", "Heading The **lantern** (lit)."),
        ("雾凇词库。", "雾凇", "**雾凇**词库。"),
    ],
)
def test_a_snippet_marks_only_a_real_cut(
    tmp_path: Path, body: str, query: str, snippet: str
) -> None:
    page = Page(path="s.md", id="s", title="S", body=body)
    index = make_index(tmp_path / "ix", [page, *FILLER])
    (hit,) = search(index, query)
    assert hit.marked_snippet() == snippet  # heading marks are not shown
    assert ELLIPSIS not in hit.snippet


def test_a_snippet_cut_inside_the_text_is_marked(tmp_path: Path) -> None:
    words = " ".join(f"w{i}" for i in range(200))
    page = Page(path="s.md", id="s", title="S", body=f"{words} kestrel. {words}")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    (hit,) = search(index, "kestrel")
    assert hit.snippet.startswith(ELLIPSIS) and hit.snippet.endswith(ELLIPSIS)


def test_a_word_typed_twice_counts_once(tmp_path: Path) -> None:
    # eval (docs/eval.md): "What did Melanie ... Melanie?" scored Melanie twice
    page = Page(path="m.md", id="m", title="M", body="Melanie painted a lake.")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    once = search(index, "melanie lake")
    twice = search(index, "Melanie lake melanie? MELANIE")
    assert [h.score for h in twice] == [h.score for h in once]
    kept = search(index, "Melanie lake melanie? MELANIE", switches=frozenset({"keep-repeats"}))
    assert kept[0].score > once[0].score
    # a phrase and the same word unquoted are different clauses
    assert search(index, 'melanie "melanie" lake')[0].score > once[0].score


def test_boosts_can_be_overridden_and_old_boosts_switched_back(tmp_path: Path) -> None:
    page = Page(path="z.md", id="z", title="Lighthouse", body="We saw the harbour.")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    default = search(index, "lighthouse", explain=True)[0]
    assert default.explain is not None
    assert default.explain["field_boosts"]["title"] == FIELD_BOOSTS["title"] == 1.1
    doubled = search(index, "lighthouse", boosts={"title": 2.2}, explain=True)[0]
    assert doubled.explain is not None
    assert doubled.explain["field_boosts"]["title"] == 2.2
    assert doubled.score == pytest.approx(2 * default.score, rel=1e-4)
    old = search(index, "lighthouse", switches=frozenset({"title-boost-3"}), explain=True)[0]
    assert old.explain is not None
    assert {k: old.explain["field_boosts"][k] for k in ("title", "name")} == {
        "title": 3.0,
        "name": 2.0,
    }
    before = search(index, "lighthouse", switches=frozenset({"boosts-before"}), explain=True)[0]
    assert before.explain is not None
    assert {k: before.explain["field_boosts"][k] for k in ("headings", "names_cjk")} == {
        "headings": 2.0,
        "names_cjk": 1.1,
    }
    with pytest.raises(ValueError, match="unknown fields in boosts: \\['titel'\\]"):
        search(index, "lighthouse", boosts={"titel": 1.0})


def test_search_without_snippets_ranks_the_same(tmp_path: Path) -> None:
    pages = [
        Page(path=f"p{i}.md", id=f"p{i}", title=f"P{i}", body="harbour " * (i + 1) + "lake")
        for i in range(5)
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    full = search(index, "harbour", limit=5)
    bare = search(index, "harbour", limit=5, snippets=False)
    assert [(h.path, h.score) for h in bare] == [(h.path, h.score) for h in full]
    assert all(h.snippet for h in full)
    assert [h.snippet for h in bare] == [""] * 5


def test_an_unclosed_quote_is_plain_text(tmp_path: Path) -> None:
    # LoCoMo asks 'When did Joanna first watch "Eternal Sunshine of the Spotless Mind?'
    page = Page(path="e.md", id="e", title="E", body="We watched Eternal Sunshine last night.")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, 'when did we watch "Eternal Sunshine?') == ["e.md"]
    assert paths(index, 'a "b" "sunshine') == ["e.md"]


def test_a_quoted_phrase_no_page_holds_is_searched_as_words(tmp_path: Path) -> None:
    pages = [
        Page(path="a.md", id="a", title="A", body="She read Nothing Is Impossible in May."),
        Page(path="b.md", id="b", title="B", body="Nothing seemed impossible to her then."),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    # the phrase is held by a.md: it is required
    assert paths(index, 'when "nothing is impossible"') == ["a.md"]
    # held by no page: its words are searched, rather than answering nothing
    assert paths(index, 'book "nothing was impossible"') == ["b.md", "a.md"]
    strict = search(index, '"nothing was impossible"', switches=frozenset({"phrases-required"}))
    assert strict == []
    # an excluded phrase stays exact, and a query with hits never falls back
    assert paths(index, 'impossible -"nothing is impossible"') == ["b.md"]


#: Real sentences of scripts written without spaces between the words of a compound or a
#: sentence (issue 16, item 5), each with a word that occurs only inside a longer run.
SPACELESS = [
    # Korean: "the long-term memory sync engine is fast"; 기억 (memory) inside a compound
    ("ko.md", "장기기억동기화 엔진은 빠릅니다.", "기억", "동기화"),
    # Thai: "the long-term memory system keeps notes"; ความจำ (memory) inside the run
    ("th.md", "ระบบความจำระยะยาวเก็บบันทึกไว้", "ความจำ", "บันทึก"),
    # Lao: "the memory system"; ຄວາມຈຳ (memory)
    ("lo.md", "ລະບົບຄວາມຈຳໄລຍະຍາວ", "ຄວາມຈຳ", "ລະບົບ"),
    # Khmer: "memory system"; ប្រព័ន្ធ (system) before អង្គចងចាំ (memory)
    ("km.md", "ប្រព័ន្ធអង្គចងចាំរយៈពេលវែង", "អង្គចងចាំ", "ប្រព័ន្ធ"),
]


@pytest.mark.parametrize(("path", "body", "inside", "other"), SPACELESS)
def test_words_of_spaceless_scripts_are_found_inside_runs(
    tmp_path: Path, path: str, body: str, inside: str, other: str
) -> None:
    pages = [Page(path=p, id=p[:-3], title=p, body=b) for p, b, _, _ in SPACELESS]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, inside) == [path]
    assert paths(index, other) == [path]
    # letters of the word that are not adjacent in the text do not match as the word
    strict = frozenset({"phrases-required"})  # (else a phrase no page holds falls back)
    assert search(index, f'"{inside[::-1]}"', switches=strict) == []


def test_a_page_is_found_by_its_description(tmp_path: Path) -> None:
    # issue 16, item 2: a `description:` stating the answer word for word
    from vault_sync.parser import parse_page

    text = (
        "---\ndescription: Renders a live table of every open task across the space\n"
        "tags: [plugin]\nsummary:\n  - nested lists count too\n  - {deep: glacier words}\n"
        "kind: note\nrelated: [[Other]]\n---\n# Usage\n\nSee below.\n"
    )
    page = parse_page(text, "Library/Tasks.md")
    assert page.metadata == (
        "Renders a live table of every open task across the space",
        "nested lists count too",
        "glacier words",
    )  # known keys (tags, kind, related) are not metadata
    index = make_index(tmp_path / "ix", [page, *FILLER])
    assert paths(index, "live table of every open task") == ["Library/Tasks.md"]
    assert paths(index, "glacier") == ["Library/Tasks.md"]
    hit = search(index, "glacier", explain=True)[0]
    assert hit.explain is not None
    assert [m["field"] for m in hit.explain["matches"]] == ["metadata"]
    assert "glacier" not in hit.snippet  # metadata is searched, never shown


def test_metadata_is_bounded() -> None:
    from vault_sync.parser import METADATA_MAX_CHARS, parse_page

    page = parse_page("---\nlog: " + "word " * 5000 + "\nnote: later\n---\n", "a.md")
    assert sum(len(m) for m in page.metadata) == METADATA_MAX_CHARS


SNIPPET_PAGES = {
    "callout.md": "> [!warning] Global Query\n> The **Global** **Query** runs over _every_ page.\n",
    "links.md": "See [[Queries/Global Query|the global query]], [[Other#Part]] and "
    "[docs](https://x.y/global) for ==global== settings.\n",
    "code.md": "Intro.\n\n```lua\nglobal_query()\n```\n\n<!-- a global comment -->\n"
    "${widget.global()} Use `global` with <b>care</b>. ^blk-1\n",
    "secret.md": "The global token [REDACTED:github_token] is gone.\n",
    "targets.md": "So that [[Recurring Tasks#Order of tasks|new ones are added]] after; see"
    " ![[Recurring Tasks#Limits of Recurring Tasks]] too.\n",
}


@pytest.mark.parametrize(
    ("path", "query", "marked"),
    [
        ("callout.md", "global query",
         "**Global** **Query** The **Global** **Query** runs over every page."),
        ("links.md", "global",
         "See the **global** query, Other › Part and docs for **global** settings."),
        ("code.md", "global", "Intro. **global**_query() Use **global** with care."),
        ("secret.md", "global token", "The **global** **token** [REDACTED:github_token] is gone."),
        # words matched in a link's target, which the plain text does not show: the same word
        # nearby (the anchor's display) is marked, never the letters that landed there
        ("targets.md", "recurring tasks",
         "So that new ones are added after; see **Recurring** **Tasks** › Limits of **Recurring**"
         " **Tasks** too."),
    ],
)  # fmt: skip
def test_snippets_are_plain_text_with_offset_highlights(
    tmp_path: Path, path: str, query: str, marked: str
) -> None:
    pages = [Page(path=p, id=p[:-3], title=p[:-3], body=b) for p, b in SNIPPET_PAGES.items()]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    hit = next(h for h in search(index, query, limit=10) if h.path == path)
    assert hit.marked_snippet() == marked
    for start, end in hit.highlights:  # offsets into the plain text, never inside a label
        assert hit.snippet[start:end].lower() in query.split() or start < end
        assert "REDACTED" not in hit.snippet[start:end]
    for markup in ("**", "[[", "]]", "](", "```", "<!--", "${", "[!", "==", "<b>", "^blk"):
        assert markup not in hit.snippet


def test_the_words_of_our_tokens_are_not_indexed(tmp_path: Path) -> None:
    # fresh-user report: a page that held a GitHub token was found by "github token", its
    # label's words; the stored text keeps the token, the index holds none of its words
    body = (
        "Deploy notes [REDACTED:github_token] and [REDACTED:aws_secret_key] here.\n"
        "トークン[REDACTED:slack_token]です\n"
    )
    pages = [
        Page(path="deploy.md", id="deploy", title="Notes [REDACTED:openai_key]", body=body),
        *FILLER,
    ]
    index = make_index(tmp_path / "ix", pages)
    for query in ("github", "github_token", "REDACTED", "aws secret key", "slack", "openai"):
        assert "deploy.md" not in [h.path for h in search(index, query, limit=50)], query
    assert [h.path for h in search(index, "deploy notes", limit=5)][:1] == ["deploy.md"]
    raw = tantivy.Index.open(str(tmp_path / "ix"))
    searcher = raw.searcher()
    for field in ("body", "title", "body_cjk", "body_ident", "body_code", "names_cjk"):
        terms = [str(t) for t, _ in searcher.terms_with_prefix(field, "")]
        words = {"redact", "redacted", "github", "github_token", "aws_secret_key", "slack"}
        assert not words & set(terms), (field, sorted(words & set(terms)))
    hits = searcher.search(tantivy.Query.all_query(), limit=100).hits
    stored = {searcher.doc(a).get_first("path"): searcher.doc(a) for _, a in hits}
    assert stored["deploy.md"].get_first("body") == body  # the stored text keeps the token


def test_a_cjk_question_without_spaces_finds_the_page_sharing_its_words(tmp_path: Path) -> None:
    # the whole run is one phrase no page holds; its bigrams rank the page (dnd-srd-zh set)
    pages = [
        Page(
            path="冒险.md",
            id="a",
            title="冒险",
            body="屏住呼吸：生物可以屏住呼吸的时间为1+体质调整值分钟。",
        ),
        Page(path="战斗.md", id="b", title="战斗", body="每回合你可以移动并执行一个动作。"),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, "屏住呼吸最多能坚持多久？") == ["冒险.md"]
    assert paths(index, '"屏住呼吸"') == ["冒险.md"]  # a quoted phrase still must match
    one = frozenset({"cjk-one-clause"})  # the run as one clause, as before issue 16's tuning
    assert paths(index, "屏住呼吸最多能坚持多久？", switches=one) == ["冒险.md"]


def test_tag_and_kind_filters_read_as_a_user_writes_them(tmp_path: Path) -> None:
    pages = [
        Page(path="n.md", id="n", title="N", kind="bug", tags=("inline/nested/deep", "Ops"),
             body="lantern"),
        Page(path="o.md", id="o", title="O", tags=("inliner",), body="lantern"),
    ]  # fmt: skip
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    for tag in ("inline", "inline/nested", "#inline/nested/deep", "#ops", "OPS"):
        assert paths(index, "lantern", tag=tag) == ["n.md"], tag
    assert paths(index, "lantern", tag="nested") == []  # a tag nests from its start only
    assert paths(index, "lantern", tag="inliner") == ["o.md"]
    assert paths(index, "lantern", kind="Bug") == paths(index, "lantern", kind="bug") == ["n.md"]


def test_cjk_function_words_do_not_decide_a_question(tmp_path: Path) -> None:
    # 什么 / 可以 bigrams (and 有什, 么法 around them) match nearly every page of a Chinese vault
    pages = [
        Page(path="语言.md", id="a", title="通晓语言", body="你可以理解任何口头语言的字面意义。"),
        Page(path="其他.md", id="b", title="其他", body="什么都可以有什么法术可以用什么办法。"),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, "有什么法术可以理解口头语言")[0] == "语言.md"
    # a question of function words alone still finds the page holding it whole
    assert paths(index, '"可以有什么"') == ["其他.md"]


def test_a_cjk_question_snippet_shows_and_marks_its_bigrams(tmp_path: Path) -> None:
    body = "前言。" + "无关的文字。" * 60 + "生物可以屏住呼吸的时间为若干分钟。" + "结尾。" * 40
    page = Page(path="冒险.md", id="a", title="冒险", body=body)
    index = make_index(tmp_path / "ix", [page, *FILLER])
    (hit,) = search(index, "屏住呼吸最多能坚持多久？")
    assert "**屏住呼吸**" in hit.marked_snippet()  # merged bigrams, centred on the passage
    assert hit.snippet.startswith(ELLIPSIS) and hit.snippet.endswith(ELLIPSIS)
    assert all(hit.snippet[a:b] == "屏住呼吸" for a, b in hit.highlights)


def test_a_cjk_run_is_searched_by_its_bigrams_as_words() -> None:
    from vault_sync.query_fields import cjk_words

    # the bigrams holding a character of a function word (多久: 持多, 多久) are left out
    words = ["屏住", "住呼", "呼吸", "吸最", "最多", "多能", "能坚", "坚持"]
    assert cjk_words("屏住呼吸最多能坚持多久") == words
    assert cjk_words("1点力场伤害") == ["点力", "力场", "场伤", "伤害", "1"]
    assert cjk_words("火") == ["火"]


def test_a_cjk_word_in_a_heading_is_found(tmp_path: Path) -> None:
    # headings_cjk (schema 6): a long page's section heading, matched by its bigrams
    heading = Heading(level=2, text="死亡豁免检定", line=3)
    page = Page(path="战斗.md", id="b", title="战斗", headings=(heading,), body="规则。")
    index = make_index(tmp_path / "ix", [page, *FILLER])
    (hit,) = search(index, "死亡豁免", explain=True)
    assert hit.explain is not None
    assert {m["field"] for m in hit.explain["matches"]} == {"headings_cjk"}


def test_adjacent_words_rank_the_page_holding_them_together(tmp_path: Path) -> None:
    # "Arcane Recovery" (dnd-srd-zh): spell pages named "Arcane Eye", "Arcane Lock" outscored
    # the class page holding the two words together
    pages = [
        Page(path="eye.md", id="e", title="Arcane Eye", body="An arcane eye floats; its recovery."),
        Page(path="wizard.md", id="w", title="Wizard", body="Arcane Recovery: you regain slots."),
        Page(path="paladin.md", id="p", title="Paladin", body="Lay on Hands heals a creature."),
    ]
    index = make_index(tmp_path / "ix", [*pages, *FILLER])
    assert paths(index, "arcane recovery") == ["wizard.md", "eye.md"]
    off = frozenset({"no-word-pairs"})
    assert paths(index, "arcane recovery", switches=off) == ["eye.md", "wizard.md"]
    # one stop word between the two still makes a pair, searched as typed
    (hit,) = search(index, "Lay On Hands?", explain=True)
    assert hit.explain is not None
    clauses = {m["clause"] for m in hit.explain["matches"]}
    assert clauses == {"Lay", "Hands?", "Lay On Hands?"}


def test_has_cjk_matches_the_cjk_charset_for_every_code_point() -> None:
    # has_cjk matches UTF-8 bytes (the str charset costs ~3 ms to compile per process): the
    # same answer as the charset itself for every character (a lone surrogate: never), and
    # past the head it looks at first (every 7th character, and the ranges' ends)
    import importlib

    schema_module = importlib.import_module("vault_sync.index.analyzers")
    charset = re.compile(schema_module.CJK_CHARS)
    has_cjk, head = schema_module.has_cjk, "é" * schema_module._HEAD
    ends = {ord(c) + d for c in schema_module.CJK_CHARS[1:-1:2] for d in (-1, 0, 1)}
    wrong = []
    for code in range(0x110000):
        char = chr(code)
        expected = not 0xD800 <= code <= 0xDFFF and charset.search(char) is not None
        if has_cjk(char) != expected or (
            (code % 7 == 0 or code in ends) and has_cjk(head + char) != expected
        ):
            wrong.append(hex(code))
    assert wrong == []
    for at in (len(head) - 1, len(head), len(head) + 1):
        assert has_cjk("é" * at + "日" + "é" * 3)
    assert not has_cjk("café — “quoted” \ud800 ok" * 40)
