"""``vault-sync query``: the command, and its text output (hits, snippets, ``--explain``).

Registered on the group by :mod:`vault_sync.cli` and imported with it, not through its lazy
table: ``query`` is the fast path (issue 10, whole-process query time), so this module imports
only what a query needs; the retrieval itself is the engine's (:meth:`~vault_sync.app.Engine.
search`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from vault_sync.cli_common import (
    emit_json,
    engine_for,
    hit_json,
    iso_date,
    json_option,
    one_line,
    print_notice,
    read_report,
    vault_option,
)
from vault_sync.typed_text import scrub_typed


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


@click.command(context_settings={"ignore_unknown_options": True})
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
