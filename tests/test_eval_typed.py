"""`vault-sync eval typed` (issue 10, item 11): the generated vaults are deterministic per seed,
dev and test differ, every gold page exists, typed questions avoid the gold title's words, the
relations and evidence reach the sidecar through the real engine, and the CLI runs."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
import tantivy

from tests.conftest import run_cli, sidecar_rows
from vault_sync.app import Engine
from vault_sync.eval_baseline import query_words
from vault_sync.eval_data import EvalPage
from vault_sync.eval_typed import PER_VAULT, TITLE_FREE, content_stems, load_typed
from vault_sync.eval_typed_pages import DEV_SEED, TEST_SEED, build_vault

RELATIONS = ("fixes", "causes", "supersedes", "superseded_by", "contradicts")


def _stems(text: str) -> set[str]:
    """Porter stems of the baseline's query words: a check apart from :func:`content_stems`."""
    stem = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )
    return {t for w in query_words(text.replace("-", " ")) for t in stem.analyze(w)}


def _write(pages: list[EvalPage], root: Path) -> None:
    for page in pages:
        target = root / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.render(), encoding="utf-8")


def test_same_seed_same_bytes_and_dev_differs_from_test() -> None:
    first, again = load_typed(vaults=2), load_typed(vaults=2)
    assert [[p.render() for p in v.pages] for v in first.vaults] == [
        [p.render() for p in v.pages] for v in again.vaults
    ]
    assert first.questions() == again.questions()
    dev = [q for q in first.questions() if q.split == "dev"]
    test = [q for q in first.questions() if q.split == "test"]
    assert len(dev) >= 45 and len(test) >= 45
    shared = {q.text for q in dev} & {q.text for q in test}
    assert len(shared) <= 3, shared  # a control question ("What does the X do?") may repeat
    dev_pages = {p.render() for v in first.vaults[:2] for p in v.pages}
    test_pages = {p.render() for v in first.vaults[2:] for p in v.pages}
    assert len(dev_pages & test_pages) <= 0.05 * len(dev_pages)
    other = load_typed(seed_dev=DEV_SEED + 1, vaults=1)
    assert other.vaults[0].pages != first.vaults[0].pages


def test_every_gold_page_exists_and_groups_are_as_documented() -> None:
    bench = load_typed()
    assert len(bench.vaults) == 8 and bench.notes == [
        "seeds: dev 101, test 202; 4 vaults per split"
    ]
    wanted = dict(PER_VAULT)
    for vault in bench.vaults:
        paths = {p.path for p in vault.pages}
        assert 120 <= len(paths) == len(vault.pages) <= 200  # no two pages share a file
        counts = collections.Counter(q.groups[-1] for q in vault.questions)
        for question in vault.questions:
            assert len(question.gold) == 1 and question.gold <= paths, question
            group = question.groups[-1]
            expected = ("all", "control") if group == "control" else ("all", "typed", group)
            assert question.groups == expected
            assert question.split == ("dev" if "-101-" in question.id else "test")
        assert all(counts[g] <= n for g, n in wanted.items()) and sum(counts.values()) >= 22
    skipped = sum(bench.skipped.values())
    assert skipped <= 0.05 * len(bench.questions())


def test_typed_questions_never_hold_the_gold_title_words() -> None:
    bench = load_typed()
    by_path = {p.path: p for v in bench.vaults for p in v.pages}
    checked = 0
    for question in bench.questions():
        if question.groups[-1] not in TITLE_FREE:
            continue
        (gold,) = question.gold
        title = dict(by_path[gold].front)["title"]
        assert isinstance(title, str)
        assert not _stems(question.text) & _stems(title), (question.text, title)
        assert not content_stems(question.text) & content_stems(title)
        checked += 1
    assert checked >= 150


def test_content_stems_drop_stop_words_and_stem() -> None:
    assert content_stems("What is our current policy on retries?") == {"current", "polici", "retri"}
    assert content_stems("Retrying, RETRIED") == {"retri"}


def test_relations_and_evidence_reach_the_sidecar(tmp_path: Path) -> None:
    typed = build_vault(DEV_SEED, 0)
    root = tmp_path / "vault"
    _write(typed.pages(), root)
    Engine.open(root).sync()
    path_of = {d.title: d.path for d in typed.drafts}
    expected = set()
    evidence = set()
    for draft in typed.drafts:
        front = dict(draft.front)
        for key in RELATIONS:
            value = front.get(key)
            for link in [value] if isinstance(value, str) else value or []:
                assert isinstance(link, str)
                expected.add((draft.path, key, path_of[link.strip("[]")], "resolved"))
        for entry in front.get("evidence") or []:  # type: ignore[union-attr]
            if isinstance(entry, dict):
                evidence.add((draft.path, entry["kind"], entry["source"], entry["at"]))
            else:  # "session:ID", "feedback:user @DATE"
                head, _, at = str(entry).partition(" @")
                kind, source = head.split(":", 1)
                evidence.add((draft.path, kind, source, at or None))
    links = {
        row
        for row in sidecar_rows(root, "SELECT source, type, target_path, status FROM links")
        if row[1] in RELATIONS
    }
    assert links == expected and len(expected) >= 40
    kinds = collections.Counter(t for _, t, _, _ in expected)
    assert kinds["fixes"] == 16 and kinds["contradicts"] == 6 and kinds["supersedes"] >= 8
    rows = set(sidecar_rows(root, "SELECT path, kind, source, at FROM evidence"))
    assert rows == evidence and {k for _, k, _, _ in rows} == {"session", "observation", "feedback"}
    sessions = {d.path[len("sessions/") : -3] for d in typed.drafts if d.kind == "session"}
    assert {s for _, k, s, _ in rows if k == "session"} == sessions  # every session is evidence
    statuses = dict(sidecar_rows(root, "SELECT path, status FROM pages WHERE kind = 'decision'"))
    old = [d.path for d in typed.drafts if d.role == "old" and d.kind == "decision"]
    assert {statuses[p] for p in old} == {"active", "superseded"}  # the edge must carry it


def test_eval_typed_cli_runs_one_vault(tmp_path: Path) -> None:
    result = run_cli("eval", "typed", "--vaults", "1", "--split", "dev", "--json",
                     "--ablate", "plain-bm25", cwd=tmp_path)  # fmt: skip
    assert result.code == 0, result.err
    out = result.json()
    dev = [q for q in load_typed(vaults=1).questions() if q.split == "dev"]
    assert out["questions"] == len(dev) and out["configs"] == ["default", "plain-bm25", "random"]
    assert out["pages"] == len(build_vault(DEV_SEED, 0).drafts)
    groups = {"all", "typed", "fix", "cause", "current", "successor", "contradiction", "control"}
    assert set(out["table"]) == groups
    assert out["table"]["control"]["default"]["n"] == 5
    assert out["notes"] == ["seeds: dev 101, test 202; 1 vault per split"]
    same = run_cli("eval", "typed", "--seed-dev", "7", "--seed-test", "7", cwd=tmp_path)
    assert same.code == 2 and "seeds must differ" in same.err


@pytest.mark.parametrize("seed", [DEV_SEED, TEST_SEED])
def test_every_vault_has_today_after_every_date(seed: int) -> None:
    typed = build_vault(seed, 1)
    today = typed.today.isoformat()
    dates = [v for d in typed.drafts for k, v in d.front if k in ("date", "valid_from", "valid_to")]
    assert dates and all(isinstance(v, str) and v <= today for v in dates)
