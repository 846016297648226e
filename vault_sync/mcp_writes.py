"""The write tools of ``vault-sync mcp``: each the same engine write as its CLI command.

``remember``, ``reinforce``, ``link``, ``unlink``, ``supersede``, ``resolve`` and
``import_session``, registered by :func:`vault_sync.mcp_server.build_server` unless the server
is ``--read-only``. Each runs :meth:`vault_sync.app.Engine.write` (which waits for the writer
lock, ``lock_timeout_s``) and returns the command's ``--json`` shape; arguments are checked
and errors made one line by :mod:`vault_sync.mcp_calls`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from vault_sync.app import Engine
from vault_sync.errors import AgentInputError
from vault_sync.mcp_calls import Flag, Names, call, flag_arg, listed


def writer(engine: Engine) -> Callable[..., dict[str, Any]]:
    """Run one write command through the engine; its ``--json`` shape."""

    def write(command: str, dry_run: Flag = False, **arguments: Any) -> dict[str, Any]:
        dry = flag_arg(dry_run, "dry_run")
        report = call(engine, lambda: engine.write(command, dry_run=dry, **arguments))
        return report.as_json()

    return write


def page_writes(server: MCPServer, engine: Engine) -> None:
    """Register ``remember`` and ``reinforce``."""
    write = writer(engine)

    @server.tool()
    def remember(
        title: str,
        kind: str,
        body: str = "",
        project: str | None = None,
        tags: Names = None,
        aliases: Names = None,
        relations: Names = None,
        evidence: Names = None,
        update: Flag = False,
        dry_run: Flag = False,
    ) -> dict[str, Any]:
        """Write a new page of what you learned (kind: rule, decision, gotcha, procedure,
        bug, note...). Use it when you learn something the next session should know (a
        decision and why, a gotcha, a fix). Not for what a page already says: `query` first,
        then `reinforce` it or pass update=true to add to it; it never makes a second page
        for an existing name (it fails naming that page). relations are TYPE=TARGET
        (fixes=[[Bug 12]]); evidence KIND:SOURCE (session:<your session id>). Secrets in any
        text are redacted before they reach the file."""
        return write(
            "remember",
            title=title,
            kind=kind,
            project=project,
            tags=listed(tags),
            aliases=listed(aliases),
            relations=listed(relations),
            evidence=listed(evidence),
            body=body,
            update=flag_arg(update, "update"),
            dry_run=dry_run,
        )

    @server.tool()
    def reinforce(
        page: str,
        evidence: str,
        at: str | None = None,
        note: str | None = None,
        dry_run: Flag = False,
    ) -> dict[str, Any]:
        """Record that a page was confirmed or relied on: evidence KIND:SOURCE (e.g.
        session:<your session id>), once per kind and source. Raises the page's confidence.
        Use it when a page's advice held in your work. Not for a page that proved wrong:
        `link` a contradicts relation, or `supersede` it."""
        return write("reinforce", page=page, evidence=evidence, at=at, note=note, dry_run=dry_run)


def _relation_argument(relation: str, type_: str) -> str:
    """The relation of a ``link``/``unlink`` call: ``relation``, or ``type`` (the CLI's old
    docs called it TYPE; agents use either).

    Raises:
        AgentInputError: neither, or two different ones.
    """
    if relation and type_ and relation != type_:
        raise AgentInputError(f"relation {relation!r} and type {type_!r} differ: give one")
    if not (relation or type_):
        raise AgentInputError("link and unlink need a relation (fixes, causes, related...)")
    return relation or type_


def link_writes(server: MCPServer, engine: Engine) -> None:
    """Register ``link``, ``unlink``, ``supersede`` and ``resolve``."""
    write = writer(engine)

    @server.tool()
    def link(
        source: str, target: str, relation: str = "", type: str = "", dry_run: Flag = False
    ) -> dict[str, Any]:
        """Add a typed relation between two existing pages: fixes, causes, contradicts,
        supersedes, related, or a custom type (`relation`; `type` is accepted for it). Use it
        when you find how two pages relate (a fix for a bug, an observation that contradicts
        a rule). Not for a page that does not exist yet: `remember` it with relations."""
        kind = _relation_argument(relation, type)
        return write("link", source=source, relation=kind, target=target, dry_run=dry_run)

    @server.tool()
    def unlink(
        source: str, target: str, relation: str = "", type: str = "", dry_run: Flag = False
    ) -> dict[str, Any]:
        """Remove a typed relation between two pages (`relation`; `type` is accepted for
        it). Use it only for a relation that is wrong. Not for a relation that was right
        once: `supersede` keeps that history."""
        return write(
            "unlink",
            source=source,
            relation=_relation_argument(relation, type),
            target=target,
            remove=True,
            dry_run=dry_run,
        )

    @server.tool()
    def supersede(old: str, new: str, dry_run: Flag = False) -> dict[str, Any]:
        """Mark page `old` as superseded by page `new`. Use it when a newer decision or rule
        replaces an older one (both pages exist). Not for settling a contradiction: use
        `resolve`."""
        return write("supersede", old=old, new=new, dry_run=dry_run)

    @server.tool()
    def resolve(
        page: str, by: str = "supersede", keep: str | None = None, dry_run: Flag = False
    ) -> dict[str, Any]:
        """Settle a contradiction of `page`: the side `keep` names wins (`page` itself unless
        `keep` names the page on the other side, WHICHEVER IS NEWER: the briefing's "Open
        contradictions" line says which is `newer:`; try dry_run first); the other is
        superseded (by="supersede") or archived (by="archive"). Use it when the person or
        the evidence decided which side holds. Not on a guess: leave the contradiction open
        for a person."""
        return write("resolve", page=page, by=by, keep=keep, dry_run=dry_run)


def import_tool(server: MCPServer, engine: Engine) -> None:
    """Register ``import_session``."""
    from vault_sync.confine import allowed_transcript, transcript_roots

    write = writer(engine)

    @server.tool()
    def import_session(
        files: Names,
        format: str = "auto",
        project: str | None = None,
        dry_run: Flag = False,
    ) -> dict[str, Any]:
        """Turn your own session transcript (Claude Code, Codex CLI or Gemini CLI, from their
        standard folders) into a sanitized session page, so the next agent of any vendor
        finds what this session learned. Use it at the end of a session (or after a
        milestone); re-importing a session updates its page. Not for other files: only
        transcripts below the configured transcript folders are read."""
        roots = transcript_roots(engine.config.transcript_roots)
        try:
            paths = [str(allowed_transcript(f, roots, "import_session")) for f in listed(files)]
        except AgentInputError as exc:
            raise ToolError(str(exc)) from exc
        if not paths:
            raise ToolError("files must name at least one transcript")
        return write("import-session", files=paths, fmt=format, project=project, dry_run=dry_run)
