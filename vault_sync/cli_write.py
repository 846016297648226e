"""The agent-write commands: ``reinforce``, ``retract``, ``archive``, ``link``, ``unlink``,
``supersede``, ``resolve`` (issue 11; docs/writing.md).

Each is one :class:`~vault_sync.app.Engine` call. Every command takes ``--dry-run`` (print the
diff, write nothing) and ``--json`` (``{"command", "dry_run", "pages": [{"path", "changed",
"diff"}], "redacted"}``). Output is the unified diff of each page written; exit 0 also when
nothing had to change (``changed: false``: the edit was already there).

``vault-sync`` imports this module only when one of these commands runs (``cli.py`` names
each in its lazy command table), so ``query`` never loads it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vault_sync.cli_common import (
    emit_json,
    engine_for,
    iso_date,
    json_option,
    one_line,
    print_notice,
    vault_option,
)

if TYPE_CHECKING:
    from vault_sync.edits import EditReport

F = TypeVar("F", bound=Callable[..., Any])


def write_options(func: F) -> F:
    """``--dry-run``, ``--json`` and ``--vault``, which every write command takes."""
    func = click.option("--dry-run", is_flag=True, help="Show the diff; write nothing.")(func)
    return vault_option(json_option(func))


def show_report(report: EditReport, as_json: bool) -> None:
    """Print a write's report: JSON, or per page its diff (or that nothing changed)."""
    print_notice(report.notice)
    if as_json:  # the warnings are in the JSON
        emit_json(report.as_json())
        return
    for warning in report.warnings:
        click.echo(one_line(f"warning: {warning}"), err=True)
    for page in report.pages:
        if not page["changed"]:
            click.echo(one_line(f"{page['path']}: already so, nothing to change"))
            continue
        click.echo(page["diff"], nl=False)
    if report.redacted:
        labels = ", ".join(sorted(set(report.redacted)))
        click.echo(f"redacted from the input: {labels}", err=True)
    if report.dry_run:
        click.echo("(dry run: nothing written)", err=True)


