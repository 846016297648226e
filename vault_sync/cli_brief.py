"""``vault-sync brief``: the briefing agents read at session start (issue 12; DESIGN §6).

One :class:`~vault_sync.app.Engine` call. Where it goes: ``--out FILE`` (or ``-``, stdout);
else the ``[[brief.targets]]`` of the config (whole files or marked blocks, each written only
when its bytes change); else stdout. ``--check`` exits 1 when a target is stale; ``--hook
claude`` prints the JSON a Claude Code ``SessionStart`` hook returns (its ``additionalContext``),
``--hook plain`` the text (what other vendors' start hooks read on stdout). ``--section NAME``
prints one section whole: what a briefing's "… N more" line points to.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from vault_sync.briefing import SECTIONS, whole_text
from vault_sync.cli_common import emit_json, engine_for, json_option, print_notice, vault_option
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:
    from vault_sync.app import Engine


@click.command()
@click.option("--project", default=None, help="Only this project's pages.")
@click.option(
    "--budget-chars",
    type=int,
    default=None,
    help="Most characters of the briefing (default 10000).",
)
@click.option("--out", default=None, help="Write the briefing to this file (- for stdout).")
@click.option("--check", is_flag=True, help="Exit 1 if a configured target is stale.")
@click.option(
    "--section",
    type=click.Choice(list(SECTIONS)),
    default=None,
    help='Print one section whole (what a "… N more" line points to), nothing cut.',
)
@click.option(
    "--offset",
    type=click.IntRange(min=0),
    default=None,
    help="With --section: skip this many lines first (default 0).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="With --section: print at most this many lines, then a line for the next ones.",
)
@click.option(
    "--hook",
    type=click.Choice(["claude", "plain"]),
    default=None,
    help="Print for a session-start hook: Claude Code's JSON, or plain text.",
)
@vault_option
@json_option
def brief(
    project: str | None,
    budget_chars: int | None,
    out: str | None,
    check: bool,
    section: str | None,
    offset: int | None,
    limit: int | None,
    hook: str | None,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Write the standing answers, open contradictions, known fixes and recent work."""
    engine = engine_for(vault)
    if section is not None:
        page = (offset or 0, limit)
        _section(engine, section, project, as_json, page, budget_chars, out, check, hook)
        return
    if offset is not None or limit is not None:
        raise click.UsageError("--offset and --limit apply to --section only")
    targets = engine.config.brief_targets
    if out is None and hook is None and targets:
        given = [name for name, v in (("--project", project), ("--budget-chars", budget_chars))
                 if v is not None]  # fmt: skip
        if given:  # a target's project and budget are its own: never silently ignored
            raise click.UsageError(
                f"{' and '.join(given)} apply to --out or stdout; each [[brief.targets]] entry"
                " has its own project and budget (print one with --out -)"
            )
        _targets(engine, check, as_json)
        return
    if check:
        raise click.UsageError("--check needs [[brief.targets]] in vault-sync.toml")
    # One short read that builds every page's facts (~100,000 objects at 10k pages) and
    # exits: the cyclic collector's passes over them cost ~15 ms of a ~200 ms `brief`
    # process and free nothing (no cycles are made). The watcher's refreshes keep it on.
    gc.disable()
    try:
        text, counts, notice = engine.brief(project=project, budget=budget_chars)
    finally:
        gc.enable()
    print_notice(notice)
    warning = engine.unknown_project(project)
    if warning is not None:
        print_notice(f"warning: {warning}")
    if hook == "claude":  # Claude Code's SessionStart hook output (hookSpecificOutput)
        event = {"hookEventName": "SessionStart", "additionalContext": text}
        click.echo(json.dumps({"hookSpecificOutput": event}, ensure_ascii=False))
        return
    written = None
    if out not in (None, "-"):
        from vault_sync.brief_targets import write_target

        if not Path(out).parent.is_dir():  # a typo'd folder is refused, not made (as `>` does)
            message = f"cannot write {out}: folder {Path(out).parent} does not exist"
            raise click.BadParameter(message, param_hint="--out")
        try:
            written = write_target(Path(out), "file", text).changed
        except OSError as exc:
            message = f"cannot write {out}: {exc.strerror}"
            raise click.BadParameter(message, param_hint="--out") from None
    if as_json:
        answer = {"text": text, "chars": len(text), "sections": counts, "written": written}
        emit_json({**answer, "warnings": [warning] if warning else []})
    elif out in (None, "-"):
        click.echo(text, nl=False)


def _section(
    engine: Engine,
    name: str,
    project: str | None,
    as_json: bool,
    page: tuple[int, int | None],
    *unused: object,
) -> None:
    """Print section ``name`` whole, or the lines ``page`` = ``(offset, limit)`` picks
    (``unused``: the options that do not apply to it, in the order ``--budget-chars``,
    ``--out``, ``--check``, ``--hook``: a usage error if given). Text: its heading and the
    lines (``(none)`` when it has none), then a pointer to the next lines when some follow;
    ``--json``: ``{"section", "lines", "total", "offset"}`` (``total``: the section's lines
    in all)."""
    names = ("--budget-chars", "--out", "--check", "--hook")
    given = [o for o, v in zip(names, unused, strict=True) if v is not None and v is not False]
    if given:
        raise click.UsageError(
            f"--section prints one section whole to stdout; {' and '.join(given)}"
            f" {'does' if len(given) == 1 else 'do'} not apply"
        )
    heading, lines, notice = engine.brief_section(name, project=project)
    print_notice(notice)
    warning = engine.unknown_project(project)
    if warning is not None:
        print_notice(f"warning: {warning}")
    offset, limit = page
    if as_json:
        chosen = lines[offset:] if limit is None else lines[offset : offset + limit]
        emit_json({"section": heading, "lines": chosen, "total": len(lines), "offset": offset})
        return
    text = whole_text(heading, lines, name=name, project=project, offset=offset, limit=limit)
    click.echo(text, nl=False)


def _targets(engine: Engine, check: bool, as_json: bool) -> None:
    """Write (or with ``check``, check) every configured target; one line each, then one
    ``Error:`` line (stderr) per target refused, exit 1: what was written is said too."""
    from vault_sync.errors import BriefTargetsError

    try:
        results, failed = engine.write_briefs(check=check), []
    except BriefTargetsError as exc:
        results, failed = exc.done, exc.failed
    stale = [r for r in results if r.changed]
    if as_json:
        targets = [{"path": str(r.path), "changed": r.changed} for r in results]
        emit_json({"targets": targets, "errors": [scrub_typed(f) for f in failed]})
    else:
        for r in results:
            verb = ("stale" if check else "written") if r.changed else "up to date"
            click.echo(f"{r.path}: {verb}")
    for reason in failed:  # the messages may quote a path the user typed: scrubbed as typed
        click.echo(f"Error: {scrub_typed(reason)}", err=True)
    if failed or (check and stale):
        sys.exit(1)
