"""Sequence links (Obsidian Breadcrumbs' ``next`` / ``prev`` keys) in the graph stream: the
reply to the turn holding the query's words comes in through its ``prev`` link, the turn
after weighs more than the turn before, and a weight of 0 switches the edge off (small
hand-written vaults; real index, real sidecar, the CLI as a subprocess)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result, query_paths

Cli = Callable[..., Result]

#: Three turns of one conversation, each naming the turn before it; file names put the turn
#: before the question first, so a tie by path would rank it above the reply.
TURNS = {
    "A hello.md": "---\nkind: session\n---\nMel: Hi Caroline, lovely to see you.\n",
    "B question.md": (
        '---\nkind: session\nprev: "[[A hello]]"\n---\nCaroline: How long have you been married?\n'
    ),
    "C reply.md": '---\nkind: session\nprev: "[[B question]]"\n---\nMel: 5 years already!\n',
}
QUERY = "how long married"
#: The weights alone, without the follower-below-its-source rule.
NO_RULE = {"vault-sync.toml": "[ranking]\nfollow_depth = 0\n"}


def test_the_reply_enters_through_its_prev_link_above_the_turn_before(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({**TURNS, **NO_RULE})
    assert query_paths(cli, vault, QUERY) == ["B question.md", "C reply.md", "A hello.md"]
    out = cli("--vault", str(vault), "query", QUERY, "--explain", "--json")
    via = {hit["path"]: hit["explain"]["graph_via"] for hit in out.json()["hits"]}
    assert via["C reply.md"] == {"from": "B question.md", "type": "prev", "direction": "in",
                                 "depth": 1}  # fmt: skip
    assert via["A hello.md"] == {"from": "B question.md", "type": "prev", "direction": "out",
                                 "depth": 1}  # fmt: skip


def test_a_next_link_on_the_question_brings_the_reply_alike(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    pages = {
        "A hello.md": '---\nnext: "[[B question]]"\n---\nMel: Hi Caroline, lovely to see you.\n',
        "B question.md": (
            '---\nnext: "[[C reply]]"\n---\nCaroline: How long have you been married?\n'
        ),
        "C reply.md": "Mel: 5 years already!\n",
    }
    vault = make_vault({**pages, **NO_RULE})
    out = cli("--vault", str(vault), "query", QUERY, "--explain", "--json")
    hits = [(hit["path"], hit["explain"]["graph_via"]) for hit in out.json()["hits"]]
    assert [path for path, _ in hits] == ["B question.md", "C reply.md", "A hello.md"]
    assert [(via["type"], via["direction"]) for _, via in hits[1:]] == [
        ("next", "out"),
        ("next", "in"),
    ]


def test_a_weight_of_zero_switches_the_edge_off(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault(TURNS)
    (vault / "vault-sync.toml").write_text('[ranking.edge_weights]\n"prev.in" = 0\n')
    assert cli("--vault", str(vault), "sync").code == 0
    assert query_paths(cli, vault, QUERY) == ["B question.md", "A hello.md"]


def test_follow_depth_places_the_reply_directly_below_its_question(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    pages = {
        **TURNS,
        "D drive.md": "Mel: How long was the drive? Long, long, long.\n",
        "E queue.md": "Caroline: How long is the queue? So long.\n",
    }
    vault = make_vault(pages)
    settings = vault / "vault-sync.toml"
    settings.write_text("[ranking]\nfollow_depth = 0\n")
    assert cli("--vault", str(vault), "sync").code == 0
    before = query_paths(cli, vault, QUERY)
    assert before[0] == "B question.md" and before.index("C reply.md") > 1
    settings.write_text("[ranking]\nfollow_depth = 1\n")
    assert cli("--vault", str(vault), "sync").code == 0
    out = cli("--vault", str(vault), "query", QUERY, "--explain", "--json")
    hits = out.json()["hits"]
    rest = [path for path in before if path not in ("B question.md", "C reply.md")]
    assert [hit["path"] for hit in hits] == ["B question.md", "C reply.md", *rest]
    assert hits[1]["explain"]["rules"] == ["placed directly below B question.md: follows it"]


#: A best hit, a follower that asks a question back, and its answer, neither holding a word of
#: the query; two distractors hold some of them (a LoCoMo miss: "Who did Nate plan to
#: invite to his gaming party?", gold "Definitely! And some old friends and teammates").
ASKED = {
    "A plans.md": "Nate: I'm organizing a gaming party two weekends later!\n",
    "B asks.md": (
        '---\nprev: "[[A plans]]"\n---\nJoanna: Oh? Are you asking your tournament friends?\n'
    ),
    "C answer.md": '---\nprev: "[[B asks]]"\n---\nNate: Definitely! Old friends and teammates.\n',
    "D board.md": "Joanna: Board games at the party were fun.\n",
    "E console.md": "Nate: My new gaming console arrived.\n",
}
ASKED_QUERY = "who will he invite to his gaming party"


def test_the_answer_to_a_followers_question_is_placed_below_it(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault(ASKED)
    out = cli("--vault", str(vault), "query", ASKED_QUERY, "--explain", "--json")
    hits = out.json()["hits"]
    assert [hit["path"] for hit in hits[:3]] == ["A plans.md", "B asks.md", "C answer.md"]
    answer = hits[2]["explain"]
    assert answer["graph_via"] == {"from": "B asks.md", "type": "prev", "direction": "in",
                                   "depth": 2}  # fmt: skip
    assert answer["rules"] == ["placed directly below B asks.md: answers the question it asks"]


def test_one_follow_hop_leaves_the_answer_out(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault({**ASKED, "vault-sync.toml": "[ranking]\nfollow_hops = 1\n"})
    paths = query_paths(cli, vault, ASKED_QUERY)
    assert paths[:2] == ["A plans.md", "B asks.md"] and "C answer.md" not in paths


def test_a_follower_that_asks_nothing_pulls_no_second_page(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    asked = "Oh? Are you asking your tournament friends?"
    told = {**ASKED, "B asks.md": ASKED["B asks.md"].replace(asked, "Oh. Your friends, then.")}
    vault = make_vault(told)
    out = cli("--vault", str(vault), "query", ASKED_QUERY, "--explain", "--json")
    hits = {hit["path"]: hit for hit in out.json()["hits"]}
    order = list(hits)
    assert order[:2] == ["A plans.md", "B asks.md"]
    assert order.index("C answer.md") > 2 and hits["C answer.md"]["explain"]["rules"] == []


def test_follow_hops_above_two_is_refused(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault({**ASKED, "vault-sync.toml": "[ranking]\nfollow_hops = 3\n"})
    out = cli("--vault", str(vault), "query", ASKED_QUERY)
    assert out.code == 2
    assert out.err == f"Error: {vault / 'vault-sync.toml'}: ranking.follow_hops must be 1 or 2\n"
