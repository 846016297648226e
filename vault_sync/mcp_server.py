"""``vault-sync mcp``: the vault's memory over the Model Context Protocol (stdio), for agents
of every vendor (issue 13; DESIGN §7).

Built on the official ``mcp`` SDK (checked on 2.3.0): ``mcp.server.mcpserver.MCPServer``. Each
tool is the same :class:`~vault_sync.app.Engine` call the CLI command makes, and returns the
same shape as the command's ``--json``. Failures a user can cause leave as the SDK's
``ToolError`` with our one-line, scrubbed message (a plain exception would reach the agent as
only "Error executing tool NAME"). Schemas are permissive where agents vary (a tag list or one
comma-separated string); our own validation gives the one-line errors
(:mod:`vault_sync.mcp_calls`). Reads never take the writer lock; writes wait for it
(``lock_timeout_s``); no lock is held between calls (the index stays open for ``query``:
:class:`~vault_sync.mcp_calls.Stores`), so several servers, a watcher and CLI writers can share
one vault. This module registers the read tools and serves; ``--read-only`` leaves out the
write tools (:mod:`vault_sync.mcp_writes`). The vault comes from ``--vault`` in the server's
configuration: the stdio client passes the server only HOME, LOGNAME, PATH, SHELL, TERM and USER.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from vault_sync import __version__
from vault_sync.app import Engine
from vault_sync.cli_common import hit_json
from vault_sync.config import Config
from vault_sync.mcp_calls import Flag, Names, Number, Stores, call, flag_arg, int_arg, listed
from vault_sync.mcp_writes import import_tool, link_writes, page_writes
from vault_sync.typed_text import scrub_typed

INSTRUCTIONS = (
    "vault-sync is this team's shared memory: Markdown pages (rules, decisions, gotchas, bugs,"
    " sessions) that people and agents of every vendor read and write. Call `brief` once at"
    " the start of a session, `query` before deciding something the team may already know,"
    " and `remember` / `reinforce` / `link` when you learn something worth keeping."
)

#: Most lines of a briefing section the ``brief`` tool returns at once (a recent list can hold
#: every dated page of the vault; an agent pages on with ``offset``). 200 lines are ~15,000
#: characters, a little more than a default briefing.
SECTION_LIMIT = 200


class _Server(MCPServer):
    """The SDK's server, with every tool error made one scrubbed line: the SDK's own argument
    validation (a missing or misnamed argument) reports pydantic's dump, which echoes the
    caller's input values (a secret typed into any argument); only the field names and what
    is wrong with them are kept."""

    config: Config | None = None

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        """The SDK's call, its ToolError turned into our one line (see the class); an
        argument the tool does not take is refused by name (the SDK drops it silently, so a
        misspelt ``explian`` or ``kinds`` would be ignored: a fresh user's report)."""
        try:
            schema = self._tool_input_schema(name)
            given = set(arguments or {})
            if schema is not None and (unknown := sorted(given - set(schema["properties"]))):
                missing = sorted(set(schema.get("required", [])) - given)
                listed = ", ".join(
                    [f"{arg} (missing)" for arg in missing]
                    + [f"{arg} (unknown)" for arg in unknown]
                )
                raise ToolError(f"Error executing tool {name}: bad arguments: {listed}")
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
        page_writes(server, engine)
        link_writes(server, engine)
        import_tool(server, engine)
    return server


def _search_tools(server: MCPServer, engine: Engine) -> None:
    """Register ``query`` and ``brief``."""
    stores = Stores(engine)

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
        `explain` gives each stage's part per hit and how the text was read (`reading`)."""
        count, why = int_arg(limit, "limit", 1, 1000), flag_arg(explain, "explain")
        options = {"limit": count, "kind": kind, "project": project, "tag": tag, "explain": why}
        options.update(status=status, as_of=as_of, now=now)
        from vault_sync.retrieve import check_query_size

        call(engine, lambda: check_query_size(text))  # as typed, before scrubbing (as the CLI)
        text = scrub_typed(text, engine.config)  # searched as scrubbed, as the CLI does
        hits = call(engine, lambda: stores.search(text, **options))
        if hits is None:  # no usable store: the engine syncs or rebuilds (seconds), in a thread
            found = await asyncio.to_thread(
                lambda: call(engine, lambda: engine.search(text, **options))
            )
            hits = found[0]
        out: dict[str, Any] = {"query": text, "hits": [hit_json(h, why) for h in hits]}
        if why:  # how the (scrubbed) text was read, as the CLI's --explain --json gives it
            from vault_sync.retrieve import query_reading

            out["reading"] = query_reading(text)
        return out

    @server.tool()
    def brief(
        project: str | None = None,
        budget_chars: Number | None = None,
        section: str | None = None,
        offset: Number | None = None,
        limit: Number | None = None,
    ) -> str:
        """The standing answers (active rules, decisions, gotchas... by confidence), open
        contradictions, known fixes for open bugs and recent sessions, as Markdown within a
        character budget (default 10000). Use it once at the start of a session (skip it if
        the briefing is already in your context: CLAUDE.md, AGENTS.md, GEMINI.md). `section`
        (standing, contradictions, fixes, sessions, changed) gives that section whole, what a
        "… N more: `vault-sync brief --section NAME`" line was cut from (no budget), at most
        `limit` lines (default 200) from `offset` (default 0), then a "… N more" line naming
        the next offset. Not for a specific question: use `query`."""
        budget = int_arg(budget_chars, "budget_chars", 300, 10_000_000)
        if section is not None:
            if budget_chars is not None:  # as the CLI: never silently ignored
                raise ToolError("budget_chars does not apply to a section: it is given whole")
            first = int_arg(offset, "offset", 0, 10_000_000) or 0
            most = int_arg(limit, "limit", 1, 10_000_000) or SECTION_LIMIT
            heading, lines, _ = call(engine, lambda: engine.brief_section(section, project=project))
            from vault_sync.briefing import whole_text

            text = whole_text(
                heading, lines, name=section, project=project, offset=first, limit=most
            )
        elif offset is not None or limit is not None:
            raise ToolError("offset and limit apply to a section only")
        else:
            text, _, _ = call(engine, lambda: engine.brief(project=project, budget=budget))
        warning = call(engine, lambda: engine.unknown_project(project))  # a typo: said first
        return text if warning is None else f"warning: {warning}\n\n{text}"


def _page_tools(server: MCPServer, engine: Engine) -> None:
    """Register ``show``, ``related``, ``status`` and ``lint``."""

    @server.tool()
    def show(page: str) -> dict[str, Any]:
        """One page in full: frontmatter, typed links out and in, evidence, parse issues. Use
        it to read a page `query` found, before relying on it or changing it. Not for
        searching: it needs the page's id, path, file name, title or alias (`page`)."""
        from vault_sync.report import page_details

        details, _ = call(
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

        hops = int_arg(depth, "depth", 1, MAX_DEPTH) or 1
        wanted = listed(types)
        data, _ = call(
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

        data, _ = call(
            engine, lambda: engine.read(lambda r: vault_status(engine.config, r.sidecar))
        )
        return dict(data)

    @server.tool()
    def lint() -> dict[str, Any]:
        """Problems in the pages: parse errors, broken and ambiguous links, missing
        attachments, secrets found (by label, never the value). Use it when asked to tidy or
        check the vault. Not during ordinary work: it reads every page."""
        problems, _ = call(engine, engine.lint)
        errors = sum(1 for p in problems if p["severity"] == "error")
        return {"errors": errors, "warnings": len(problems) - errors, "problems": problems}


def serve(vault: Path | str | None, *, read_only: bool = False) -> None:
    """Serve the vault over stdio until the client closes the connection (stdin and stdout
    read and written on the event loop: :mod:`vault_sync.mcp_stdio`)."""
    from vault_sync.mcp_stdio import run_stdio

    asyncio.run(run_stdio(build_server(vault, read_only=read_only)))


__all__ = ["INSTRUCTIONS", "build_server", "serve"]