@click.command()
@click.argument("page")
@click.option(
    "--evidence", required=True, help="KIND:SOURCE (session:ID, observation:ID...) or JSON."
)
@click.option("--at", callback=iso_date, default=None, help="When (ISO 8601 date or datetime).")
@click.option("--note", default=None, help="A short note kept with the evidence.")
@write_options
def reinforce(
    page: str,
    evidence: str,
    at: str | None,
    note: str | None,
    dry_run: bool,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Add evidence to PAGE (once per kind and source)."""
    report = engine_for(vault).write(
        "reinforce", page=page, evidence=evidence, at=at, note=note, dry_run=dry_run
    )
    show_report(report, as_json)


@click.command()
@click.argument("page")
@click.option("--evidence", required=True, help="KIND:SOURCE of the entry to remove.")
@write_options
def retract(page: str, evidence: str, dry_run: bool, vault: Path | None, as_json: bool) -> None:
    """Remove a wrong evidence entry from PAGE."""
    show_report(
        engine_for(vault).write("retract", page=page, evidence=evidence, dry_run=dry_run), as_json
    )


@click.command()
@click.argument("page")
@write_options
def archive(page: str, dry_run: bool, vault: Path | None, as_json: bool) -> None:
    """Set PAGE's status to archived (it leaves the standing answers)."""
    show_report(engine_for(vault).write("archive", page=page, dry_run=dry_run), as_json)


@click.command()
@click.argument("source")
@click.argument("relation")
@click.argument("target")
@write_options
def link(
    source: str, relation: str, target: str, dry_run: bool, vault: Path | None, as_json: bool
) -> None:
    """Add a typed relation: SOURCE RELATION TARGET (e.g. "Fix A" fixes "Bug B")."""
    report = engine_for(vault).write(
        "link", source=source, relation=relation, target=target, dry_run=dry_run
    )
    show_report(report, as_json)


@click.command()
@click.argument("source")
@click.argument("relation")
@click.argument("target")
@write_options
def unlink(
    source: str, relation: str, target: str, dry_run: bool, vault: Path | None, as_json: bool
) -> None:
    """Remove a typed relation SOURCE RELATION TARGET."""
    report = engine_for(vault).write(
        "unlink", source=source, relation=relation, target=target, remove=True, dry_run=dry_run
    )
    show_report(report, as_json)


@click.command()
@click.argument("old")
@click.argument("new")
@write_options
def supersede(old: str, new: str, dry_run: bool, vault: Path | None, as_json: bool) -> None:
    """Mark OLD as superseded by NEW (both pages are edited)."""
    show_report(engine_for(vault).write("supersede", old=old, new=new, dry_run=dry_run), as_json)


@click.command()
@click.argument("page")
@click.option(
    "--by",
    type=click.Choice(["supersede", "archive"]),
    default="supersede",
    show_default=True,
    help="What happens to the page not kept.",
)
@click.option(
    "--keep",
    default=None,
    help="The side that wins: PAGE or the page it contradicts (default: PAGE, even if older).",
)
@write_options
def resolve(
    page: str, by: str, keep: str | None, dry_run: bool, vault: Path | None, as_json: bool
) -> None:
    """Settle a contradiction of PAGE: the kept side wins, the other is superseded or
    archived, and the contradicts links between them are removed."""
    report = engine_for(vault).write("resolve", page=page, by=by, keep=keep, dry_run=dry_run)
    show_report(report, as_json)


#: The longest body ``remember`` reads from ``--body-file`` (a file or stdin), in bytes: a
#: memory page is a few kB; the bound keeps an endless input (``/dev/zero``, a pipe that never
#: closes its end) from filling the memory (a fresh user's report: 2.3 GB in 30 s).
MAX_BODY_BYTES = 8 << 20


def _body(body: str | None, body_file: Path | None) -> str:
    """The page body from ``--body TEXT``, ``--body-file F`` or ``--body-file -`` (stdin).

    Raises:
        click.UsageError: both given.
        click.BadParameter: the file cannot be read, is not UTF-8, or holds more than
            :data:`MAX_BODY_BYTES` (read no further than one byte past it).
    """
    if body is not None and body_file is not None:
        raise click.UsageError("give --body or --body-file, not both")
    if body_file is None:
        return body or ""
    name = "stdin" if str(body_file) == "-" else str(body_file)
    try:
        if name == "stdin":
            data = sys.stdin.buffer.read(MAX_BODY_BYTES + 1)
        else:
            with body_file.open("rb") as handle:
                data = handle.read(MAX_BODY_BYTES + 1)
        if len(data) > MAX_BODY_BYTES:
            message = f"{name} holds more than {MAX_BODY_BYTES >> 20} MiB (a body's limit)"
            raise click.BadParameter(message, param_hint="--body-file")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        message = f"cannot read {name}: {exc}"
        raise click.BadParameter(message, param_hint="--body-file") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


@click.command()
@click.argument("title")
@click.option("--kind", required=True, help="The page's kind: decision, rule, bug, session...")
@click.option("--project", default=None, help="The project it belongs to.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat, a comma list, or JSON list).")
@click.option("--alias", "aliases", multiple=True, help="Another name of the page (repeatable).")
@click.option(
    "--relation",
    "relations",
    multiple=True,
    metavar="TYPE=TARGET",
    help="A typed link, e.g. fixes=[[Bug 12]] (repeatable).",
)
@click.option(
    "--evidence", multiple=True, help="KIND:SOURCE supporting it, e.g. session:ID (repeatable)."
)
@click.option("--body", default=None, help="The page's text (Markdown).")
@click.option(
    "--body-file",
    type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    default=None,
    help="Read the text from a file, or - for stdin.",
)
@click.option("--update", is_flag=True, help="If the title names a page, add to that page.")
@write_options
def remember(
    title: str,
    kind: str,
    project: str | None,
    tags: tuple[str, ...],
    aliases: tuple[str, ...],
    relations: tuple[str, ...],
    evidence: tuple[str, ...],
    body: str | None,
    body_file: Path | None,
    update: bool,
    dry_run: bool,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Write a new page TITLE (never a second page for an existing name)."""
    report = engine_for(vault).write(
        "remember",
        title=title,
        kind=kind,
        project=project,
        tags=tags,
        aliases=aliases,
        relations=relations,
        evidence=evidence,
        body=_body(body, body_file),
        update=update,
        dry_run=dry_run,
    )
    show_report(report, as_json)
