"""The one object a front end opens: :class:`Engine`, a vault's configuration with everything
wired to it (issue 15).

The command line (and, later, the MCP server and the briefing writer) opens one ``Engine`` per
vault and calls its methods; each method is the one library call a command makes, so two
front ends cannot wire the stores, the sanitizer or the watcher differently. The store work
itself lives in :mod:`vault_sync.engine` (sync, rebuild, readers, repair), whose functions
stay public for tests and scripts. Layer 7: above the engine, below the CLI. Heavy parts (the
watcher, the redaction writer) are imported only by the methods that use them, so ``query``
starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from vault_sync import engine
from vault_sync.config import Config, find_vault, load_config
from vault_sync.errors import AgentInputError

if TYPE_CHECKING:
    from vault_sync.edits import Edit, EditReport
    from vault_sync.engine import ProgressStart, Reader, Scanner, SyncResult
    from vault_sync.redaction import PageRedaction
    from vault_sync.retrieve import Hit
    from vault_sync.store import Sidecar
    from vault_sync.watch import Watcher

R = TypeVar("R")


@dataclass(frozen=True)
class Engine:
    """A vault, opened once.

    Attributes:
        config: the vault's configuration (``vault-sync.toml``, defaults otherwise).
    """

    config: Config

    @classmethod
    def open(cls, vault: str | os.PathLike[str] | None = None) -> Engine:
        """Find the vault (``vault``, else ``$VAULT_SYNC_VAULT``, else upward from the working
        directory: :func:`vault_sync.config.find_vault`) and load its configuration.

        Raises:
            ConfigError: no vault found, a refused folder, or a bad ``vault-sync.toml``.
        """
        return cls(load_config(find_vault(vault)))

    def sync(
        self,
        *,
        progress_start: ProgressStart | None = None,
        scanner: Scanner | None = None,
        full_check: bool = True,
        scope: Iterable[str] | None = None,
    ) -> SyncResult:
        """Bring both stores in step with the vault: :func:`vault_sync.engine.run_sync`
        (``scanner`` is a test seam; ``full_check=False`` and ``scope`` make a watcher batch).
        """
        return engine.run_sync(
            self.config,
            progress_start=progress_start,
            scanner=scanner,
            full_check=full_check,
            scope=scope,
        )

    def rebuild(self, *, progress_start: ProgressStart | None = None) -> SyncResult:
        """Build both stores again beside the old ones: :func:`vault_sync.engine.run_rebuild`."""
        return engine.run_rebuild(self.config, progress_start=progress_start)

    def search(self, text: str, **options: Any) -> tuple[list[Hit], str | None]:
        """Search, repairing a damaged index once: :func:`vault_sync.engine.search`
        (``options``: limit, kind, project, tag, explain, now, switches, boosts, snippets)."""
        return engine.search(self.config, text, **options)

    def reader(self, *, check_sidecar: bool = False) -> Reader:
        """Both stores open for reading (close it after): :func:`vault_sync.engine.open_reader`."""
        return engine.open_reader(self.config, check_sidecar=check_sidecar)

    def read(
        self, report: Callable[[Reader], R], *, check_sidecar: bool = True
    ) -> tuple[R, str | None]:
        """Run one read against the stores: :func:`vault_sync.engine.read_stores`."""
        return engine.read_stores(self.config, report, check_sidecar=check_sidecar)

    def lint(self) -> tuple[list[dict[str, Any]], str | None]:
        """``lint``'s problems and a notice: :func:`vault_sync.engine.lint_report`."""
        return self.read(lambda reader: engine.lint_report(self.config, reader.sidecar))

    def redact(
        self, references: Iterable[str], *, every_page: bool, write: bool
    ) -> list[PageRedaction]:
        """Find (with ``write``: remove) secrets in pages (:func:`vault_sync.engine.run_redact`)."""
        return engine.run_redact(self.config, references, every_page=every_page, write=write)

    def watcher(self, report: Callable[[dict[str, Any]], None]) -> Watcher:
        """A watcher of this vault applying batches through this engine's sync, reporting one
        line per batch to ``report`` (:class:`vault_sync.watch.Watcher`). It may prepare pages
        in spawned worker processes (:func:`vault_sync.prepare.allow_spawned_workers`)."""
        from vault_sync.prepare import allow_spawned_workers
        from vault_sync.watch import Watcher

        allow_spawned_workers()
        return Watcher(self.config, engine.run_sync, report)

    # -- agent writes (issue 11): each finds its pages in the stores, edits the files, then
    # -- applies the pages written to both stores, so the next query sees them.

    def _write(
        self,
        command: str,
        build: Callable[[Sidecar, EditReport], list[Edit]],
        dry_run: bool,
    ) -> EditReport:
        """Run one write command: ``build`` names the edits (from the stores), they are
        applied to the files, and the pages written are synced at once."""
        from vault_sync.edits import EditReport, run_edits

        report = EditReport(command, dry_run=dry_run)
        edits, _ = self.read(lambda reader: build(reader.sidecar, report))
        run_edits(command, edits, self.config, report)
        written = [e.disk_path for e in edits if e.path in report.changed_paths]
        if written and not dry_run:
            engine.run_sync(self.config, scope=written)
        return report

    def reinforce(
        self,
        page: str,
        evidence: str,
        *,
        at: str | None = None,
        note: str | None = None,
        dry_run: bool = False,
    ) -> EditReport:
        """Append one evidence entry to a page (idempotent per kind and source)."""
        from vault_sync import agent_input, edits

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            path, disk = edits.page_of(self.config, sidecar, page)
            entry = agent_input.evidence(evidence, at=at, note=note)
            entry = replace(
                entry,
                source=edits.scrubbed(self.config, entry.source, report),
                note=edits.scrubbed(self.config, entry.note, report) if entry.note else None,
            )
            return [edits.Edit(path, disk, edits.add_evidence(path, entry))]

        return self._write("reinforce", build, dry_run)

    def retract(self, page: str, evidence: str, *, dry_run: bool = False) -> EditReport:
        """Remove an evidence entry (by kind and source) from a page."""
        from vault_sync import agent_input, edits

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            path, disk = edits.page_of(self.config, sidecar, page)
            key = agent_input.evidence(evidence).key
            return [edits.Edit(path, disk, edits.remove_evidence(path, key))]

        return self._write("retract", build, dry_run)

    def archive(self, page: str, *, dry_run: bool = False) -> EditReport:
        """Set a page's ``status: archived``."""
        from vault_sync import edits

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            path, disk = edits.page_of(self.config, sidecar, page)
            return [edits.Edit(path, disk, edits.set_key(path, "status", "archived"))]

        return self._write("archive", build, dry_run)

    def link(
        self,
        source: str,
        relation: str,
        target: str,
        *,
        remove: bool = False,
        dry_run: bool = False,
    ) -> EditReport:
        """Add (``remove``: take away) a typed relation ``source -relation-> target``."""
        from vault_sync import agent_input, edits

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            key = agent_input.relation_type(relation)
            path, disk = edits.page_of(self.config, sidecar, source)
            other, _ = edits.page_of(self.config, sidecar, agent_input.target(target))
            names = edits.name_keys(sidecar, other)
            if remove:
                return [edits.Edit(path, disk, edits.remove_relation(path, key, names))]
            link = edits.link_text(sidecar, other)
            return [edits.Edit(path, disk, edits.add_relation(path, key, link, names))]

        return self._write("unlink" if remove else "link", build, dry_run)

    def supersede(self, old: str, new: str, *, dry_run: bool = False) -> EditReport:
        """Mark ``old`` superseded by ``new``: ``status: superseded`` and ``superseded_by``
        on ``old``, ``supersedes`` on ``new``."""

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            return self._supersede_edits(sidecar, old, new)

        return self._write("supersede", build, dry_run)

    def _supersede_edits(self, sidecar: Sidecar, old: str, new: str) -> list[Edit]:
        from vault_sync import agent_input, edits

        old_path, old_disk = edits.page_of(self.config, sidecar, agent_input.target(old))
        new_path, new_disk = edits.page_of(self.config, sidecar, agent_input.target(new))
        if old_path == new_path:
            raise AgentInputError(f"{old_path} cannot supersede itself")
        loser = edits.then(
            edits.set_key(old_path, "status", "superseded"),
            edits.add_relation(
                old_path,
                "superseded_by",
                edits.link_text(sidecar, new_path),
                edits.name_keys(sidecar, new_path),
            ),
        )
        winner = edits.add_relation(
            new_path,
            "supersedes",
            edits.link_text(sidecar, old_path),
            edits.name_keys(sidecar, old_path),
        )
        return [edits.Edit(old_path, old_disk, loser), edits.Edit(new_path, new_disk, winner)]

    def resolve(
        self,
        page: str,
        *,
        by: str = "supersede",
        keep: str | None = None,
        dry_run: bool = False,
    ) -> EditReport:
        """Settle a ``contradicts`` pair: the kept page (``keep``, default ``page``) wins; the
        other is superseded by it (``by="supersede"``) or archived (``by="archive"``); the
        ``contradicts`` links between the two are removed from both."""
        from vault_sync import agent_input, edits

        if by not in ("supersede", "archive"):
            raise AgentInputError(f"--by is supersede or archive (got {by!r})")

        def build(sidecar: Sidecar, report: EditReport) -> list[Edit]:
            path, _ = edits.page_of(self.config, sidecar, agent_input.target(page))
            kept = None
            if keep is not None:
                kept = edits.page_of(self.config, sidecar, agent_input.target(keep))[0]
            other = edits.contradiction_of(sidecar, path, kept)
            winner, loser = (other, path) if kept == other else (path, other)
            uncontradict = []
            for a, b in ((winner, loser), (loser, winner)):
                disk = edits.page_of(self.config, sidecar, a)[1]
                names = edits.name_keys(sidecar, b)
                uncontradict.append(
                    edits.Edit(a, disk, edits.remove_relation(a, "contradicts", names))
                )
            if by == "archive":
                disk = edits.page_of(self.config, sidecar, loser)[1]
                settle = [edits.Edit(loser, disk, edits.set_key(loser, "status", "archived"))]
            else:
                settle = self._supersede_edits(sidecar, loser, winner)
            return _merged([*uncontradict, *settle])

        return self._write("resolve", build, dry_run)


def _merged(edits: list[Edit]) -> list[Edit]:
    """One edit per page (its changes in order), so each page is written once."""
    from vault_sync.edits import Edit, then

    by_path: dict[str, list[Edit]] = {}
    for edit in edits:
        by_path.setdefault(edit.path, []).append(edit)
    return [
        Edit(group[0].path, group[0].disk_path, then(*(e.change for e in group)))
        for group in by_path.values()
    ]
