"""The benchmark vault generator is deterministic and covers the page format."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from generate_vault import generate, tree_digest


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    generate(tmp_path / "a", 300, 7)
    generate(tmp_path / "b", 300, 7)
    generate(tmp_path / "c", 300, 8)
    assert tree_digest(tmp_path / "a") == tree_digest(tmp_path / "b")
    assert tree_digest(tmp_path / "a") != tree_digest(tmp_path / "c")


def test_every_feature_appears(tmp_path: Path) -> None:
    generate(tmp_path, 1000, 1)
    pages = list(tmp_path.rglob("*.md"))
    assert len(pages) == 1000
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    for needle in (
        "\nid: ",
        "\ntitle: ",
        "\nkind: ",
        "\nproject: ",
        "\ntags: [",
        '\ntags: "',
        "\naliases: ",
        "\nstatus: ",
        "\nvalid_from: ",
        "\nvalid_to:",
        "\ncauses: ",
        "\nfixes: ",
        "\ncontradicts: ",
        "\nsupersedes: ",
        "\nsuperseded_by: ",
        "\nrelated: ",
        "\nreferences: ",
        "\nowner: ",
        "\nevidence:\n  - ",
        "  - {kind: ",
        "|",
        "#^b",
        "[[#",
        "![[",
        "](",
        "\n## ",
        "\n```",
        "# not a link: [[",
        ":: [[",
    ):
        assert needle in text, needle
    assert any("\u4e00" <= c <= "\u9fff" for c in text)
    depths = {len(p.relative_to(tmp_path).parts) - 1 for p in pages}
    assert {2, 3} <= depths
