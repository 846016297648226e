"""Best-passage scoring (issue 16): a long page answering in one section is not outranked by a
short page that mentions the words once (tantivy's length normalisation), on a real index."""

from __future__ import annotations

from pathlib import Path

import tantivy

from tests.test_index import FILLER, make_index, paths
from vault_sync.page import Page
from vault_sync.passages import holds_any, query_terms, sections
from vault_sync.retrieve import build_query, search

OFF = frozenset({"no-passages"})
# the rules page: many sections, one of which answers (as 游戏规则/战斗.md in dnd-srd-zh)
RULES = "\n\n".join(
    f"## Rule {i}\n\n" + " ".join(f"topic{i} detail{j} of the game." for j in range(25))
    for i in range(12)
)
RULES += (
    "\n\n## Opportunity attacks\n\nWhen an enemy you can see leaves your reach, you can make"
    " an opportunity attack: use your reaction for one melee attack against the enemy that"
    " leaves your reach.\n"
)
SPELL = "A short spell. The caster's enemy leaves the area; no reaction."


def _pages() -> list[Page]:
    return [
        Page(path="combat.md", id="combat", title="Combat", body=RULES),
        Page(path="spell.md", id="spell", title="Misty Step", body=SPELL),
        *FILLER,
    ]


def test_the_page_whose_section_answers_ranks_above_a_short_passing_mention(
    tmp_path: Path,
) -> None:
    index = make_index(tmp_path / "ix", _pages())
    query = "enemy leaves my reach, can I use my reaction"
    assert paths(index, query, switches=OFF)[:2] == ["spell.md", "combat.md"]
    assert paths(index, query)[:2] == ["combat.md", "spell.md"]


def test_pages_without_sections_keep_their_scores(tmp_path: Path) -> None:
    # conversation sessions (LoCoMo, LongMemEval) have no headings: the stage adds nothing
    flat = [Page(path=f"s{i}.md", id=f"s{i}", title=f"S{i}", body=p.body) for i, p in
            enumerate(_pages())]  # fmt: skip
    flat[0] = Page(path="s0.md", id="s0", title="S0", body=RULES.replace("## ", ""))
    index = make_index(tmp_path / "ix", flat)
    query = "enemy leaves my reach, can I use my reaction"
    scored = [(h.path, h.score) for h in search(index, query)]
    assert scored == [(h.path, h.score) for h in search(index, query, switches=OFF)]


def test_cjk_section_words_count_by_bigrams(tmp_path: Path) -> None:
    rules = "\n\n".join(f"## 规则{i}\n\n" + "关于游戏的其他规则说明。" * 20 for i in range(10))
    rules += "\n\n## 借机攻击\n\n当敌人离开你的触及范围时，你可以用反应对敌人进行一次近战攻击。\n"
    pages = [
        Page(path="战斗.md", id="c", title="战斗", body=rules),
        Page(path="法术.md", id="s", title="迷踪步", body="你传送离开，敌人看不见你。触及。"),
        *FILLER,
    ]
    index = make_index(tmp_path / "ix", pages)
    query = "敌人离开我的触及范围时能用反应攻击吗"
    assert paths(index, query)[0] == "战斗.md"


def test_sections_cut_before_each_heading_line() -> None:
    body = "Intro line.\n# One\ntext 1\n\n## Two\ntext #2 ## not a heading\n#tag line\n"
    assert sections(body) == [
        "Intro line.\n",
        "# One\ntext 1\n\n",
        "## Two\ntext #2 ## not a heading\n#tag line\n",
    ]
    assert sections("# Only\nbody") == ["# Only\nbody"]
    assert sections("\n\n# A\nx") == ["# A\nx"]


def test_a_double_dash_word_is_looked_for_not_excluded(tmp_path: Path) -> None:
    # `silverbullet --single` (silverbullet-docs dev) excluded every page holding "single"
    pages = [
        Page(path="manager.md", id="m", title="Manager", body="Run silverbullet --single here."),
        Page(path="tls.md", id="t", title="TLS", body="Run silverbullet behind a proxy."),
        *FILLER,
    ]
    index = make_index(tmp_path / "ix", pages)
    assert paths(index, "silverbullet --single") == ["manager.md", "tls.md"]
    assert paths(index, "silverbullet -single") == ["tls.md"]


