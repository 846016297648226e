"""vault-sync eval: loaders on small files shaped like the real ones (leaks removed), metrics
on hand-computed rankings, a JSONL run on example-vault/, and the real corpora's counts."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, corpus, run_cli
from vault_sync.errors import EvalDataError
from vault_sync.eval_baseline import PlainBM25, query_words
from vault_sync.eval_data import EvalPage, hashed_split, load_queries
from vault_sync.eval_locomo import load_locomo
from vault_sync.eval_longmemeval import load_longmemeval
from vault_sync.eval_metrics import random_expectation, score


def _turn(speaker: str, dia: str, text: str) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia, "text": text, "blip_caption": "a photo of a cat"}


def _conversation(sample: str) -> dict[str, Any]:
    return {
        "sample_id": sample,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [_turn("Ann", "D1:1", "I adopted a puppy."),
                          _turn("Bob", "D1:2", "Nice!")],
            "session_2_date_time": "10:00 am on 9 June, 2023",
            "session_2": [_turn("Bob", "D2:1", "I ran a marathon in Paris.")],
            "session_3_date_time": "9:00 am on 1 July, 2023",  # a date without a session
        },
        "qa": [
            {"question": "What did Ann adopt?", "answer": "a puppy", "evidence": ["D1:1"],
             "category": 4},
            {"question": "Where did Bob run?", "evidence": ["D2:1", "D1:2"], "category": 1},
            {"question": "What did Bob say?", "evidence": [], "category": 2},
            {"question": "When?", "evidence": ["D8:6; D9:17"], "category": 2},
            {"question": "Who lied?", "evidence": ["D1:2"], "category": 5,
             "adversarial_answer": "Bob"},
        ],
    }  # fmt: skip


def test_locomo_loader_writes_dated_session_pages(tmp_path: Path) -> None:
    file = tmp_path / "locomo10.json"
    file.write_text(json.dumps([_conversation(f"conv-{n}") for n in range(6)]))
    bench = load_locomo(tmp_path)
    pages = bench.vaults[0].pages
    assert [p.path for p in pages[:2]] == ["conv-0/session-01.md", "conv-0/session-02.md"]
    text = pages[0].render()
    assert 'date: "2023-05-08T13:56"' in text and 'project: "conv-0"' in text
    body = pages[0].body.splitlines()
    assert body[0] == "1:56 pm on 8 May, 2023"
    assert "Ann: I adopted a puppy. ^D1-1" in body and "cat" not in text
    questions = bench.questions()
    assert len(questions) == 6 * 3 and bench.skipped == {
        "empty evidence": 6,
        "evidence id not a turn": 6,
    }
    first = questions[1]
    assert first.gold == {"conv-0/session-01.md", "conv-0/session-02.md"}
    assert first.groups == ("cat 1-5", "cat 1", "cat 1-4") and first.project == "conv-0"
    assert questions[2].groups == ("cat 1-5", "cat 5")
    assert {q.split for q in questions[:15]} == {"dev"} and questions[15].split == "test"
    turns = load_locomo(file, unit="turn")
    assert turns.vaults[0].pages[0].path == "conv-0/D1-1.md" and turns.ks == (5, 10, 20)
    assert turns.questions()[1].gold == {"conv-0/D2-1.md", "conv-0/D1-2.md"}
    first_turn, reply, next_session = (p.render() for p in turns.vaults[0].pages[:3])
    assert "prev:" not in first_turn and "prev:" not in next_session  # a session's first turn
    assert 'prev: "[[conv-0/D1-1]]"' in reply


def test_locomo_audited_evidence_and_bad_files(tmp_path: Path) -> None:
    (tmp_path / "locomo10.json").write_text(json.dumps([_conversation("conv-0")]))
    fix = {"question_id": "locomo_0_qa3", "question": "When?", "correct_evidence": ["D2:1"]}
    (tmp_path / "locomo-audit-errors.json").write_text(json.dumps([fix]))
    bench = load_locomo(tmp_path, audited=True)
    assert len(bench.questions()) == 4 and bench.questions()[2].gold == {"conv-0/session-02.md"}
    (tmp_path / "locomo10.json").write_text('[{"sample_id": "x"}')
    with pytest.raises(EvalDataError, match=r"locomo10.json:1: not JSON"):
        load_locomo(tmp_path)


def _session(*turns: tuple[str, str, bool]) -> list[dict[str, Any]]:
    return [{"role": r, "content": c, "has_answer": h} for r, c, h in turns]


def _lme_question(qid: str, sessions: list[tuple[str, str]], answers: list[str]) -> dict[str, Any]:
    texts = {
        "answer_a1": _session(("user", "My cat is called Miso.", True),
                              ("assistant", "Cute", False)),
        "s_b2": _session(("user", "I like tea.", False)),
        "s_c3": _session(("user", "Paris trip planning.", False)),
    }  # fmt: skip
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": "What is my cat called?",
        "answer": "Miso",
        "question_date": "2023/05/28 (Sun) 19:47",
        "haystack_session_ids": [sid for sid, _ in sessions],
        "haystack_dates": [date for _, date in sessions],
        "haystack_sessions": [texts[sid] for sid, _ in sessions],
        "answer_session_ids": answers,
    }


def test_longmemeval_oracle_is_pooled_without_leaks(tmp_path: Path) -> None:
    d1, d2 = "2023/05/21 (Sun) 19:50", "2023/05/22 (Mon) 08:00"
    data = [
        _lme_question("q1", [("answer_a1", d1), ("s_b2", d1)], ["answer_a1"]),
        _lme_question("q2", [("answer_a1", d2), ("s_c3", d1)], ["answer_a1"]),  # same id, new date
        _lme_question("q3_abs", [("s_b2", d1)], ["s_b2"]),
    ]
    file = tmp_path / "longmemeval_oracle.json"
    file.write_text(json.dumps(data))
    bench = load_longmemeval(file)
    pages = bench.vaults[0].pages
    assert len(pages) == 4  # keyed by id and date
    for page in pages:
        text = page.render()
        assert "answer_" not in text and "has_answer" not in text and "a1" not in text
        assert "Cute" not in text  # user turns only
    assert bench.skipped == {"abstention (_abs)": 1}
    q1, q2 = bench.questions()
    assert q1.gold != q2.gold and len(q1.gold) == len(q2.gold) == 1
    assert q1.now == "2023-05-28T19:47" and q1.split == hashed_split("q1")
    gold_text = next(p for p in pages if p.path in q1.gold).body
    assert gold_text == "My cat is called Miso.\n"
    assert load_longmemeval(file).vaults[0].pages == pages  # the shuffle is seeded
    with_all = load_longmemeval(file, roles="all").vaults[0].pages
    assert any("assistant: Cute" in p.body for p in with_all)
    s_file = tmp_path / "longmemeval_s_small.json"
    s_file.write_text(json.dumps(data))
    assert [len(v.pages) for v in load_longmemeval(s_file).vaults] == [2, 2]


def test_hashed_split_is_sha256_first_byte() -> None:
    import hashlib

    for qid in ("a", "b", "001be529", "q1"):
        even = hashlib.sha256(qid.encode()).digest()[0] % 2 == 0
        assert hashed_split(qid) == ("dev" if even else "test")


def test_metrics_on_hand_computed_rankings() -> None:
    gold = frozenset({"b", "d"})
    m = score(["a", "b", "c", "x", "y", "d"], gold, (5, 10))
    assert m["R@5"] == 0.5 and m["R@10"] == 1.0
    assert m["hit@5"] == 1.0 and m["all@5"] == 0.0 and m["all@10"] == 1.0
    assert m["MRR"] == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert m["NDCG@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(7)) / ideal)
    miss = score(["a"] * 3, gold, (5,))
    assert miss["MRR"] == 0.0 and miss["NDCG@10"] == 0.0 and miss["hit@5"] == 0.0
    deep = score([f"p{i}" for i in range(50)] + ["b"], frozenset({"b"}), (5,))
    assert deep["MRR"] == 0.0  # rank 51 is past the cut


@pytest.mark.parametrize(("pool", "gold"), [(7, 1), (7, 3), (12, 2)])
def test_random_row_is_the_exact_expectation(pool: int, gold: int) -> None:
    units = [f"u{i}" for i in range(pool)]
    wanted = frozenset(units[:gold])
    perms = list(itertools.permutations(units)) if pool <= 7 else None
    if perms is None:  # too many permutations: average over every placement of the gold
        rows = []
        for places in itertools.combinations(range(pool), gold):
            ranking = ["x"] * pool
            for unit, place in zip(sorted(wanted), places, strict=True):
                ranking[place] = unit
            rows.append(score(ranking, wanted, (5, 10)))
    else:
        rows = [score(list(p), wanted, (5, 10)) for p in perms]
    expected = random_expectation(pool, gold, (5, 10))
    for name, value in expected.items():
        assert value == pytest.approx(sum(r[name] for r in rows) / len(rows)), name


def test_plain_bm25_drops_stop_words_and_scopes() -> None:
    assert query_words("When did Caroline go to the LGBTQ support group?") == [
        "caroline",
        "go",
        "lgbtq",
        "support",
        "group",
    ]
    pages = [
        EvalPage("a.md", (), "Caroline went to a support group", "p1"),
        EvalPage("b.md", (), "support support support", "p2"),
        EvalPage("c.md", (), "nothing here", "p1"),
    ]
    index = PlainBM25(pages)
    assert index.search("Did Caroline go to the support group?", project="p1", limit=5) == ["a.md"]
    assert index.search("what is it?", project=None, limit=5) == []
    assert index.pool == {None: 3, "p1": 2, "p2": 1}


def test_queries_file_errors_name_file_and_line(tmp_path: Path) -> None:
    file = tmp_path / "q.jsonl"
    file.write_text('{"query": "a", "expected": ["x.md"]}\n{"query": "b"}\n')
    with pytest.raises(EvalDataError, match=r"q.jsonl:2: 'expected'"):
        load_queries(file, tmp_path)
    file.write_text('{"query": "a", "expected": ["x.md"]}\nnot json\n')
    result = run_cli("--vault", str(tmp_path), "eval", "queries", str(file))
    assert result.code == 2 and "q.jsonl:2: not JSON" in result.err
    assert "Traceback" not in result.err


def test_eval_queries_on_example_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "example-vault", vault)
    queries = REPO / "docs" / "example-queries.jsonl"
    result = run_cli("--vault", str(vault), "eval", "queries", str(queries), "--json",
                     "--ablate", "plain-bm25")  # fmt: skip
    assert result.code == 0, result.err
    out = result.json()
    assert out["questions"] == 24 and out["configs"] == ["default", "plain-bm25", "random"]
    assert out["pages"] == 28  # as sync finds them: drafts/ and templates/ are ignored
    groups = {"keyword", "question", "cjk", "fix", "cause", "current", "contradiction"}
    assert set(out["table"]) == {"all"} | {f"group {g}" for g in groups}
    for group in ("keyword", "cjk"):  # found by their own words: in the default's top 5
        assert out["table"][f"group {group}"]["default"]["hit@5"] == 1.0
    # "retry storm" names the bug; its fix (a canonical decision, through `fixes`) comes first
    assert out["table"]["group keyword"]["default"]["MRR"] == 0.9
    assert out["table"]["group cjk"]["default"]["MRR"] == 1.0
    assert out["table"]["group cjk"]["plain-bm25"]["hit@10"] == 0.0  # en_stem: no CJK
    text = run_cli("--vault", str(vault), "eval", "queries", str(queries), "--split", "dev")
    assert text.code == 0 and "12 questions" in text.out and "questions/s" in text.out
    bad = run_cli("--vault", str(vault), "eval", "queries", str(queries), "--ablate", "nope")
    assert bad.code == 2 and "unknown --ablate name 'nope'" in bad.err


def test_real_corpora_load_with_the_issue_counts() -> None:
    locomo = load_locomo(corpus("locomo"))
    cat14 = [q for q in locomo.questions() if "cat 1-4" in q.groups]
    assert sum(q.split == "test" for q in cat14) == 771
    assert len({p.project for p in locomo.vaults[0].pages}) == 10
    assert sum(p.project == "conv-26" for p in locomo.vaults[0].pages) == 19
    lme = load_longmemeval(corpus("longmemeval") / "longmemeval_oracle.json")
    assert len(lme.vaults[0].pages) == 948 and len(lme.questions()) == 470
    assert not any("answer_" in p.render() for p in lme.vaults[0].pages)


#: The headline numbers the default must match or beat against plain BM25 (DESIGN Invariant 9).
HEADLINE = ("R@5", "R@10", "MRR", "NDCG@10")


def test_real_locomo_default_is_not_below_plain_bm25() -> None:
    result = run_cli("eval", "locomo", str(corpus("locomo")), "--split", "test", "--json",
                     "--ablate", "plain-bm25", timeout=600)  # fmt: skip
    assert result.code == 0, result.err
    table = result.json()["table"]["cat 1-4"]
    plain, default = table["plain-bm25"], table["default"]
    assert plain["n"] == 771
    # the issue's anchor, measured before on the default layout: R@10 90.9 %, MRR 0.796
    assert abs(plain["R@10"] - 0.909) <= 0.01 and abs(plain["MRR"] - 0.796) <= 0.01
    # tuned on dev; the floor is held on test
    assert {m: default[m] >= plain[m] for m in HEADLINE} == dict.fromkeys(HEADLINE, True)


def test_real_longmemeval_default_is_not_below_plain_bm25() -> None:
    oracle = corpus("longmemeval") / "longmemeval_oracle.json"
    result = run_cli("eval", "longmemeval", str(oracle), "--split", "test", "--json",
                     "--ablate", "plain-bm25", timeout=600)  # fmt: skip
    assert result.code == 0, result.err
    table = result.json()["table"]["all"]
    plain, default = table["plain-bm25"], table["default"]
    assert plain["n"] == 232
    metrics = ("hit@5", *HEADLINE)
    assert {m: default[m] >= plain[m] for m in metrics} == dict.fromkeys(metrics, True)


def test_eval_html_page_holds_tables_charts_and_misses(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "example-vault", vault)
    queries = tmp_path / "q.jsonl"
    lines = [
        {
            "query": "retry storm",
            "expected": ["payments/Bug PAY-231 retry storm in the payment worker.md"],
        },
        # found nowhere: a miss, and its text must be escaped in the page
        {"query": "<script>alert(1)</script> zebra", "expected": ["nowhere.md"], "group": "x"},
    ]
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page = tmp_path / "out" / "eval.html"
    page.parent.mkdir()
    result = run_cli("--vault", str(vault), "eval", "queries", str(queries),
                     "--ablate", "plain-bm25", "--html", str(page))  # fmt: skip
    assert result.code == 0, result.err
    assert "1 expected pages are not pages of the vault (ignored or missing" in result.out
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.endswith("</body></html>\n")
    assert html.count("<svg ") == 8  # R@5 R@10 hit@5 hit@10 all@5 all@10 MRR NDCG@10
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; zebra" in html
    assert "Misses: 1 all questions" in html
    assert "<code>nowhere.md</code>" in html
    assert "src=" not in html and "href=" not in html  # self-contained
    unsynced = tmp_path / "unsynced"
    shutil.copytree(REPO / "example-vault", unsynced, ignore=shutil.ignore_patterns(".vault-sync"))
    bad = run_cli("--vault", str(unsynced), "eval", "queries", str(queries),
                  "--html", str(tmp_path / "no" / "such" / "x.html"))  # fmt: skip
    assert bad.code == 2 and "--html" in bad.err and "cannot write" in bad.err
    # refused before the run (a LoCoMo run takes a minute), not after: nothing was synced
    assert bad.out == "" and not (unsynced / ".vault-sync").exists()


def test_every_eval_output_is_scrubbed(tmp_path: Path) -> None:
    # fresh-user report: `eval queries --html` wrote a query's token as typed (--json and
    # the table hid it); the gold path, the group and the load's notes can hold one too
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "y.md").write_text("# y\nother text\n")
    token = "ghp_C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcMz9CP"
    lines = [
        {"query": f"{token} lock", "expected": ["x"]},
        {"query": "zz lock", "expected": [f"notes-{token[:-1]}Q"], "group": f"g-{token[:-2]}RR"},
    ]
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page = tmp_path / "ev.html"
    shown = []
    for args in (("--html", str(page)), ("--json",), ()):
        result = run_cli("--vault", str(vault), "eval", "queries", str(queries), *args)
        assert result.code == 0, result.err
        shown += [result.out, result.err]
    shown.append(page.read_text())
    for text in shown:
        assert token[:12] not in text and token[-12:-2] not in text
    assert page.read_text().count("[REDACTED:github_token]") == 4  # query, gold, group x2
