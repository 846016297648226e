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
    emit_json,
    engine_for,
    hit_json,
    iso_date,
    json_option,
    log_to_stderr,
    one_line,
    print_notice,
    progress_factory,
    read_report,
    vault_option,
)
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
            f"{verb}: nothing to do ({report.unchanged} pages unchanged,"
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
        click.echo(
            f"warning: {len(plan.kept)} stored pages kept: they or their folder cannot be read",
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


def _snippet_line(hit: Any) -> str:
    """A hit's snippet for the terminal: highlights in bold on a tty, ``**`` around them in a
    pipe (the snippet is plain text, its page's own ``**`` removed, so marks cannot collide)."""
    if one_line(hit.snippet) != hit.snippet:  # never: snippets hold no control characters
        return one_line(hit.marked_snippet())
    if sys.stdout.isatty():
        return str(hit.marked_snippet("\x1b[1m", "\x1b[22m"))
    return str(hit.marked_snippet())


def _explain_lines(explain: dict[str, Any]) -> list[str]:
    """The text form of a hit's explain: the stages' parts, the rules that moved it, then
    one line per matched field (field, terms, boost, BM25 contribution)."""
    lexical, fusion = explain["lexical"], explain["fusion"]
    found = f"#{lexical['rank']} bm25 {lexical['score']}" if lexical["rank"] else "not by words"
    lines = [f"why: score {explain['score']} = fused {fusion['fused']} x authority x confidence"]
    lines.append(f"  words    {fusion['lexical']:.4f} ({found})")
    via = explain.get("graph_via")
    if via:
        lines.append(
            f"  links    +{fusion['graph']:.4f} via {via['type']} ({via['direction']},"
            f" depth {via['depth']}) from {via['from']}"
        )
    if explain["authority"] is not None:
        reasons = "; ".join(explain["authority"]["reasons"]) or "neutral"
        lines.append(f"  authority x{explain['authority']['multiplier']:g} ({reasons})")
    lines.append(
        f"  confidence {explain['confidence']:g} x{explain['confidence_factor']:g}"
        f" ({explain['evidence']} evidence, {explain['sessions']} sessions)"
    )
    spans = explain["dates"]["spans"]
    if spans:
        named = ", ".join(f"{s['phrase']!r} {s['start']}..{s['end']}" for s in spans)
        day = explain["dates"]["day"] or "undated"
        lines.append(f"  date     x{explain['date_factor']:g} (page {day}; query {named})")
    lines += [f"  rule     {rule}" for rule in explain["rules"]]
    for match in explain.get("matches", []):
        terms = ", ".join(match["terms"])
        lines.append(
            f"  {match['field']:<11} [{terms}]  boost {match['boost']:g}"
            f"  score {match['score']:.4f}  (clause: {match['clause']})"
        )
    return lines


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("text")
@click.option(
    "--limit",
    default=10,
    show_default=True,
    type=click.IntRange(1, 1000),
    help="Most hits to return.",
)
@click.option("--project", default=None, help="Only pages of this project.")
@click.option("--kind", default=None, help="Only pages of this kind (note, decision, ...).")
@click.option("--tag", default=None, help="Only pages with this tag.")
@click.option(
    "--status",
    default=None,
    help="Only pages of this status (active, superseded, archived, historical).",
)
@click.option(
    "--as-of",
    "as_of",
    callback=iso_date,
    default=None,
    help="Only pages valid on this day (ISO 8601), superseded as they were then.",
)
@click.option("--chain", is_flag=True, help="Follow fixes / causes links two hops (default one).")
@click.option(
    "--explain", is_flag=True, help="Show per hit each stage's part: words, links, authority."
)
@click.option("--timings", is_flag=True, help="Add took_ms to the output.")
@click.option(
    "--now",
    callback=iso_date,
    default=None,
    help="Reference date (ISO 8601) for relative time phrases; default today.",
)
@vault_option
@json_option
def query(
    text: str,
    limit: int,
    project: str | None,
    kind: str | None,
    tag: str | None,
    status: str | None,
    as_of: Any,
    chain: bool,
    explain: bool,
    timings: bool,
    now: Any,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Search the vault: BM25 over title, aliases, headings, tags and body, then
    the pages linked to the best hits (what fixes, causes, supersedes them), and
    what the vault knows: a superseded or contradicted page ranks below the page
    that replaced or challenged it (--explain shows why).

    \b
    Query syntax:
      retry storm          words, OR-ed and ranked (stop words such as "how",
                           "the" are left out when another word remains)
      "retry storm"        a phrase that must appear as written (if no page
                           holds it, its words are searched instead)
      -draft  -"old plan"  leave out pages holding a word or phrase
      --single             a word (a command-line flag), not an exclusion
      atomic_write_json    identifiers match whole and by their parts
      雾凇, 기억, ความจำ    Chinese, Japanese, Korean, Thai found inside text
    Anything else (: ( ) * + and a quote left unclosed) is plain text, never
    syntax. Filters: --kind decision, --project P (exact), --tag incident (also
    '#incident' or Incident: a leading # and case are ignored; a tag finds its nested tags
    too, --tag ops finds ops/deploy).
    """
    import time

    started = time.perf_counter()
    vault_engine = engine_for(vault)
    config = vault_engine.config
    hits, notice = vault_engine.search(
        text,
        limit=limit,
        kind=kind,
        project=project,
        tag=tag,
        status=status,
        as_of=as_of,
        switches=frozenset({"chain"}) if chain else frozenset(),
        explain=explain,
        now=now,
    )
    print_notice(notice)
    took_ms = round((time.perf_counter() - started) * 1000, 2)
    if not hits and (kind is not None or project is not None or status is not None):
        _unknown_filters(vault, {"kind": kind, "project": project, "status": status})
    read = _reading(text, config) if explain else None
    if as_json:
        echo = scrub_typed(text, config)
        out: dict[str, Any] = {"query": echo, "hits": [hit_json(h, explain) for h in hits]}
        if read is not None:
            out["reading"] = read
        if timings:
            out["took_ms"] = took_ms
        emit_json(out)
        return
    if read is not None:
        said = [f"{_READ_AS.get(key, key)}: {', '.join(v)}" for key, v in read.items() if v]
        click.echo(one_line("read as: " + "; ".join(said)))
    _print_hits(hits, explain)
    if timings:
        click.echo(f"({took_ms} ms)")


#: ``--explain``'s words for the keys of the query's reading, in text output.
_READ_AS = {
    "stop_words": "stop words left out",
    "repeats": "repeats counted once",
    "word_pairs": "word pairs",
}


def _reading(text: str, config: Any) -> dict[str, list[str]]:
    """``--explain``'s reading of the query text (:func:`vault_sync.retrieve.query_reading`),
    each clause scrubbed as the echoed query is."""
    from vault_sync.retrieve import query_reading

    read = query_reading(text)
    return {key: [scrub_typed(clause, config) for clause in v] for key, v in read.items()}


def _print_hits(hits: list[Any], explain: bool) -> None:
    """The text form of ``query``'s hits: rank, title, path, kind and project, score; the
    snippet; with ``explain``, one line per matched field."""
    if not hits:
        click.echo("no pages found")
    for rank, hit in enumerate(hits, 1):
        meta = ", ".join(x for x in (hit.kind, hit.project) if x)
        click.echo(one_line(f"{rank}. {hit.title}  [{hit.path}]  ({meta})  score {hit.score:.3f}"))
        if hit.snippet:
            click.echo("   " + _snippet_line(hit))
        if explain and hit.explain:
            for line in _explain_lines(hit.explain):
                click.echo(one_line(f"   {line}"))


def _unknown_filters(vault: Path | None, given: dict[str, str | None]) -> None:
    """Warn (stderr) about each filter value no page has, listing the values present."""
    present = read_report(vault, lambda _config, sidecar: sidecar.filter_values())
    for name, value in given.items():
        if value is not None and value not in present[name]:
            values = ", ".join(present[name]) or "none"
            plural = {"kind": "kinds", "status": "statuses"}.get(name, "projects")
            shown = scrub_typed(value)
            print_notice(f"warning: no page has {name} {shown!r} ({plural} present: {values})")


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