def test_a_long_cjk_page_snippet_comes_from_its_answering_section(tmp_path: Path) -> None:
    # tantivy's snippet generator highlights only the English-analyzed body, where a CJK
    # question's bigrams are no words: it showed the combat rules' intro, not the section
    intro = "## 战斗\n\n战斗的混乱局面，一个战斗轮约6秒的时间，敌人与你。\n\n"
    rules = "\n\n".join(f"## 规则{i}\n\n" + "关于游戏的其他规则说明。" * 20 for i in range(10))
    rules += "\n\n## 借机攻击\n\n当你看见的敌人离开你的触及范围时，你可以借机攻击。\n"
    index = make_index(tmp_path / "ix", [Page(path="战斗.md", id="c", title="战斗",
                                              body=intro + rules), *FILLER])  # fmt: skip
    (hit,) = search(index, "敌人离开触及范围时能攻击吗", limit=1)
    assert "借机**攻击** 当你看见的**敌人离开**你的**触及范围**时" in hit.marked_snippet()
    assert "战斗轮" not in hit.snippet


def test_a_page_without_the_query_words_in_its_body_is_not_highlighted(tmp_path: Path) -> None:
    # tantivy's snippet generator is skipped for a body holding none of the query's body
    # words (retrieve.snippet_of): the same snippet it gave, the body's start unmarked
    title_only = Page(path="t.md", id="t", title="Lanterns", body="Nothing here.\n\n## More\nx")
    body_too = Page(path="b.md", id="b", title="B", body="Notes.\n\n## Lanterns\nThe lanterns lit.")
    index = make_index(tmp_path / "ix", [title_only, body_too, *FILLER])
    hits = {h.path: h for h in search(index, "lantern")}
    assert (hits["t.md"].snippet, hits["t.md"].highlights) == ("Nothing here. More x", ())
    assert hits["b.md"].marked_snippet() == "Notes. **Lanterns** The **lanterns** lit."


def test_the_body_words_of_a_query_and_where_a_stored_page_holds_them(tmp_path: Path) -> None:
    assert build_query("lanterns storm").body_terms == {"lantern", "storm"}
    assert build_query('"the lanterns"').body_terms == {"the", "lantern"}
    assert build_query("lanterns -storm").body_terms is None  # excluded words: not known
    index = make_index(
        tmp_path / "ix", [Page(path="a.md", id="a", title="A", body="Lit lanterns.")]
    )
    with index.searching() as searcher:
        doc = searcher.doc(searcher.search(tantivy.Query.all_query(), limit=1).hits[0][1])
    assert holds_any(doc, ["lantern"]) and holds_any(doc, ["x", "lit"])
    assert not holds_any(doc, ["lanterns", "lante", "a"]) and not holds_any(doc, [])


def test_the_idf_of_a_query_is_read_again_by_a_later_searcher(tmp_path: Path) -> None:
    # the terms are kept for the second ask of one query (same searcher, same parts), never
    # for a later searcher that sees another index
    more = [Page(path=f"e{i}.md", id=f"e{i}", title="E", body="敌人 enemy") for i in range(5)]
    index = make_index(tmp_path / "ix", [*_pages(), more[0]])
    plan = build_query("敌人 enemy")
    with index.searching() as searcher:
        first = query_terms(plan.parts, searcher)
        assert query_terms(plan.parts, searcher) == first
        assert ("敌", "人") in [t.tokens for t in first]  # a bigram's df: a phrase search
    with index.batch() as writer:
        for page in more[1:]:
            writer.add(page, "h", 2)
    index.reload()
    with index.searching() as searcher:
        later = query_terms(plan.parts, searcher)
    assert [t.tokens for t in later] == [t.tokens for t in first]
    assert all(b.idf < a.idf for a, b in zip(first, later, strict=True))
