"""``vault-sync mcp``: the vault's memory over the Model Context Protocol (stdio), for agents
of every vendor (issue 13; DESIGN §7).

Built on the official ``mcp`` SDK (checked on 2.3.0): ``mcp.server.mcpserver.MCPServer``. Each
tool is the same :class:`~vault_sync.app.Engine` call the CLI command makes, and returns the
same shape as the command's ``--json``. Failures a user can cause leave as the SDK's
``ToolError`` with our one-line, scrubbed message (a plain exception would reach the agent as
only "Error executing tool NAME"). Schemas are permissive where agents vary (a tag list or one
comma-separated string); our own validation gives the one-line errors. Reads never take the
writer lock; writes wait for it (``lock_timeout_s``); no lock is held between calls (the
index stays open for ``query``: :class:`_Stores`), so several servers, a watcher and CLI
writers can share one vault. ``--read-only`` leaves the
write tools out. The vault comes from ``--vault`` in the server's configuration: the stdio
client passes the server only HOME, LOGNAME, PATH, SHELL, TERM and USER.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from vault_sync import __version__, layout
from vault_sync.app import Engine
from vault_sync.cli_common import hit_json
from vault_sync.config import Config
from vault_sync.errors import AgentInputError, StoreError, VaultSyncError
from vault_sync.index import PageIndex
from vault_sync.ranking import search as rank_search
from vault_sync.readers import READ_DAMAGE
from vault_sync.retrieve import Hit
from vault_sync.store import Sidecar
from vault_sync.typed_text import scrub_typed

R = TypeVar("R")

INSTRUCTIONS = (
    "vault-sync is this team's shared memory: Markdown pages (rules, decisions, gotchas, bugs,"
    " sessions) that people and agents of every vendor read and write. Call `brief` once at"
    " the start of a session, `query` before deciding something the team may already know,"
    " and `remember` / `reinforce` / `link` when you learn something worth keeping."
)

Names = str | list[str] | None
#: Numbers and flags are typed loosely: the SDK's own validation error for a wrong type is a
#: multi-line pydantic dump that echoes the input unscrubbed (checked on mcp 2.3.0), so every
#: argument an agent may get wrong is checked here instead (:func:`_int`, :func:`_flag`).
Number = int | str
Flag = bool | str


def _int(value: Number | None, name: str, low: int = 1, high: int = 1_000_000) -> int | None:
    """A whole-number argument, or a one-line ToolError naming it (never echoing it)."""
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ToolError(f"{name} must be a whole number from {low} to {high}") from None
    if not low <= number <= high:
        raise ToolError(f"{name} must be a whole number from {low} to {high}")
    return number


def _flag(value: Flag, name: str) -> bool:
    """A true/false argument (``true``/``false``/``1``/``0`` as text too), or a ToolError."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    raise ToolError(f"{name} must be true or false")


def _listed(value: Names) -> list[str]:
    """A tag, alias, relation or evidence argument as the list the engine takes."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _call(engine: Engine, action: Callable[[], R]) -> R:
    """Run one engine call; a user's mistake or a store problem becomes a one-line ToolError."""
    try:
        return action()
    except VaultSyncError as exc:
        raise ToolError(scrub_typed(str(exc), engine.config)) from None
    except OSError as exc:
        raise ToolError(scrub_typed(f"cannot read or write a file: {exc}", engine.config)) from None


