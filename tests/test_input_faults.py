"""Faults a fresh user found (given only the README), each as the kind of input it is: the
CLI as a subprocess, exact one-line errors, and nothing lost or written where it must not be."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]


@pytest.fixture
def vault(make_vault: Callable[..., Path], cli: Cli) -> Path:
    root = make_vault(
        {
            "evstr.md": "---\nkind: rule\nstatus: active\n---\nalpha\n",
            "nofm.md": "bravo\n",
        }
    )
    assert cli("--vault", str(root), "sync").code == 0
    return root


def test_a_page_key_is_never_a_relation_type(vault: Path, cli: Cli) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    calls = [
        ("link", "evstr", relation, "nofm")
        for relation in ("kind", "title", "evidence", "tags", "aliases", "project", "Valid-To")
    ]
    calls += [("unlink", "evstr", "status", "nofm"), ("remember", "X", "--kind", "rule")]
    calls[-1] += ("--relation", "id=nofm")
    for args in calls:
        key = args[2].lower().replace("-", "_") if args[0] != "remember" else "id"
        result = cli("--vault", str(vault), *args)
        assert (result.code, result.err) == (
            2,
            f"Error: {key!r} is a page key, not a relation type (give fixes, causes, related"
            " or a name of your own)\n",
        ), args
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    linked = cli("--vault", str(vault), "link", "evstr", "fixes", "nofm")
    assert linked.code == 0
    assert (vault / "evstr.md").read_text() == (
        '---\nkind: rule\nstatus: active\nfixes: "[[nofm]]"\n---\nalpha\n'
    )
