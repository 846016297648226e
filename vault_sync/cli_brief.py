"""``vault-sync brief``: the briefing agents read at session start (issue 12; DESIGN §6).

One :meth:`~vault_sync.app.Engine.brief` call; the Markdown goes to stdout (``--out -``, the
default) or to a file, written atomically and only when its bytes change (no mtime churn).
"""

from __future__ import annotations

from pathlib import Path

import click

from vault_sync.cli_common import emit_json, engine_for, json_option, print_notice, vault_option


@click.command()
@click.option("--project", default=None, help="Only this project's pages.")
@click.option(
    "--budget-chars",
    type=int,
    default=None,
    help="Most characters of the briefing (default 10000).",
)
@click.option(
    "--out",
    default="-",
    show_default=True,
    help="Write the briefing to this file (- for stdout).",
)
@vault_option
@json_option
def brief(
    project: str | None,
    budget_chars: int | None,
    out: str,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Write the standing answers, open contradictions, known fixes and recent work."""
    text, counts, notice = engine_for(vault).brief(project=project, budget=budget_chars)
    print_notice(notice)
    written = None
    if out != "-":
        written = _write_if_changed(Path(out), text)
    if as_json:
        emit_json({"text": text, "chars": len(text), "sections": counts, "written": written})
    elif out == "-":
        click.echo(text, nl=False)


def _write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it already holds exactly that; returns
    whether it wrote."""
    from vault_sync.atomic import write_atomic

    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomic(path, data)
    return True
