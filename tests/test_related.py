"""`vault-sync related` (issue 10, item 9): a page's typed neighbourhood, both directions,
resolved links only, bounded depth, deterministic order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result

Cli = Callable[..., Result]

PAGES = {
    "Bug A.md": '---\nkind: bug\ncauses: "[[Queue backlog]]"\n---\nthe storm\n',
    "Fix A.md": '---\nkind: decision\nfixes: "[[Bug A]]"\n---\nthe fix, see [[Gone]]\n',
    "Queue backlog.md": "---\nkind: observation\n---\nqueue grows, see [[Deep]]\n",
    "Deep.md": "---\nkind: note\n---\ntwo hops away [[Deeper]]\n",
    "Deeper.md": "three hops\n",
    "Gone.md": "to be deleted\n",
}


def _related(cli: Cli, vault: Path, *args: str) -> list[tuple[str, str, str, int]]:
    out = cli("--vault", str(vault), "related", *args, "--json")
    assert out.code == 0, out.err
    return [(n["path"], n["type"], n["direction"], n["depth"]) for n in out.json()["neighbours"]]


def test_neighbours_both_ways_by_type_then_depth(make_vault: Callable[..., Path], cli: Cli) -> None:
    vault = make_vault(PAGES)
    assert _related(cli, vault, "Bug A") == [
        ("Queue backlog.md", "causes", "out", 1),
        ("Fix A.md", "fixes", "in", 1),
    ]
    assert _related(cli, vault, "Bug A", "--depth", "2") == [
        ("Queue backlog.md", "causes", "out", 1),
        ("Fix A.md", "fixes", "in", 1),
        ("Deep.md", "references", "out", 2),
        ("Gone.md", "references", "out", 2),
    ]
    assert _related(cli, vault, "Bug A", "--type", "fixes") == [("Fix A.md", "fixes", "in", 1)]
    assert cli("--vault", str(vault), "related", "Bug A", "--depth", "4").code == 2


def test_deleted_and_unresolved_targets_never_come_back(
    make_vault: Callable[..., Path], cli: Cli
) -> None:
    vault = make_vault({**PAGES, "Fix A.md": PAGES["Fix A.md"] + "and [[Nowhere]]\n"})
    (vault / "Gone.md").unlink()
    assert cli("--vault", str(vault), "sync").code == 0
    assert _related(cli, vault, "Fix A") == [("Bug A.md", "fixes", "out", 1)]
    text = cli("--vault", str(vault), "related", "Fix A").out
    assert text == "Fix A  [Fix A.md]\n  -> fixes: Bug A  [Bug A.md] (bug)\n"
