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
