"""``vault-sync import-session``: agent transcripts to session pages, once (``FILE...``), from
an agent's end-of-session hook (``--hook``), or as they are written (``--watch DIR``)
(issue 13; docs/writing.md, docs/agents.md).

Each import is one :class:`~vault_sync.app.Engine` ``write("import-session", ...)`` call;
``--watch`` runs :class:`~vault_sync.import_watch.TranscriptWatcher` until Ctrl-C.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vault_sync.cli_common import engine_for, one_line, print_notice
from vault_sync.cli_write import show_report, write_options
from vault_sync.confine import allowed_transcript, transcript_roots
from vault_sync.errors import AgentInputError
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:
    from vault_sync.app import Engine

#: Hook input keys: Claude Code's and Gemini CLI's (0.61.0, ``hooks/types.d.ts``) hooks both
#: send ``{"session_id", "transcript_path", "cwd", "hook_event_name", ...}`` on stdin.
HOOK_FILE, HOOK_CWD = "transcript_path", "cwd"


def hook_input(text: str) -> tuple[str, str | None]:
    """The transcript file and working directory an agent's hook input names.

    Raises:
        AgentInputError: not a JSON object with a ``transcript_path`` text.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    file = data.get(HOOK_FILE) if isinstance(data, dict) else None
    if not isinstance(file, str) or not file:
        raise AgentInputError(
            f"--hook reads the agent's hook input on stdin: a JSON object with {HOOK_FILE}"
        )
    assert isinstance(data, dict)
    cwd = data.get(HOOK_CWD)
    return file, cwd if isinstance(cwd, str) and cwd.strip("/") else None


@click.command("import-session")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "claude-code", "codex", "gemini", "plain"]),
    default="auto",
    show_default=True,
    help="The transcripts' format (auto: from the content).",
)
@click.option("--project", default=None, help="The sessions' project (default: the cwd's name).")
@click.option(
    "--hook",
    is_flag=True,
    help="Read the transcript's path (and cwd) from an agent hook's JSON on stdin (Claude"
    " Code, Gemini CLI SessionEnd); print nothing on stdout.",
)
@click.option(
    "--watch",
    "folders",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Then import new and grown transcripts below DIR as they are written, until Ctrl-C"
    " (repeatable; e.g. ~/.claude/projects).",
)
@click.option(
    "--debounce-ms",
    type=click.IntRange(0, 600_000),
    default=1000,
    show_default=True,
    help="With --watch: import a transcript once it was quiet this long (ms).",
)
@write_options
def import_session(
    files: tuple[str, ...],
    fmt: str,
    project: str | None,
    hook: bool,
    folders: tuple[Path, ...],
    debounce_ms: int,
    dry_run: bool,
    vault: Path | None,
    as_json: bool,
) -> None:
    """Turn agent transcripts (Claude Code, Codex CLI, Gemini CLI, plain text) into
    sanitized session pages; re-importing a session updates its page. With --watch, keep
    importing the transcripts written below DIR (one line per import; --json: one JSON
    object per line)."""
    if hook:
        if files or folders:
            raise click.UsageError("--hook reads its transcript from stdin: give no FILE or DIR")
        _from_hook(engine_for(vault), sys.stdin.read(), fmt, project, dry_run)
        return
    if not files and not folders:
        raise click.UsageError("give transcript FILEs, --hook, or --watch DIR")
    engine = engine_for(vault)
    if files:
        report = engine.write(
            "import-session", files=list(files), fmt=fmt, project=project, dry_run=dry_run
        )
        show_report(report, as_json)
    if folders:
        _watch_transcripts(engine, folders, fmt, project, dry_run, as_json, debounce_ms)


def _from_hook(engine: Engine, text: str, fmt: str, project: str | None, dry_run: bool) -> None:
    """``--hook``: import the transcript the hook input names, its project from ``--project``
    else the hook's working directory (Gemini CLI's transcript records none). Hooks read
    stdout (Gemini CLI: only JSON), so the one-line summary goes to stderr."""
    file, cwd = hook_input(text)
    roots = transcript_roots(engine.config.transcript_roots)
    try:  # the hook's input names the file: confined as the MCP tool's argument is
        allowed_transcript(file, roots, "import-session --hook")
    except AgentInputError as exc:
        raise AgentInputError(f"{file}: not imported: {exc}") from exc
    if project is None and cwd is not None:
        project = os.path.basename(cwd.rstrip("/"))
    report = engine.write("import-session", files=[file], fmt=fmt, project=project, dry_run=dry_run)
    print_notice(report.notice)
    for line in _summaries(engine, file, report.as_json()):
        click.echo(line, err=True)


def _summaries(engine: Engine, file: str, answer: dict[str, Any]) -> list[str]:
    """One line per page an import wrote: ``FILE -> PAGE: imported|unchanged (redacted:
    labels)``."""
    labels = ", ".join(sorted(set(answer["redacted"])))
    out = []
    for page in answer["pages"]:
        done = "imported" if page["changed"] else "unchanged"
        shown = f"{scrub_typed(file, engine.config)} -> {page['path']}: {done}"
        out.append(one_line(shown + (f" (redacted: {labels})" if labels else "")))
    return out


def _watch_transcripts(
    engine: Engine,
    folders: tuple[Path, ...],
    fmt: str,
    project: str | None,
    dry_run: bool,
    as_json: bool,
    debounce_ms: int,
) -> None:
    """``import-session --watch``: :class:`~vault_sync.import_watch.TranscriptWatcher` until
    Ctrl-C (SIGINT) or SIGTERM."""
    import signal

    from vault_sync.import_watch import MAX_DELAY_MS, TranscriptWatcher

    def importer(file: str) -> dict[str, Any]:
        report = engine.write(
            "import-session", files=[file], fmt=fmt, project=project, dry_run=dry_run
        )
        print_notice(report.notice)
        return report.as_json()

    def report(answer: dict[str, Any]) -> None:
        file = answer["file"]
        answer["file"] = scrub_typed(file, engine.config)
        if "error" in answer:
            answer["error"] = scrub_typed(answer["error"], engine.config)
        if as_json:  # one object per line: a stream a service can read line by line; errors
            # go to stderr as without --json (docs/cli.md)
            click.echo(json.dumps(answer, ensure_ascii=False), err="error" in answer)
        elif "error" in answer:
            click.echo(one_line(f"{answer['file']}: not imported: {answer['error']}"), err=True)
        else:
            for line in _summaries(engine, file, answer):
                click.echo(line)
        sys.stdout.flush()

    watcher = TranscriptWatcher(
        folders,
        importer,
        report,
        every_file=fmt == "plain",
        debounce_ms=debounce_ms,
        max_delay_ms=max(MAX_DELAY_MS, debounce_ms),
    )
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: watcher.stop())
    said = f"watching {', '.join(str(f) for f in folders)} for transcripts; Ctrl-C to stop"
    watcher.run(on_ready=lambda: click.echo(one_line(said), err=True))
    click.echo("stopped", err=True)


__all__ = ["hook_input", "import_session"]
