"""The known-answer query sets in benchmarks/queries/ are well formed and point at real pages.

Each ``<corpus>.jsonl`` is checked against ``../shared/corpora/<corpus>`` (read only): every line
parses, has the keys, a known group and split, 1-3 expected pages that exist on disk (NFC
paths relative to the vault root), and both splits hold every group.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, corpus

QUERIES = REPO / "benchmarks" / "queries"
SETS = ("obsidian-tasks-docs", "silverbullet-docs", "dnd-srd-zh")
GROUPS = {"keyword", "question", "paraphrase", "identifier", "multi-hop"}
SPLITS = {"dev", "test"}
KEYS = {"query", "expected", "group", "split"}


def _lines(name: str) -> list[tuple[int, dict[str, Any]]]:
    """Parse ``benchmarks/queries/<name>.jsonl`` into (line number, record) pairs."""
    path = QUERIES / f"{name}.jsonl"
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            pytest.fail(f"{path}:{number}: not JSON: {exc}")
        assert isinstance(record, dict), f"{path}:{number}: not a JSON object"
        out.append((number, record))
    return out


@pytest.mark.parametrize("name", SETS)
def test_every_line_is_well_formed(name: str) -> None:
    path = QUERIES / f"{name}.jsonl"
    for number, record in _lines(name):
        where = f"{path}:{number}"
        assert set(record) == KEYS, f"{where}: keys {sorted(record)}, want {sorted(KEYS)}"
        assert isinstance(record["query"], str) and record["query"].strip(), f"{where}: query"
        assert record["group"] in GROUPS, f"{where}: unknown group {record['group']!r}"
        assert record["split"] in SPLITS, f"{where}: unknown split {record['split']!r}"
        expected = record["expected"]
        assert isinstance(expected, list) and 1 <= len(expected) <= 3, f"{where}: 1-3 expected"
        assert len(set(expected)) == len(expected), f"{where}: an expected page repeats"


@pytest.mark.parametrize("name", SETS)
def test_expected_pages_exist_in_the_corpus(name: str) -> None:
    root = corpus(name)
    path = QUERIES / f"{name}.jsonl"
    for number, record in _lines(name):
        for rel in record["expected"]:
            where = f"{path}:{number}: {rel!r}"
            assert unicodedata.normalize("NFC", rel) == rel, f"{where} is not NFC"
            assert rel.endswith(".md") and not Path(rel).is_absolute(), f"{where}: want a .md path"
            assert (root / rel).is_file(), f"{where} not found in {root}"


@pytest.mark.parametrize("name", SETS)
def test_both_splits_hold_every_group(name: str) -> None:
    records = [record for _, record in _lines(name)]
    cells = Counter((r["group"], r["split"]) for r in records)
    missing = [f"{g}/{s}" for g in sorted(GROUPS) for s in sorted(SPLITS) if not cells[(g, s)]]
    assert not missing, f"{QUERIES / name}.jsonl: no queries for {missing}"
    queries = Counter(r["query"] for r in records)
    assert not [q for q, n in queries.items() if n > 1], f"{name}: a query repeats"


@pytest.mark.parametrize("name", SETS)
def test_default_is_not_below_plain_bm25_on_the_test_split(name: str, tmp_path: Path) -> None:
    """Issue 16, item 3: the gate. `eval queries` on a copy of the corpus; the default must
    match or beat the harness's plain BM25 over whole files on hit@5 and MRR (test split)."""
    from tests.conftest import copy_corpus, run_cli

    vault = copy_corpus(name, tmp_path)
    args = ["eval", "queries", str(QUERIES / f"{name}.jsonl"), "--split", "test"]
    result = run_cli("--vault", str(vault), *args, "--ablate", "plain-bm25", "--json", timeout=600)
    assert result.code == 0, result.err
    table = result.json()["table"]["all"]
    default, plain = table["default"], table["plain-bm25"]
    assert default["n"] == plain["n"] == {"obsidian-tasks-docs": 32, "silverbullet-docs": 32,
                                          "dnd-srd-zh": 24}[name]  # fmt: skip
    assert {m: default[m] >= plain[m] for m in ("hit@5", "MRR")} == {"hit@5": True, "MRR": True}
