"""The ranking pipeline (issue 10): supersession, contradiction, graph and filter semantics
on small hand-written vaults (real index, real sidecar, the CLI as a subprocess)."""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import REPO, Result, query_paths
from vault_sync.confidence import Support, confidence
from vault_sync.config import load_config
from vault_sync.readers import open_reader

Cli = Callable[..., Result]

OLD = (
    "---\nkind: decision\nevidence:\n  - session:s1\n  - session:s2\n  - session:s3\n---\n"
    "Deploy policy: deploy on fridays, deploy policy deploy policy.\n"
)
NEW = '---\nkind: decision\nsupersedes: "[[Deploy old]]"\n---\nWe ship on tuesdays now.\n'
RULE = "---\nkind: rule\n---\nAlways retry five times, retry retry.\n"
OBS = (
    '---\nkind: observation\ncontradicts: "[[Retry rule]]"\n---\nFive attempts made a storm'
    " when we retry.\n"
)
BUG = "---\nkind: bug\n---\nThe worker floods the queue at midnight.\n"
FIX = '---\nkind: decision\nfixes: "[[Bug flood]]"\n---\nRate limit at the source.\n'


def test_a_successor_ranks_directly_above_what_it_supersedes(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Deploy old.md": OLD, "Deploy new.md": NEW})
    assert query_paths(cli, vault, "deploy policy") == ["Deploy new.md", "Deploy old.md"]
    ablated = query_paths(cli, vault, "deploy policy", "--limit", "1")
    assert ablated == ["Deploy new.md"]


def test_an_open_contradiction_puts_the_challenger_above_until_it_is_settled(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Retry rule.md": RULE, "Storm.md": OBS})
    assert query_paths(cli, vault, "retry") == ["Storm.md", "Retry rule.md"]
    (vault / "Storm.md").write_text(
        OBS.replace("kind: observation", "kind: observation\nstatus: archived")
    )
    assert cli("--vault", str(vault), "sync").code == 0
    assert query_paths(cli, vault, "retry") == ["Retry rule.md", "Storm.md"]


def test_a_fix_enters_through_its_edge_and_a_deleted_page_never_does(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Bug flood.md": BUG, "Rate limit.md": FIX})
    assert query_paths(cli, vault, "worker floods queue") == ["Bug flood.md", "Rate limit.md"]
    out = cli("--vault", str(vault), "query", "worker floods queue", "--explain", "--json")
    via = out.json()["hits"][1]["explain"]["graph_via"]
    assert via == {"from": "Bug flood.md", "type": "fixes", "direction": "in", "depth": 1}
    (vault / "Rate limit.md").unlink()
    assert cli("--vault", str(vault), "sync").code == 0
    assert query_paths(cli, vault, "worker floods queue") == ["Bug flood.md"]


def test_as_of_hides_pages_outside_their_window(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault(
        {
            "A.md": "---\nvalid_from: 2024-01-01\nvalid_to: 2024-06-30\n---\nbudget rule\n",
            "B.md": "---\nvalid_from: 2024-07-01\n---\nbudget rule too\n",
        }
    )
    assert query_paths(cli, vault, "budget", "--as-of", "2024-03-01") == ["A.md"]
    assert query_paths(cli, vault, "budget", "--as-of", "2025-01-01") == ["B.md"]
    assert sorted(query_paths(cli, vault, "budget")) == ["A.md", "B.md"]


def test_a_ranking_table_is_read_and_the_config_still_pickles(tmp_path: Path) -> None:
    """Sync pickles the configuration to its workers: a mapping proxy hung the pool."""
    (tmp_path / "vault-sync.toml").write_text(
        '[ranking]\ngraph_weight = 0.3\n[ranking.edge_weights]\n"fixes.in" = 1.0\n'
    )
    config = load_config(tmp_path)
    assert config.ranking.graph_weight == 0.3
    assert config.ranking.edge_weight("fixes", "in") == 1.0
    assert config.ranking.edge_weight("causes", "in") == 0.8
    assert pickle.loads(pickle.dumps(config)) == config


def test_pages_the_graph_brings_obey_the_filters_as_the_index_does(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    bug = BUG.replace("kind: bug", "kind: bug\ntags: [ops]")
    fix = FIX.replace("kind: decision", "kind: decision\ntags: [Ops/Retry]")
    cause = '---\nkind: note\ncauses: "[[Bug flood]]"\n---\nA cron job at midnight.\n'
    vault = make_vault({"Bug flood.md": bug, "Rate limit.md": fix, "Cron.md": cause})
    query = "worker floods queue"
    assert query_paths(cli, vault, query) == ["Bug flood.md", "Rate limit.md", "Cron.md"]
    assert query_paths(cli, vault, query, "--tag", "#OPS") == ["Bug flood.md", "Rate limit.md"]
    assert query_paths(cli, vault, query, "--kind", "Bug") == ["Bug flood.md"]


def test_pages_the_graph_brings_obey_the_excluded_words_as_the_index_does(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """``retry -storm`` brought pages holding "storm" through their links (fresh user)."""
    fix = FIX.replace("Rate limit at the source.", "Rate limit at the source after the storm.")
    cause = '---\nkind: note\ncauses: "[[Bug flood]]"\n---\nA cron job at midnight.\n'
    vault = make_vault({"Bug flood.md": BUG, "Rate limit.md": fix, "Cron.md": cause})
    query = "worker floods queue"
    assert query_paths(cli, vault, query) == ["Bug flood.md", "Rate limit.md", "Cron.md"]
    assert query_paths(cli, vault, f"{query} -storm") == ["Bug flood.md", "Cron.md"]
    assert query_paths(cli, vault, f'{query} -"after the storm"') == ["Bug flood.md", "Cron.md"]
    assert query_paths(cli, vault, f"{query} -cron") == ["Bug flood.md", "Rate limit.md"]


def test_a_page_the_index_lacks_is_never_returned_though_the_sidecar_holds_it(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """The stores disagree for a moment (the index lost a page the sidecar still holds):
    the graph brings the page in from the sidecar's links, and the ranking, reading index
    documents only for the pages it returns, ranks again without it, as a page deleted."""
    cause = '---\nkind: note\ncauses: "[[Bug flood]]"\n---\nA cron job at midnight.\n'
    vault = make_vault({"Bug flood.md": BUG, "Rate limit.md": FIX, "Cron.md": cause})
    query = "worker floods queue"
    assert query_paths(cli, vault, query) == ["Bug flood.md", "Rate limit.md", "Cron.md"]
    reader = open_reader(load_config(vault))
    try:
        with reader.index.batch() as writer:
            writer.delete("Rate limit.md")
        reader.index.reload()
        hits = reader.search(query, explain=True)
        assert [hit.path for hit in hits] == ["Bug flood.md", "Cron.md"]
        assert hits[1].explain is not None and hits[1].explain["rules"] == []
    finally:
        reader.close()


def test_a_long_lived_reader_ranks_on_what_each_write_changed(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """The reads a reader keeps between queries (page_facts.ranked_facts) are read again
    once a batch has been written: the supersedes edge added, then the status changed."""
    plain = NEW.replace('supersedes: "[[Deploy old]]"\n', "") + "Deploy policy.\n"
    vault = make_vault({"Deploy old.md": OLD, "Deploy new.md": plain})
    reader = open_reader(load_config(vault))
    try:
        assert [h.path for h in reader.search("deploy policy")] == [
            "Deploy old.md", "Deploy new.md"
        ]  # fmt: skip
        (vault / "Deploy new.md").write_text(NEW + "Deploy policy.\n")
        assert cli("--vault", str(vault), "sync").code == 0
        reader.index.reload()
        hits = reader.search("deploy policy", explain=True)
        assert [h.path for h in hits] == ["Deploy new.md", "Deploy old.md"]
        assert hits[1].explain is not None
        assert "superseded by Deploy new.md: cap 0.65" in hits[1].explain["authority"]["reasons"]
        (vault / "Deploy new.md").write_text(NEW.replace("kind: decision", "status: archived"))
        assert cli("--vault", str(vault), "sync").code == 0
        reader.index.reload()
        hits = reader.search("deploy policy", explain=True)
        assert [h.path for h in hits] == ["Deploy old.md", "Deploy new.md"]  # through its edge
        assert hits[0].explain is not None and hits[0].explain["authority"]["reasons"] == [
            "kind decision x1.2"
        ]
    finally:
        reader.close()


@pytest.mark.parametrize(
    ("page", "edit"),
    [
        ("Storm.md", ("kind: observation", "kind: observation\nstatus: archived")),
        ("Storm.md", ("kind: observation", "kind: observation\nstatus: superseded")),
        ("Storm.md", ("kind: observation", "kind: observation\nvalid_to: 2020-01-01")),
        ("Retry rule.md", ("kind: rule", "kind: rule\nstatus: archived")),
        ("Retry rule.md", ("kind: rule", "kind: rule\nvalid_to: 2020-01-01")),
        ("Storm v2.md", ("", '---\nsupersedes: "[[Storm]]"\n---\nStorms are gone.\n')),
        ("Rule v2.md", ("", '---\nsupersedes: "[[Retry rule]]"\n---\nAt most three.\n')),
    ],
    ids=[
        "challenger-archived", "challenger-superseded", "challenger-out-of-window",
        "target-archived", "target-out-of-window", "challenger-superseded-by-edge",
        "target-superseded-by-edge",
    ],
)  # fmt: skip
def test_each_way_of_settling_a_contradiction_lifts_its_cap(
    make_vault: Callable[..., Path], cli: Cli, page: str, edit: tuple[str, str]
) -> None:
    """DESIGN §5.4, issue 10 item 5: either side superseded (status or edge), archived or
    outside its window, settles the contradiction: no cap on the target, no rank rule."""
    vault = make_vault({"Retry rule.md": RULE, "Storm.md": OBS})

    def target() -> dict[str, Any]:
        out = cli("--vault", str(vault), "query", "retry", "--explain", "--json")
        assert out.code == 0, out.err
        hits = {hit["path"]: hit["explain"] for hit in out.json()["hits"]}
        return hits["Retry rule.md"]

    before = target()
    assert before["authority"]["reasons"] == [
        "kind rule x1.2",
        "contradicted by Storm.md (open): cap 0.75",
    ]
    old, new = edit
    text = (vault / page).read_text() if old else ""
    (vault / page).write_text(text.replace(old, new, 1) if old else new)
    assert cli("--vault", str(vault), "sync").code == 0
    after = target()
    assert not any("contradicted" in reason for reason in after["authority"]["reasons"])
    assert not any("challenger" in rule for rule in after["rules"])


def test_the_chain_option_walks_two_hops_and_never_a_third(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """Bug <- causes Mid <- causes Root <- causes Deep: one hop by default, two with --chain,
    never three (issue 10, item 3)."""

    def cause(target: str, words: str) -> str:
        return f'---\nkind: note\ncauses: "[[{target}]]"\n---\n{words}\n'

    vault = make_vault(
        {
            "Bug flood.md": BUG,
            "Mid.md": cause("Bug flood", "A cron job at noon."),
            "Root.md": cause("Mid", "Someone set the timer."),
            "Deep.md": cause("Root", "A config file."),
        }
    )
    query = "worker floods queue"
    assert query_paths(cli, vault, query) == ["Bug flood.md", "Mid.md"]
    assert query_paths(cli, vault, query, "--chain") == ["Bug flood.md", "Mid.md", "Root.md"]
    out = cli("--vault", str(vault), "query", query, "--chain", "--explain", "--json")
    via = {hit["path"]: hit["explain"]["graph_via"] for hit in out.json()["hits"]}
    assert via["Root.md"] == {"from": "Mid.md", "type": "causes", "direction": "in", "depth": 2}


@settings(max_examples=400, deadline=None)
@given(
    sessions=st.integers(min_value=0, max_value=60),
    other=st.integers(min_value=0, max_value=60),
    age=st.one_of(st.none(), st.integers(min_value=-30, max_value=5000)),
    contradictions=st.integers(min_value=0, max_value=5),
)
def test_more_supporting_sessions_never_lower_confidence(
    sessions: int, other: int, age: int | None, contradictions: int
) -> None:
    """Property (issue 10, item 6): one more distinct session never lowers confidence; more
    evidence of other kinds neither; an open contradiction never raises it; always in [0, 1)."""
    base = confidence(Support(sessions, other, age, contradictions))
    assert 0.0 <= base < 1.0
    assert confidence(Support(sessions + 1, other, age, contradictions)) >= base
    assert confidence(Support(sessions, other + 1, age, contradictions)) >= base
    assert confidence(Support(sessions, other, age, contradictions + 1)) <= base


def _shape(value: Any) -> Any:
    """A JSON value's shape: keys in order, lists by their first item, leaves by kind."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    return "number" if isinstance(value, int | float) else type(value).__name__


def test_example_vault_retry_storm_and_the_explain_shape_docs_cli_gives(
    tmp_path: Path, cli: Cli
) -> None:
    """Issue 10, must show: the fix (Retry policy v3) comes through its fixes edge and the
    superseded v1 and v2 rank below it; the explain JSON has exactly the shape docs/cli.md
    shows (field_boosts and matches compared by their items' shape)."""
    vault = tmp_path / "example-vault"
    shutil.copytree(REPO / "example-vault", vault, ignore=shutil.ignore_patterns(".vault-sync"))
    assert cli("--vault", str(vault), "sync").code == 0
    out = cli("--vault", str(vault), "query", "retry storm last March", "--explain", "--json",
              "--now", "2026-03-10", "--limit", "20")  # fmt: skip
    assert out.code == 0, out.err
    hits = out.json()["hits"]
    titles = [hit["title"] for hit in hits]
    top = hits[0]["explain"]
    assert titles[0] == "Retry policy v3"
    assert top["graph_via"]["type"] == "fixes"
    assert titles.index("Retry policy v3") < titles.index("Retry policy v2")
    assert titles.index("Retry policy v2") < titles.index("Retry policy v1")
    old = hits[titles.index("Retry policy v2")]["explain"]["authority"]["reasons"]
    assert any(reason.endswith("cap 0.65") for reason in old)
    docs = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    block = docs.split('```json\n"explain": ', 1)[1].split("\n```", 1)[0]
    documented = json.loads(block)
    assert _shape(top) == _shape(documented) | {
        "field_boosts": {key: "number" for key in top["field_boosts"]}
    }
    assert top["dates"]["spans"] == documented["dates"]["spans"]


def test_as_of_shows_a_superseded_page_as_it_was_while_current(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """Issue 10 item 7 (fresh-user report): on a day before its successor started, a page
    whose status now says superseded has no status cap, and the successor (not yet valid)
    lends it no link."""
    old = (
        "---\nkind: decision\nstatus: superseded\nvalid_from: 2026-01-12\n"
        'valid_to: 2026-02-18\nsuperseded_by: "[[V2]]"\n---\nRetry policy: three attempts.\n'
    )
    new = (
        '---\nkind: decision\nvalid_from: 2026-02-18\nsupersedes: "[[V1]]"\n---\n'
        "Retry policy: jitter, retry policy retry policy.\n"
    )
    vault = make_vault({"V1.md": old, "V2.md": new})
    out = cli("--vault", str(vault), "query", "retry policy", "--as-of", "2026-02-01",
              "--explain", "--json")  # fmt: skip
    assert out.code == 0, out.err
    [hit] = out.json()["hits"]
    assert hit["path"] == "V1.md"
    assert hit["explain"]["authority"]["reasons"] == [
        "kind decision x1.2",
        "status superseded: still current on 2026-02-01, no cap",
    ]
    assert hit["explain"]["graph_via"] is None
    later = cli("--vault", str(vault), "query", "retry policy", "--as-of", "2026-02-10",
                "--explain", "--json").json()["hits"]  # fmt: skip
    assert [h["path"] for h in later] == ["V1.md"]
    now = cli("--vault", str(vault), "query", "retry policy", "--explain", "--json").json()
    reasons = {h["path"]: h["explain"]["authority"]["reasons"] for h in now["hits"]}
    assert reasons["V1.md"][1] == "status superseded: cap 0.65"


def test_as_of_filters_and_shows_the_status_a_page_had_that_day(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """A fresh user's report: ``--as-of D --status S`` filtered by today's status, so the
    policy active on D was missing under ``--status active`` and returned under ``--status
    superseded`` (shown "superseded"). The status of D filters and is shown: superseded only
    once a successor had started; a page superseded
    by hand with no successor named stays as it is."""
    old = '---\nkind: decision\nstatus: superseded\nsuperseded_by: "[[V2]]"\n---\nbudget one\n'
    new = '---\nkind: decision\nvalid_from: 2026-02-18\nsupersedes: "[[V1]]"\n---\nbudget two\n'
    alone = "---\nkind: note\nstatus: superseded\n---\nbudget three\n"
    vault = make_vault({"V1.md": old, "V2.md": new, "Alone.md": alone})

    def statuses(*args: str) -> dict[str, str]:
        out = cli("--vault", str(vault), "query", "budget", "--json", *args)
        assert out.code == 0, out.err
        return {h["path"]: h["status"] for h in out.json()["hits"]}

    before = ("--as-of", "2026-02-01")
    assert statuses(*before, "--status", "active") == {"V1.md": "active"}
    assert statuses(*before, "--status", "superseded") == {"Alone.md": "superseded"}
    after = ("--as-of", "2026-03-01")
    assert statuses(*after, "--status", "active") == {"V2.md": "active"}
    assert statuses(*after, "--status", "superseded") == {
        "V1.md": "superseded",
        "Alone.md": "superseded",
    }
    assert statuses("--status", "superseded") == {"V1.md": "superseded", "Alone.md": "superseded"}
    out = cli("--vault", str(vault), "query", "budget", *before, "--explain", "--json")
    reasons = {h["path"]: h["explain"]["authority"]["reasons"] for h in out.json()["hits"]}
    assert reasons["V1.md"][-1] == "status superseded: still current on 2026-02-01, no cap"
    assert reasons["Alone.md"][-1] == "status superseded: cap 0.65"


def test_explain_says_how_the_query_was_read(make_vault: Callable[..., Path], cli: Cli) -> None:
    """A fresh user's report: ``--explain`` never said which words were left out, excluded
    or counted once, nor that a quoted phrase no page holds was searched as its words."""
    vault = make_vault({"A.md": "retry storm budget\n", "B.md": "retry budget draft\n"})
    typed = 'how does the "retry storm" -draft budget Budget retry budget'
    out = cli("--vault", str(vault), "query", typed, "--explain", "--json")
    assert out.code == 0, out.err
    assert out.json()["reading"] == {
        "words": ["budget", "retry"],
        "phrases": ["retry storm"],
        "excluded": ["draft"],
        "stop_words": ["how", "does", "the"],
        "repeats": ["Budget", "budget"],
        "word_pairs": ["budget Budget", "Budget retry", "retry budget"],
        "tags": [],
    }
    assert [h["explain"]["lexical"]["phrases_as_words"] for h in out.json()["hits"]] == [False]
    missing = cli("--vault", str(vault), "query", '"storm retry"', "--explain", "--json").json()
    assert {h["path"]: h["explain"]["lexical"]["phrases_as_words"] for h in missing["hits"]} == {
        "A.md": True,
        "B.md": True,
    }
    text = cli("--vault", str(vault), "query", typed, "--explain").out.splitlines()
    assert text[0] == (
        "read as: words: budget, retry; phrases: retry storm; excluded: draft; stop words left"
        " out: how, does, the; repeats counted once: Budget, budget; word pairs: budget Budget,"
        " Budget retry, retry budget"
    )


def test_the_rules_read_the_facts_of_successors_and_of_both_sides_of_a_contradiction() -> None:
    from vault_sync.page_facts import read_by_rules

    edges = [
        ("New.md", "supersedes", "Old.md"),
        ("Old2.md", "superseded_by", "New2.md"),
        ("Obs.md", "contradicts", "Rule.md"),
        ("Bug.md", "fixes", "Fix.md"),
    ]
    assert read_by_rules(edges) == {"New.md", "New2.md", "Obs.md", "Rule.md"}


TAGGED = {
    "Flood.md": "---\nkind: bug\ntags: [retry]\n---\nThe worker floods the queue in a storm.\n",
    "Nested.md": "---\ntags: [Retry/Backoff]\n---\nA storm of retries.\n",
    "Inline.md": "A storm, tagged inline #RETRY here.\n",
    "Plain.md": "A storm without a tag, and the word retry.\n",
    "Fix.md": '---\nkind: decision\nfixes: "[[Flood]]"\n---\nRate limit at the source.\n',
}


def test_a_hash_tag_in_the_query_filters_by_tag_nested_and_in_any_case(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """A fresh user's report: ``query "#retry storm"`` searched the word, pages of any tag."""
    vault = make_vault(TAGGED)
    assert set(query_paths(cli, vault, "storm")) == set(TAGGED)  # Fix.md through its edge
    tagged = {"Flood.md", "Nested.md", "Inline.md"}
    assert set(query_paths(cli, vault, "#retry storm")) == tagged  # not the graph's Fix.md
    assert set(query_paths(cli, vault, "#Retry")) == tagged  # tags alone: their words searched
    assert query_paths(cli, vault, "#retry/BACKOFF storm") == ["Nested.md"]
    assert set(query_paths(cli, vault, "storm -#retry")) == {"Plain.md"}
    assert query_paths(cli, vault, "#retry #retry/backoff storm") == ["Nested.md"]
    # the --tag option and a #tag both apply
    assert query_paths(cli, vault, "storm", "--tag", "retry/backoff") == ["Nested.md"]
    out = cli("--vault", str(vault), "query", '#Retry storm "a storm" -#draft', "--explain")
    assert out.out.splitlines()[0] == (
        "read as: words: storm; phrases: a storm; tags: retry; excluded: #draft"
    )


def test_a_hash_word_no_tag_answers_is_searched_as_a_word(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """``a marker like #task`` (a question of the obsidian-tasks set) names a marker, not a
    tag: no page so tagged holds the words, so the query is asked again with it as a word,
    as a quoted phrase no page holds is."""
    vault = make_vault(TAGGED)
    assert set(query_paths(cli, vault, "#storm storm")) == set(TAGGED)
    assert query_paths(cli, vault, "#1984 floods") == ["Flood.md", "Fix.md"]  # #1984: no tag
    out = cli("--vault", str(vault), "query", "#nosuch floods", "--explain", "--json").json()
    assert [h["path"] for h in out["hits"]] == ["Flood.md", "Fix.md"]
    assert out["reading"]["tags"] == ["nosuch"]
    assert [h["explain"]["lexical"]["phrases_as_words"] for h in out["hits"]] == [True, True]
