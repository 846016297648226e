"""The not-yet stage (:mod:`vault_sync.not_yet`): a session dated after the day a question is
asked for sinks below the sessions that had happened by then (real index, real sidecar, the
CLI as a subprocess)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result, query_paths
from vault_sync.app import Engine
from vault_sync.config import load_config
from vault_sync.not_yet import not_yet_factor

Cli = Callable[..., Result]

NOW = "2023-05-20"
PAGE = "---\nkind: {kind}\ndate: {date}\n---\n{body}\n"
#: z.md holds the words more often than a.md (it ranks first on words alone) and is dated
#: after NOW; n.md is a note dated after NOW (a kind the stage leaves alone).
VAULT = {
    "a.md": PAGE.format(kind="session", date="2023-05-10", body="We planted roses in the garden."),
    "z.md": PAGE.format(
        kind="session", date="2023-06-01T09:00:00", body="Roses, roses: the garden roses again."
    ),
    "n.md": PAGE.format(kind="note", date="2023-06-02", body="Roses and garden roses, roses."),
}


def test_the_factor_reads_kind_and_day() -> None:
    factors = {"session": 0.1}
    assert not_yet_factor("session", "2023-05-21", NOW, factors) == 0.1
    assert not_yet_factor("session", "2023-05-21T00:10", NOW, factors) == 0.1
    assert not_yet_factor("session", "2023-05-20T23:59", NOW, factors) == 1.0  # the same day
    assert not_yet_factor("session", "2023-05-19", NOW, factors) == 1.0
    assert not_yet_factor("note", "2024-01-01", NOW, factors) == 1.0
    assert not_yet_factor("session", None, NOW, factors) == 1.0
    assert not_yet_factor(None, "2024-01-01", NOW, factors) == 1.0


def test_a_session_after_now_sinks_below_one_before_it(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    """Asked for NOW, z.md (a session of June) falls below a.md; the note of June keeps its
    place; asked for July nothing is in the future; the switch and the setting restore the
    words' order."""
    vault = make_vault(VAULT)
    assert query_paths(cli, vault, "garden roses", "--now", NOW) == ["n.md", "a.md", "z.md"]
    assert query_paths(cli, vault, "garden roses", "--now", "2023-07-01") == [
        "n.md",
        "z.md",
        "a.md",
    ]
    out = cli("--vault", str(vault), "query", "garden roses", "--json", "--explain",
              "--now", NOW)  # fmt: skip
    factors = {h["path"]: h["explain"]["not_yet_factor"] for h in out.json()["hits"]}
    assert factors == {"n.md": 1.0, "a.md": 1.0, "z.md": 0.1}
    hits, _ = Engine(load_config(vault)).search(
        "garden roses", now=NOW, switches=frozenset({"no-not-yet"})
    )
    assert [h.path for h in hits] == ["n.md", "z.md", "a.md"]
    (vault / "vault-sync.toml").write_text("[ranking.not_yet_factors]\nsession = 1\n")
    assert query_paths(cli, vault, "garden roses", "--now", NOW) == ["n.md", "z.md", "a.md"]
