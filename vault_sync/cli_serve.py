"""``vault-sync watch`` and ``vault-sync mcp``: the long-running commands (DESIGN §3, §9).

``watch`` keeps the stores in step with the vault until stopped; ``mcp`` serves the vault's
memory to agents over stdio. Loaded lazily by :data:`vault_sync.cli.cli` (a ``query``
process never imports them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from vault_sync.cli_common import engine_for, json_log_formatter, one_line, vault_option
from vault_sync.typed_text import scrub_data, scrub_typed


@click.command()
@vault_option
@click.option("--json-log", is_flag=True, help="Log one JSON object per batch (for services).")
def watch(vault: Path | None, json_log: bool) -> None:
    """Keep the index and sidecar in step with the vault as files change, until stopped.

    Reconciles at start, then applies each debounced batch of changes ([watch] debounce_ms,
    max_delay_ms in vault-sync.toml) and reconciles every [watch] reconcile_s seconds. Logs one
    line per applied batch on stderr; stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
    """
    import logging
    import signal

    vault_engine = engine_for(vault)
    config = vault_engine.config

    def report(raw: dict[str, Any]) -> None:
        line: dict[str, Any] = scrub_data(raw, config)  # type: ignore[assignment]
        if json_log:
            click.echo(json.dumps(line, ensure_ascii=False, sort_keys=True), err=True)
            return
        kind = "reconcile" if line["reconcile"] else "batch"
        text = (
            f"{line['at']} {kind}: {line['added']} added, {line['changed']} changed,"
            f" {line['moved']} moved, {line['deleted']} deleted"
            f" (generation {line['generation']}, {line['ms']:.0f} ms)"
        )
        click.echo(text + (f" — {line['notice']}" if "notice" in line else ""), err=True)
        for path, message in sorted(line.get("errors", {}).items()):  # as sync warns
            click.echo(one_line(f"warning: {path}: {message}"), err=True)

    # watchdog logs its own shutdown chatter; the watcher reads the one record it needs (the
    # inotify overflow) through its own handler. Library warnings: JSON lines with --json-log.
    logging.getLogger("watchdog").addHandler(logging.NullHandler())
    logging.getLogger("watchdog").propagate = False
    if json_log:
        # Python warnings (watchdog warns on inotify races in big bursts) become JSON lines
        # too: every line of a --json-log stream must parse.
        logging.captureWarnings(True)
        warnings_log = logging.getLogger("py.warnings")
        warnings_log.propagate = False
        for handler in logging.getLogger("vault_sync").handlers:
            handler.setFormatter(json_log_formatter())
            warnings_log.addHandler(handler)
    # spawned workers may prepare pages: this command's __main__ runs nothing when re-imported
    watcher = vault_engine.watcher(report)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: watcher.stop())
    shown = scrub_typed(str(config.vault), config)  # a folder name can hold a token
    said = f"watching {shown} (debounce {config.debounce_ms} ms); Ctrl-C to stop"
    # said once the watcher holds the vault: a second watcher fails without claiming it; with
    # --json-log as a log record, so a supervisor can tell a started watcher from a hung one
    # before the first change (a fresh user's report: nothing was printed until then)
    watcher.run(on_claimed=lambda: _say(said, json_log))
    _say("stopped", json_log)


def _say(message: str, json_log: bool) -> None:
    """One line on stderr: the text, or with ``json_log`` a ``{"level": "info", "message"}``
    record (as the log records of a ``--json-log`` stream are)."""
    if json_log:
        message = json.dumps({"level": "info", "message": message}, ensure_ascii=False)
    click.echo(message, err=True)


@click.command()
@click.option("--read-only", is_flag=True, help="Serve only the read tools (no writes).")
@vault_option
def mcp(read_only: bool, vault: Path | None) -> None:
    """Serve the vault's memory to agents over MCP (stdio): query, show, related, brief,
    status, lint, and the write tools (remember, reinforce, link, unlink, supersede, resolve).
    """
    from vault_sync.mcp_server import serve

    ctx = click.get_current_context()
    serve(vault or (ctx.find_root().obj or {}).get("vault"), read_only=read_only)