class _Stores:
    """The index and a sidecar connection kept open between tool calls (an agent asks many
    small questions): each query reloads the index (~0.05 ms: another server, a watcher or
    the CLI may have committed; SQLite's own read transaction sees their commits, and keeps
    its page cache while the file is unchanged) and another active set (a rebuild) reopens
    both. A sidecar SQLite could open only ``immutable`` (a store this user cannot write
    beside) would never see a later commit: it is opened per query. ``query`` runs on the
    server's event loop (an async tool: no hop to a worker thread and back, the SDK's way for
    a plain function), the one thread that uses the connection; the other tools run in
    worker threads and open the stores per call. Holds no lock between calls.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.index: PageIndex | None = None
        self.sidecar: Sidecar | None = None
        self.folder: Path | None = None

    def search(self, text: str, **options: Any) -> list[Hit] | None:
        """:func:`vault_sync.ranking.search` on the open index and a sidecar connection of
        this call; ``None`` on damage or when there is no usable store yet (the caller falls
        back to the engine's search, which repairs; the index is reopened next time).
        ``text`` is searched as typed: the caller scrubs it, as the CLI does."""
        options.setdefault("settings", self.engine.config.ranking)
        try:
            index, sidecar = self._current()
            try:
                return rank_search(index, sidecar, text, **options)
            finally:
                if sidecar.immutable:
                    sidecar.close()
        except (*READ_DAMAGE, StoreError, OSError):
            self._close()
        return None

    def _current(self) -> tuple[PageIndex, Sidecar]:
        folder = layout.active_set(self.engine.config.store_path)
        if folder is None:
            raise StoreError("no store yet")  # the engine's search syncs first
        if self.index is None or self.sidecar is None or folder != self.folder:
            self._close()
            self.index = PageIndex.open(layout.index_dir(folder), create=False)
            self.sidecar = Sidecar.open(layout.sidecar_file(folder), readonly=True)
            self.folder = folder
        else:
            self.index.reload()
        if self.sidecar.immutable:  # a snapshot: the next query opens it again
            sidecar, self.sidecar = self.sidecar, None
            return self.index, sidecar
        return self.index, self.sidecar

    def _close(self) -> None:
        if self.sidecar is not None:
            self.sidecar.close()
        self.index, self.sidecar, self.folder = None, None, None


class _Server(MCPServer):
    """The SDK's server, with every tool error made one scrubbed line: the SDK's own argument
    validation (a missing or misnamed argument) reports pydantic's dump, which echoes the
    caller's input values (a secret typed into any argument); only the field names and what
    is wrong with them are kept."""

    config: Config | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's call, its ToolError turned into our one line (see the class)."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = sorted(
                    f"{'.'.join(str(p) for p in err['loc'])} ({err['type'].replace('_', ' ')})"
                    for err in exc.__cause__.errors()
                )
                message = f"Error executing tool {name}: bad arguments: {', '.join(problems)}"
            else:
                message = " ".join(str(exc).split())
            raise ToolError(scrub_typed(message, self.config)) from None


def build_server(vault: Path | str | None, *, read_only: bool = False) -> MCPServer:
    """The MCP server of one vault, its tools registered (the write tools unless
    ``read_only``).

    Raises:
        ConfigError: no vault found, or a bad ``vault-sync.toml``.
    """
    engine = Engine.open(vault)
    # WARNING: the SDK logs every tool error as a multi-line INFO box on stderr
    server = _Server(
        "vault-sync", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    server.config = engine.config
    _search_tools(server, engine)
    _page_tools(server, engine)
    if not read_only:
        _page_writes(server, engine)
        _link_writes(server, engine)
        _import_tool(server, engine)
    return server


def _search_tools(server: MCPServer, engine: Engine) -> None:
    """Register ``query`` and ``brief``."""
    stores = _Stores(engine)

    @server.tool()
    async def query(
        text: str,
        limit: Number = 10,
        kind: str | None = None,
        project: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        as_of: str | None = None,
        now: str | None = None,
        explain: Flag = False,
    ) -> dict[str, Any]:
        """Search the team's memory: words over titles, aliases, headings, tags, metadata and
        text, then the pages linked to the best hits (the fix of a bug, the decision that
        replaced an old one); a superseded or contradicted page ranks below its successor or
        challenger. Use it before deciding something the team may already know, or to find a
        page to reinforce or link. Not for listing everything: use `brief` for the standing
        answers. Phrases in double quotes must appear as written; `-word` leaves pages out.
        `as_of` (YYYY-MM-DD) keeps only pages valid that day; `now` dates relative phrases.
        `explain` gives each stage's part per hit."""
        count, why = _int(limit, "limit", 1, 1000), _flag(explain, "explain")
        options = {"limit": count, "kind": kind, "project": project, "tag": tag, "explain": why}
        options.update(status=status, as_of=as_of, now=now)
        text = scrub_typed(text, engine.config)  # searched as scrubbed, as the CLI does
        hits = _call(engine, lambda: stores.search(text, **options))
        if hits is None:  # no usable store: the engine syncs or rebuilds (seconds), in a thread
            found = await asyncio.to_thread(
                lambda: _call(engine, lambda: engine.search(text, **options))
            )
            hits = found[0]
        return {"query": text, "hits": [hit_json(h, why) for h in hits]}

    @server.tool()
    def brief(project: str | None = None, budget_chars: Number | None = None) -> str:
        """The standing answers (active rules, decisions, gotchas... by confidence), open
        contradictions, known fixes for open bugs and recent sessions, as Markdown within a
        character budget (default 10000). Use it once at the start of a session (skip it if
        the briefing is already in your context: CLAUDE.md, AGENTS.md, GEMINI.md). Not for a
        specific question: use `query`."""
        budget = _int(budget_chars, "budget_chars", 300, 10_000_000)
        text, _, _ = _call(engine, lambda: engine.brief(project=project, budget=budget))
        return text


def _page_tools(server: MCPServer, engine: Engine) -> None:
    """Register ``show``, ``related``, ``status`` and ``lint``."""

    @server.tool()
    def show(page: str) -> dict[str, Any]:
        """One page in full: frontmatter, typed links out and in, evidence, parse issues. Use
        it to read a page `query` found, before relying on it or changing it. Not for
        searching: it needs the page's id, path, file name, title or alias (`page`)."""
        from vault_sync.report import page_details

        details, _ = _call(
            engine,
            lambda: engine.read(lambda r: page_details(r.sidecar, page, engine.config.vault)),
        )
        return dict(details)

    @server.tool()
    def related(page: str, types: Names = None, depth: Number = 1) -> dict[str, Any]:
        """The pages linked to or from one page, by link type (fixes, causes, supersedes,
        contradicts, related, references...), up to `depth` hops (1-3). Use it to follow a
        bug to its fix, or a decision to what superseded it. Not for finding a first page:
        use `query`."""
        from vault_sync.neighbours import MAX_DEPTH
        from vault_sync.neighbours import related as neighbourhood

        hops = _int(depth, "depth", 1, MAX_DEPTH) or 1
        wanted = _listed(types)
        data, _ = _call(
            engine,
            lambda: engine.read(
                lambda r: neighbourhood(
                    r.sidecar, page, types=wanted, depth=hops, vault=engine.config.vault
                )
            ),
        )
        return dict(data)

    @server.tool()
    def status() -> dict[str, Any]:
        """Counts of pages by kind, links by type, unresolved links, evidence, and the
        stores' generation. Use it for a health check of the vault. Not for finding
        knowledge: use `query`."""
        from vault_sync.report import vault_status

        data, _ = _call(
            engine, lambda: engine.read(lambda r: vault_status(engine.config, r.sidecar))
        )
        return dict(data)

    @server.tool()
    def lint() -> dict[str, Any]:
        """Problems in the pages: parse errors, broken and ambiguous links, missing
        attachments, secrets found (by label, never the value). Use it when asked to tidy or
        check the vault. Not during ordinary work: it reads every page."""
        problems, _ = _call(engine, engine.lint)
        errors = sum(1 for p in problems if p["severity"] == "error")
        return {"errors": errors, "warnings": len(problems) - errors, "problems": problems}


def _writer(engine: Engine) -> Callable[..., dict[str, Any]]:
    """Run one write command through the engine; its ``--json`` shape."""

    def write(command: str, dry_run: Flag = False, **arguments: Any) -> dict[str, Any]:
        dry = _flag(dry_run, "dry_run")
        report = _call(engine, lambda: engine.write(command, dry_run=dry, **arguments))
        return report.as_json()

    return write


def _page_writes(server: MCPServer, engine: Engine) -> None:
    """Register ``remember`` and ``reinforce``."""
    write = _writer(engine)

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
            tags=_listed(tags),
            aliases=_listed(aliases),
            relations=_listed(relations),
            evidence=_listed(evidence),
            body=body,
            update=_flag(update, "update"),
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


def _link_writes(server: MCPServer, engine: Engine) -> None:
    """Register ``link``, ``unlink``, ``supersede`` and ``resolve``."""
    write = _writer(engine)

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
        """Settle a contradiction of `page`: the kept side (`keep`, default `page`) wins, the
        other is superseded (by="supersede") or archived (by="archive"). Use it when the
        person or the evidence decided which side holds. Not on a guess: leave the
        contradiction open for a person."""
        return write("resolve", page=page, by=by, keep=keep, dry_run=dry_run)


def _import_tool(server: MCPServer, engine: Engine) -> None:
    """Register ``import_session``."""
    from vault_sync.confine import allowed_transcript, transcript_roots
    from vault_sync.errors import AgentInputError

    write = _writer(engine)

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
            paths = [str(allowed_transcript(f, roots, "import_session")) for f in _listed(files)]
        except AgentInputError as exc:
            raise ToolError(str(exc)) from exc
        if not paths:
            raise ToolError("files must name at least one transcript")
        return write("import-session", files=paths, fmt=format, project=project, dry_run=dry_run)


def serve(vault: Path | str | None, *, read_only: bool = False) -> None:
    """Serve the vault over stdio until the client closes the connection (stdin and stdout
    read and written on the event loop: :mod:`vault_sync.mcp_stdio`)."""
    from vault_sync.mcp_stdio import run_stdio

    asyncio.run(run_stdio(build_server(vault, read_only=read_only)))


__all__ = ["INSTRUCTIONS", "build_server", "serve"]
