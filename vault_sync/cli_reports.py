"""``vault-sync show``, ``related``, ``status`` and ``lint``: reports read from the stores
(DESIGN §3). Loaded lazily by :data:`vault_sync.cli.cli`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vault_sync.cli_common import (
    count_noun,
    emit_json,
    engine_for,
    json_option,
    one_line,
    print_data,
    print_notice,
    read_report,
    vault_option,
)
from vault_sync.terminal import fit_width


@click.command()
@click.argument("page")
@vault_option
@json_option
def show(page: str, vault: Path | None, as_json: bool) -> None:
    """Show one page: frontmatter, links out and in with types, evidence, parse issues.

    PAGE is an id, a path (with or without .md), a file name, a title or an alias.
    """
    from vault_sync.report import format_page_details, page_details

    if not page.strip():
        raise click.UsageError("PAGE must name a page (an id, path, file name, title or alias)")
    details = read_report(vault, lambda config, sidecar: page_details(sidecar, page, config.vault))
    print_data(details, as_json, format_page_details)


@click.command()
@click.argument("page")
@click.option("--type", "types", multiple=True, help="Only links of this type (repeatable).")
@click.option(
    "--depth", type=click.IntRange(1, 3), default=1, show_default=True, help="Hops to follow."
)
@vault_option
@json_option
def related(
    page: str, types: tuple[str, ...], depth: int, vault: Path | None, as_json: bool
) -> None:
    """A page's typed neighbourhood: what fixes it, what it causes, what contradicts or
    supersedes it, through links both ways (PAGE as `show` takes it)."""
    from vault_sync.neighbours import related as neighbourhood

    data = read_report(
        vault,
        lambda config, sidecar: neighbourhood(
            sidecar, page, types=types, depth=depth, vault=config.vault
        ),
    )
    if as_json:
        emit_json(data)
        return
    click.echo(one_line(f"{data['title']}  [{data['path']}]"))
    if not data["neighbours"]:
        click.echo("  no linked pages")
    for n in data["neighbours"]:
        arrow = "->" if n["direction"] == "out" else "<-"
        hop = f"  (depth {n['depth']}, via {n['via']})" if n["depth"] > 1 else ""
        status = f", {n['status']}" if n["status"] != "active" else ""
        click.echo(
            one_line(
                f"  {arrow} {n['type']}: {n['title']}  [{n['path']}] ({n['kind']}{status}){hop}"
            )
        )


@click.command()
@vault_option
@json_option
def status(vault: Path | None, as_json: bool) -> None:
    """Pages by kind, links by type, unresolved links, evidence, generation, drift."""
    from vault_sync.report import format_status, vault_status

    print_data(read_report(vault, vault_status), as_json, format_status)


@click.command()
@vault_option
@json_option
def lint(vault: Path | None, as_json: bool) -> None:
    """Report parse errors, duplicate ids, broken and ambiguous links, missing attachments.

    Exit 1 when errors exist; unresolved links and the like are warnings.
    """
    problems, notice = engine_for(vault).lint()
    print_notice(notice)
    errors = sum(1 for p in problems if p["severity"] == "error")
    warnings = len(problems) - errors
    if as_json:
        emit_json({"errors": errors, "warnings": warnings, "problems": problems})
    else:
        columns = _terminal_columns()
        for p in problems:
            where = f"{p['path']}:{p['line']}" if p.get("line") else p["path"]
            line = one_line(f"{where}: {p['severity']} {p['code']}: {p['message']}")
            click.echo(line if columns is None else fit_width(line, columns))
        click.echo(f"{count_noun(errors, 'error')}, {count_noun(warnings, 'warning')}")
    if errors:
        sys.exit(1)


def _terminal_columns() -> int | None:
    """The width text lines are cut to when stdout is a terminal (``COLUMNS`` when set, else
    the terminal's), else ``None``: piped, lines are printed whole."""
    import shutil

    if not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns
