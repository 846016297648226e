"""``vault-sync redact``: the secrets in pages, by file, line and label; ``--write`` removes
them (DESIGN §8). Loaded lazily by :data:`vault_sync.cli.cli`.
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
    vault_option,
)
from vault_sync.errors import VaultSyncError


@click.command()
@click.argument("pages", nargs=-1)
@click.option("--all", "every_page", is_flag=True, help="Look at every page of the vault.")
@click.option("--write", is_flag=True, help="Rewrite the pages without their secrets.")
@vault_option
@json_option
def redact(
    pages: tuple[str, ...], every_page: bool, write: bool, vault: Path | None, as_json: bool
) -> None:
    """Show the secrets in pages (file:line:label, never the secret); --write removes them.

    Each secret becomes [REDACTED:<label>] in the file, written atomically, keeping every other
    byte; a page that changed since it was read is not written. PAGES are ids, paths, file
    names, titles or aliases; --all takes every page.
    """
    if bool(pages) == every_page:
        raise click.UsageError("name PAGES or pass --all (not both)")
    done = engine_for(vault).redact(pages, every_page=every_page, write=write)
    secrets = sum(len(p.found) for p in done)
    left = sum(p.left for p in done)
    with_secrets = sum(1 for p in done if p.found)
    if as_json:
        emit_json(
            {
                "secrets": secrets,
                "pages": [
                    {
                        "path": p.path,
                        "found": [{"line": r.line, "label": r.label} for r in p.found],
                        "written": p.written,
                        "skipped": p.skipped,
                        "left": p.left,
                    }
                    for p in done
                    if p.found or p.skipped
                ],
            }
        )
        if left:
            sys.exit(1)
        return
    for p in done:
        for r in p.found:
            click.echo(one_line(f"{r.path}:{r.line}: {r.label}"))
        if p.skipped and (p.found or not write or p.skipped.startswith("cannot read")):
            click.echo(one_line(f"{p.path}: {p.skipped}"), err=True)
    if write:
        rewritten = sum(1 for p in done if p.written)
        click.echo(
            f"redacted {secrets - left} of the {count_noun(secrets, 'secret')} found, in"
            f" {rewritten} of {count_noun(with_secrets, 'page')} (only what the rules know is"
            " found)"
        )
        if left:
            raise VaultSyncError(f"{count_noun(left, 'secret')} still in the files (see above)")
    else:
        hint = "; run with --write to redact them in the files" if secrets else ""
        click.echo(f"{count_noun(secrets, 'secret')} in {count_noun(with_secrets, 'page')}{hint}")
        if left:  # a check: secrets are still in the files
            sys.exit(1)
