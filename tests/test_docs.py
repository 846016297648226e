"""docs/cli.md agrees with the command line (issue 16, item 8): every command has its section,
every option a command takes is named in its section, and every option a heading names exists.
Read from the real click objects, so a new option without docs fails here."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from tests.conftest import REPO, query_paths, run_cli
from vault_sync.cli import cli

DOC = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
#: A section: its heading line and its text up to the next heading of the same level.
SECTIONS = {
    m.group(2): (m.group(1), m.group(3))
    for m in re.finditer(r"^(## `vault-sync (\w[\w-]*)[^\n]*)\n(.*?)(?=^## |\Z)", DOC, re.S | re.M)
}
#: Options every command has and the top of docs/cli.md describes once.
SHARED = {"--help", "-h", "--vault"}


def _top_commands() -> dict[str, click.Command]:
    """Every top-level command, the lazily imported ones (``LazyGroup``) loaded."""
    group: click.Group = cli  # type: ignore[assignment]
    ctx = click.Context(group)
    found = {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}
    return {name: command for name, command in found.items() if command is not None}


def _commands() -> list[tuple[str, click.Command]]:
    out: list[tuple[str, click.Command]] = []
    for name, command in sorted(_top_commands().items()):
        if isinstance(command, click.Group):
            out += [(name, sub) for sub in command.commands.values()]
        else:
            out.append((name, command))
    return out


def _options(command: click.Command) -> set[str]:
    names: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names.update(o for o in param.opts if o.startswith("--"))
    return names - SHARED


@pytest.mark.parametrize(("section", "command"), _commands(), ids=lambda c: getattr(c, "name", c))
def test_every_option_of_a_command_is_in_its_docs_section(
    section: str, command: click.Command
) -> None:
    assert section in SECTIONS, f"docs/cli.md has no section for `vault-sync {section}`"
    heading, text = SECTIONS[section]
    missing = sorted(o for o in _options(command) if o not in heading + text)
    assert missing == [], f"`vault-sync {section} {command.name}`: options not in docs/cli.md"


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_every_option_a_docs_heading_names_exists(section: str) -> None:
    heading, _ = SECTIONS[section]
    named = set(re.findall(r"--[a-z][a-z-]*", heading)) - SHARED
    command = _top_commands()[section]
    subs = command.commands.values() if isinstance(command, click.Group) else [command]
    taken = set().union(*(_options(sub) for sub in subs))
    assert sorted(named - taken) == []


def test_rebuild_help_and_docs_say_the_same() -> None:
    # they disagreed: --help said it deletes the stores, the docs that it builds beside them
    rebuild = _top_commands()["rebuild"]
    assert "beside the old ones" in (rebuild.help or "")
    assert "beside the old ones" in SECTIONS["rebuild"][1]


@pytest.mark.parametrize(("section", "command"), _commands(), ids=lambda c: getattr(c, "name", c))
def test_every_help_summary_is_quoted_in_its_docs_section(
    section: str, command: click.Command
) -> None:
    # issue 16, item 8: `--help` and docs/cli.md disagreed (rebuild); each section quotes the
    # first paragraph of its command's --help, so changing one without the other fails here
    summary = " ".join(re.split(r"\n\s*\n", (command.help or "").strip())[0].split())
    label = section if section == command.name else f"{section} {command.name}"
    _, text = SECTIONS[section]
    assert f"> `{label} --help`: {summary}\n" in text, f"docs/cli.md: quote it under {section}"


def test_query_tag_filter_help_and_docs_say_what_the_code_does(
    make_vault: Callable[..., Path],
) -> None:
    """Fresh-user report: `query --help` said `--tag '#incident'` works, docs/cli.md said
    "without `#`". Both now say what the CLI does, checked here on a real vault."""
    help_text = " ".join((_top_commands()["query"].help or "").split())
    docs_text = " ".join(SECTIONS["query"][1].split())
    assert "--tag incident (also '#incident' or Incident: a leading # and case are ignored;" in (
        help_text
    )
    assert "`--tag incident` (also `#incident` or `Incident`: a leading `#` and case" in docs_text
    assert "without `#`" not in docs_text
    for said in (help_text, docs_text.replace("`", "")):
        assert "--tag ops finds ops/deploy" in said
    vault = make_vault(
        {
            "a.md": "---\ntags: [incident]\n---\nlantern\n",
            "b.md": "---\ntags: [ops/deploy]\n---\nlantern\n",
            "c.md": "lantern #other\n",
        }
    )
    for tag, paths in (
        ("incident", ["a.md"]),
        ("#incident", ["a.md"]),
        ("Incident", ["a.md"]),
        ("ops", ["b.md"]),
        ("#ops/deploy", ["b.md"]),
    ):
        assert query_paths(run_cli, vault, "lantern", "--tag", tag) == paths, tag
