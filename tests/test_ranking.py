"""The ranking pipeline (issue 10): supersession, contradiction, graph and filter semantics
on small hand-written vaults (real index, real sidecar, the CLI as a subprocess)."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result
from vault_sync.config import load_config

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


def _paths(cli: Cli, vault: Path, *args: str) -> list[str]:
    out = cli("--vault", str(vault), "query", *args, "--json")
    assert out.code == 0, out.err
    return [hit["path"] for hit in out.json()["hits"]]


def test_a_successor_ranks_directly_above_what_it_supersedes(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Deploy old.md": OLD, "Deploy new.md": NEW})
    assert _paths(cli, vault, "deploy policy") == ["Deploy new.md", "Deploy old.md"]
    ablated = _paths(cli, vault, "deploy policy", "--limit", "1")
    assert ablated == ["Deploy new.md"]


def test_an_open_contradiction_puts_the_challenger_above_until_it_is_settled(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Retry rule.md": RULE, "Storm.md": OBS})
    assert _paths(cli, vault, "retry") == ["Storm.md", "Retry rule.md"]
    (vault / "Storm.md").write_text(
        OBS.replace("kind: observation", "kind: observation\nstatus: archived")
    )
    assert cli("--vault", str(vault), "sync").code == 0
    assert _paths(cli, vault, "retry") == ["Retry rule.md", "Storm.md"]


def test_a_fix_enters_through_its_edge_and_a_deleted_page_never_does(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({"Bug flood.md": BUG, "Rate limit.md": FIX})
    assert _paths(cli, vault, "worker floods queue") == ["Bug flood.md", "Rate limit.md"]
    out = cli("--vault", str(vault), "query", "worker floods queue", "--explain", "--json")
    via = out.json()["hits"][1]["explain"]["graph_via"]
    assert via == {"from": "Bug flood.md", "type": "fixes", "direction": "in", "depth": 1}
    (vault / "Rate limit.md").unlink()
    assert cli("--vault", str(vault), "sync").code == 0
    assert _paths(cli, vault, "worker floods queue") == ["Bug flood.md"]


def test_as_of_hides_pages_outside_their_window(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault(
        {
            "A.md": "---\nvalid_from: 2024-01-01\nvalid_to: 2024-06-30\n---\nbudget rule\n",
            "B.md": "---\nvalid_from: 2024-07-01\n---\nbudget rule too\n",
        }
    )
    assert _paths(cli, vault, "budget", "--as-of", "2024-03-01") == ["A.md"]
    assert _paths(cli, vault, "budget", "--as-of", "2025-01-01") == ["B.md"]
    assert sorted(_paths(cli, vault, "budget")) == ["A.md", "B.md"]


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
    assert _paths(cli, vault, query) == ["Bug flood.md", "Rate limit.md", "Cron.md"]
    assert _paths(cli, vault, query, "--tag", "#OPS") == ["Bug flood.md", "Rate limit.md"]
    assert _paths(cli, vault, query, "--kind", "Bug") == ["Bug flood.md"]
