"""Every "… N more" line of a briefing is a command an agent can run as written (fresh-user
report, item 9: ``vault-sync lint --project payments`` under "Open contradictions" exited 2,
and ``lint`` lists no contradictions). Each pointer is run here, the CLI as a subprocess: it
exits 0 and lists the section whole, the lines the briefing showed first and then the N it cut.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, Result
from vault_sync.app import Engine
from vault_sync.briefing import SECTIONS

Cli = Callable[..., Result]
_POINTER = re.compile(r"- … (\d+) more: `([^`]+)`")


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of example-vault with a ``[[brief.targets]]`` entry (a pointer must work on a
    vault that writes targets too: there ``brief --project`` alone is refused)."""
    root = tmp_path_factory.mktemp("pointers") / "example-vault"
    shutil.copytree(REPO / "example-vault", root, ignore=shutil.ignore_patterns(".vault-sync"))
    (root / "vault-sync.local.toml").write_text(
        '[[brief.targets]]\npath = "BRIEF.md"\nmode = "file"\n', encoding="utf-8"
    )
    Engine.open(root).sync()
    return root


def _pointers(text: str) -> list[tuple[str, list[str], int, str]]:
    """``(heading, lines shown, N cut, command)`` of each section ending in a pointer."""
    out = []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, *rest = block.strip("\n").split("\n")
        lines = [line for line in rest if line.startswith("- ")]  # not the closing line
        pointer = _POINTER.fullmatch(lines[-1]) if lines else None
        if pointer is not None:
            out.append((heading, lines[:-1], int(pointer[1]), pointer[2]))
    return out


@pytest.mark.parametrize("project", [None, "payments"])
def test_every_more_line_runs_and_lists_what_the_briefing_cut(
    vault: Path, cli: Cli, project: str | None
) -> None:
    scope = ["--project", project] if project else []
    sections = cli("--vault", str(vault), "brief", "--out", "-", "--json", *scope).json()
    # a section of one line is shown whole or not at all: never cut with a pointer
    several = {heading for heading, n in sections["sections"].items() if n["total"] > 1}
    pointed: set[str] = set()
    for budget in (600, 800, 1000, 1300, 2000, 4000):
        brief = cli("--vault", str(vault), "brief", "--budget-chars", str(budget), "--out", "-",
                    *scope)  # fmt: skip
        assert brief.code == 0, brief.err
        for heading, shown, cut, command in _pointers(brief.out):
            argv = shlex.split(command)
            assert argv[0] == "vault-sync" and "<" not in command, command  # runnable as is
            listed = cli("--vault", str(vault), *argv[1:])
            assert listed.code == 0, (command, listed.err)
            lines = listed.out.splitlines()
            assert lines[0] == f"## {heading}", command
            assert lines[1 : 1 + len(shown)] == shown, command  # the same lines, in order
            assert len(lines) - 1 == len(shown) + cut, command  # and then exactly the N cut
            assert len(set(lines)) == len(lines), command
            pointed.add(heading)
    # each section of several lines was cut, and its pointer run, at one budget at least
    assert pointed == several and len(several) == (4 if project is None else 3)


def test_a_section_lists_what_the_whole_briefing_shows(vault: Path, cli: Cli) -> None:
    """With nothing cut by the budget, ``--section`` lists the briefing's lines, and the recent
    lists beyond their caps (5 sessions, 10 pages) too; ``--json`` the same lines."""
    whole = cli("--vault", str(vault), "brief", "--out", "-", "--json").json()
    for name, heading in SECTIONS.items():
        out = cli("--vault", str(vault), "brief", "--section", name, "--json")
        assert out.code == 0, out.err
        got = out.json()
        assert (got["section"], got["total"]) == (heading, whole["sections"][heading]["total"])
        assert len(got["lines"]) == got["total"]
        assert all(line in got["lines"] for line in _lines(whole["text"], heading))


def _lines(text: str, heading: str) -> list[str]:
    block = text.split(f"## {heading}\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in block.split("\n") if line.startswith("- ") and " more: `" not in line]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--section", "lint"), "Invalid value for '--section': 'lint' is not one of"),
        (("--section", "fixes", "--out", "x.md"), "--out does not apply"),
        (("--section", "fixes", "--budget-chars", "0"), "--budget-chars does not apply"),
        (
            ("--section", "fixes", "--budget-chars", "900", "--check"),
            "--budget-chars and --check do not apply",
        ),
    ],
)
def test_section_options_that_do_not_apply_are_usage_errors(
    vault: Path, cli: Cli, args: tuple[str, ...], message: str
) -> None:
    out = cli("--vault", str(vault), "brief", *args)
    assert out.code == 2 and message in out.err, out.err
    assert not (vault / "x.md").exists()
