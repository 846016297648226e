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


def test_sections_not_shown_at_all_are_named_with_a_command_that_lists_each(
    vault: Path, cli: Cli
) -> None:
    """The line counting the sections a small budget left out gives, for each, the command
    that prints it, runnable as written (it lists the section's every line)."""
    dropped = re.compile(r"^… (\d+) more in (\d+) sections? not shown: (.*)$", re.M)
    seen, forms = 0, set()
    for budget in (300, 340, 400, 600, 800, 1300):
        for scope in ([], ["--project", "payments"]):
            text = cli("--vault", str(vault), "brief", "--budget-chars", str(budget), "--out",
                       "-", *scope).out  # fmt: skip
            line = dropped.search(text)
            if line is None:
                continue
            commands = re.findall(r"`([^`]+)`", line[3])
            if "NAME" in line[3]:  # the short form: one command, then the names
                template, names = commands[0], line[3].split("NAME: ", 1)[1].split(", ")
                commands = [template.replace("NAME", name) for name in names]
                forms.add("template")
            else:
                forms.add("named" if line[3].startswith(tuple(SECTIONS.values())) else "commands")
            assert len(commands) == int(line[2]), line[0]
            listed = 0
            for command in commands:
                argv = shlex.split(command)
                assert argv[0] == "vault-sync" and argv[-2:] == (scope or argv[-2:]), command
                out = cli("--vault", str(vault), *argv[1:])
                assert out.code == 0, (command, out.err)
                lines = out.out.splitlines()
                assert lines[0] not in text.splitlines(), command  # a section not shown
                listed += len(lines) - 1
            assert listed == int(line[1]), line[0]
            seen += 1
    assert seen >= 4 and "template" in forms, forms


@pytest.mark.parametrize(
    ("budget", "form"),
    [
        (
            400,
            ": B (1) `vault-sync brief --section fixes --project p`, C (2) `vault-sync brief"
            " --section changed --project p`",
        ),
        (
            350,
            ": `vault-sync brief --section fixes --project p`, `vault-sync brief --section"
            " changed --project p`",
        ),
        (330, ": `vault-sync brief --section NAME --project p`, NAME: fixes, changed"),
        (305, ""),
    ],
)
def test_the_line_of_sections_not_shown_takes_the_richest_form_that_fits(
    budget: int, form: str
) -> None:
    """Filling counts that line bare (the same lines shown at every form); what room is left
    picks its form: headings and commands, commands, one command with NAME, bare."""
    from vault_sync.brief_render import Section, render

    parts = [
        Section("A", ["- a"], "vault-sync brief --section standing"),
        Section("B", ["- " + "b" * 2000], "vault-sync brief --section fixes"),
        Section("C", ["- " + "c" * 2000, "- c"], "vault-sync brief --section changed"),
    ]
    text, counts = render(parts, project="p", budget=budget)
    assert len(text) <= budget and counts["A"]["shown"] == 1
    assert f"\n… 3 more in 2 sections not shown{form}\n" in text, text


def test_a_section_printed_in_pages_is_the_whole_section(vault: Path, cli: Cli) -> None:
    """``--offset`` / ``--limit`` page a section; each page's last line is the command for the
    next, and the pages joined are the section printed whole; ``--json`` the same lines."""
    whole = cli("--vault", str(vault), "brief", "--section", "changed").out.splitlines()
    assert len(whole) > 5
    got, argv = [], ["brief", "--section", "changed", "--limit", "2"]
    for _ in range(len(whole)):
        page = cli("--vault", str(vault), *argv).out.splitlines()
        assert page[0] == whole[0]
        pointer = _POINTER.fullmatch(page[-1])
        got += page[1:-1] if pointer else page[1:]
        if pointer is None:
            break
        assert int(pointer[1]) == len(whole) - 1 - len(got)
        argv = shlex.split(pointer[2])[1:]
    assert got == whole[1:]
    js = cli("--vault", str(vault), "brief", "--section", "changed", "--offset", "1",
             "--limit", "2", "--json").json()  # fmt: skip
    assert js == {"section": whole[0][3:], "lines": whole[2:4], "total": len(whole) - 1,
                  "offset": 1}  # fmt: skip
    past = cli("--vault", str(vault), "brief", "--section", "changed", "--offset", "999").out
    assert past == f"{whole[0]}\n(no lines past 999: the section has {len(whole) - 1})\n"
    alone = cli("--vault", str(vault), "brief", "--limit", "2")
    assert alone.code == 2 and "--offset and --limit apply to --section only" in alone.err
