"""The ``vault-sync`` command: each command loads the config, makes one library call, formats.

Exit codes (DESIGN §3): 0 success; 1 an error, one line on stderr (for ``lint``: errors were
found); 2 a usage, config or query-syntax error. Every :class:`VaultSyncError` is caught in
:func:`main`; anything else is a bug and keeps its traceback.

Heavy modules (the parser, pydantic, rich) are imported inside the commands that need them,
so ``vault-sync query`` starts fast (DESIGN §10, issue targets on whole-process query time).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import click

from vault_sync import __version__
from vault_sync.cli_common import (
    LazyGroup,
    count_noun,
    emit_json,
    engine_for,
    json_option,
    log_to_stderr,
    one_line,
    print_notice,
    progress_factory,
    vault_option,
)
from vault_sync.cli_query import query
from vault_sync.config import CONFIG_NAME
from vault_sync.errors import VaultSyncError
from vault_sync.typed_text import scrub_data, scrub_typed


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    lazy={
        "eval": "vault_sync.cli_eval:eval_group",  # the `eval` group
        "import-session": "vault_sync.cli_import:import_session",  # transcripts to pages
        "brief": "vault_sync.cli_brief:brief",  # the briefing command
        "watch": "vault_sync.cli_serve:watch",  # the long-running commands
        "mcp": "vault_sync.cli_serve:mcp",
        "redact": "vault_sync.cli_redact:redact",
        # reports read from the stores
        "show": "vault_sync.cli_reports:show",
        "related": "vault_sync.cli_reports:related",
        "status": "vault_sync.cli_reports:status",
        "lint": "vault_sync.cli_reports:lint",
        # the agent writes
        "remember": "vault_sync.cli_write:remember",
        "reinforce": "vault_sync.cli_write:reinforce",
        "retract": "vault_sync.cli_write:retract",
        "archive": "vault_sync.cli_write:archive",
        "link": "vault_sync.cli_write:link",
        "unlink": "vault_sync.cli_write:unlink",
        "supersede": "vault_sync.cli_write:supersede",
        "resolve": "vault_sync.cli_write:resolve",
    },
)
@click.version_option(__version__, prog_name="vault-sync")
@vault_option
@click.pass_context
def cli(ctx: click.Context, vault: Path | None) -> None:
    """Keep a Markdown vault in step with a full-text index and a SQLite sidecar, and search it.

    The vault is --vault, else $VAULT_SYNC_VAULT, else the nearest folder upward holding
    vault-sync.toml, .obsidian/ or .vault-sync/, else the working directory if it holds
    Markdown files (never the home or temp folder).
    """
    ctx.obj = {"vault": vault}


cli.add_command(query)  # the fast path: imported with the group, never lazily


@cli.command()
@vault_option
def init(vault: Path | None) -> None:
    """Write a default vault-sync.toml and add the store folder to .gitignore.

    Works in the given folder (or the working directory); never touches a page.
    """
    folder = vault or (click.get_current_context().find_root().obj or {}).get("vault") or Path.cwd()
    from vault_sync.vault_init import init_vault

    written = init_vault(Path(folder))
    for line in written:
        click.echo(line)


def _report_dict(plan: Any, report: Any) -> dict[str, Any]:
    return {
        "added": report.added,
        "changed": report.changed,
        "moved": report.moved,
        "deleted": report.deleted,
        "unchanged": report.unchanged,
        "kept_unreadable": len(plan.kept),
        "generation": report.generation,
        "batches": report.batches,
        "errors": scrub_data(report.errors),  # paths from the disk: a name can hold a token
    }


def _print_report(plan: Any, report: Any, as_json: bool, verb: str) -> None:
    if as_json:
        emit_json(_report_dict(plan, report))
        return
    if not report.did_work:
        click.echo(
            f"{verb}: nothing to do ({count_noun(report.unchanged, 'page')} unchanged,"
            f" generation {report.generation})"
        )
    else:
        click.echo(
            f"{verb}: {report.added} added, {report.changed} changed, {report.moved} moved,"
            f" {report.deleted} deleted, {report.unchanged} unchanged"
            f" (generation {report.generation}, {report.took_ms:.0f} ms)"
        )
    for path, message in sorted(report.errors.items()):
        click.echo(one_line(scrub_typed(f"warning: {path}: {message}")), err=True)
    if plan.kept:
        they = "they or their folder" if len(plan.kept) > 1 else "it or its folder"
        click.echo(
            f"warning: {count_noun(len(plan.kept), 'stored page')} kept: {they} cannot be read",
            err=True,
        )


@cli.command()
@vault_option
@json_option
def sync(vault: Path | None, as_json: bool) -> None:
    """Bring the index and sidecar in step with the vault (incremental)."""
    plan, report, notice = engine_for(vault).sync(progress_start=progress_factory(as_json))
    print_notice(notice)
    _print_report(plan, report, as_json, "sync")


@cli.command()
@vault_option
@json_option
def rebuild(vault: Path | None, as_json: bool) -> None:
    """Build both stores again from the vault, beside the old ones, then switch to them."""
    plan, report, _ = engine_for(vault).rebuild(progress_start=progress_factory(as_json))
    _print_report(plan, report, as_json, "rebuild")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; turn every :class:`VaultSyncError` into ``Error: ...`` and its exit code.

    The process's entry point. :func:`gc.freeze`, before the command and after it, keeps
    the cycle collector off the objects made so far (the imported modules', then all): a
    command's collections do not walk the ~50,000 objects of its imports, and the
    interpreter's exit does not walk them all (~15-20 ms of each `query` process, issue 10).
    Objects are still freed by their reference counts.
    """
    import gc

    gc.freeze()
    log_to_stderr()
    try:
        _run(argv)
    finally:
        gc.freeze()


def _run(argv: list[str] | None) -> None:
    args = sys.argv[1:] if argv is None else argv
    try:
        cli.main(args=argv, prog_name="vault-sync", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.exceptions.ClickException as exc:
        # click quotes the value it refused (`--as-of 'ghp_…' does not match`), an unknown
        # command, an extra argument: the whole message is scrubbed as typed text is
        shown = io.StringIO()
        exc.show(file=shown)
        click.echo(scrub_typed(shown.getvalue()), err=True, nl=False)
        _json_error(args, scrub_typed(exc.format_message()), exc.exit_code)
        sys.exit(exc.exit_code)
    except VaultSyncError as exc:
        # messages may quote what was typed (a `show` reference, a query): scrubbed too
        message = scrub_typed(str(exc))
        click.echo(f"Error: {message}", err=True)
        _json_error(args, message, exc.exit_code)
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)


def _json_error(args: list[str], message: str, code: int) -> None:
    """With ``--json`` asked for, the error on stdout too, as ``{"error", "exit_code"}``: a
    script parsing stdout got an empty string (a fresh user's report). Only before ``--``,
    where ``--json`` can be an option."""
    given = args[: args.index("--")] if "--" in args else args
    if "--json" in given:
        click.echo(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False))


__all__ = ["CONFIG_NAME", "cli", "main"]
