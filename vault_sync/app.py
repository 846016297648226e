"""The one object a front end opens: :class:`Engine`, a vault's configuration with everything
wired to it (issue 15).

The command line (and, later, the MCP server and the briefing writer) opens one ``Engine`` per
vault and calls its methods; each method is the one library call a command makes, so two
front ends cannot wire the stores, the sanitizer or the watcher differently. The store work
itself lives in :mod:`vault_sync.engine` (sync, rebuild, repair) and :mod:`vault_sync.readers`,
whose functions stay public for tests and scripts. Layer 7: above the engine, below the CLI.
Heavy parts (the writers' wiring, the watcher, the redaction writer) are imported only by the
methods that use them, so ``query`` starts fast.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from vault_sync import readers
from vault_sync.config import Config, load_config
from vault_sync.discover import find_vault
from vault_sync.errors import AgentInputError
from vault_sync.typed_text import scrub_typed

if TYPE_CHECKING:
    from vault_sync.brief_cache import FactsCache
    from vault_sync.brief_targets import Written
    from vault_sync.edits import EditReport
    from vault_sync.engine import ProgressStart, Scanner, SyncResult
    from vault_sync.readers import Reader
    from vault_sync.redaction import PageRedaction
    from vault_sync.retrieve import Hit
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
        directory: :func:`vault_sync.discover.find_vault`) and load its configuration.

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
        from vault_sync import engine

        return engine.run_sync(
            self.config,
            progress_start=progress_start,
            scanner=scanner,
            full_check=full_check,
            scope=scope,
        )

    def rebuild(self, *, progress_start: ProgressStart | None = None) -> SyncResult:
        """Build both stores again beside the old ones: :func:`vault_sync.engine.run_rebuild`."""
        from vault_sync import engine

        return engine.run_rebuild(self.config, progress_start=progress_start)

    def search(self, text: str, **options: Any) -> tuple[list[Hit], str | None]:
        """Search, repairing a damaged index once: :func:`vault_sync.readers.search`
        (``options``: limit, kind, project, tag, explain, now, switches, boosts, snippets).
        The text is searched as scrubbed (:func:`vault_sync.typed_text.scrub_typed`), its size
        checked as typed first (:func:`vault_sync.retrieve.check_query_size`)."""
        from vault_sync.retrieve import check_query_size

        check_query_size(text)
        return readers.search(self.config, scrub_typed(text, self.config), **options)

    def reader(self, *, check_sidecar: bool = False) -> Reader:
        """Both stores open for reading (close it after): :func:`vault_sync.readers.open_reader`."""
        return readers.open_reader(self.config, check_sidecar=check_sidecar)

    def read(
        self, report: Callable[[Reader], R], *, check_sidecar: bool = True
    ) -> tuple[R, str | None]:
        """Run one read against the stores: :func:`vault_sync.readers.read_stores`."""
        return readers.read_stores(self.config, report, check_sidecar=check_sidecar)

    def lint(self) -> tuple[list[dict[str, Any]], str | None]:
        """``lint``'s problems and a notice: :func:`vault_sync.readers.lint_report`."""
        return self.read(lambda reader: readers.lint_report(self.config, reader.sidecar))

    def redact(
        self, references: Iterable[str], *, every_page: bool, write: bool
    ) -> list[PageRedaction]:
        """Find (with ``write``: remove) secrets in pages (:func:`vault_sync.redaction.run_redact`),
        then sync the pages written."""
        from vault_sync.redaction import run_redact
        from vault_sync.report import find_page

        def find(refs: list[str]) -> list[str]:
            found, _ = self.read(
                lambda r: [find_page(r.sidecar, ref, self.config.vault) for ref in refs],
                check_sidecar=False,
            )
            return found

        from vault_sync import engine

        return run_redact(
            self.config,
            references,
            every_page=every_page,
            write=write,
            find=find,
            sync=lambda paths: engine.run_sync(self.config, full_check=False, scope=paths),
        )

    def watcher(self, report: Callable[[dict[str, Any]], None]) -> Watcher:
        """A watcher of this vault applying batches through this engine's sync, reporting one
        line per batch to ``report`` (:class:`vault_sync.watch.Watcher`), and refreshing the
        ``[[brief.targets]]`` after each batch that changed the stores. It may prepare pages
        in spawned worker processes (:func:`vault_sync.prepare.allow_spawned_workers`)."""
        from vault_sync import engine
        from vault_sync.prepare import allow_spawned_workers
        from vault_sync.watch import Watcher

        allow_spawned_workers()
        refresh = None
        if self.config.brief_targets:
            from vault_sync.brief_cache import FactsCache

            cache = FactsCache()  # pages read again only when written since the last refresh
            refresh = lambda: self.write_briefs(facts=cache)  # noqa: E731
        return Watcher(self.config, engine.run_sync, report, after_batch=refresh)

    def brief(
        self,
        *,
        project: str | None = None,
        budget: int | None = None,
        facts: FactsCache | None = None,
    ) -> tuple[str, dict[str, Any], str | None]:
        """The briefing (:mod:`vault_sync.briefing`): ``(markdown, {section: {"shown",
        "total"}}, notice)``, within ``budget`` characters (default
        :data:`~vault_sync.briefing.BUDGET_CHARS`); ``facts``: page facts kept from an
        earlier call (the watcher's, :class:`~vault_sync.brief_cache.FactsCache`), else all
        are read.

        Raises:
            AgentInputError: a budget below :data:`~vault_sync.briefing.MIN_BUDGET_CHARS`;
                a ``project`` holding a secret (:meth:`brief_project`).
        """
        from vault_sync import briefing

        project = self.brief_project(project)
        chars = briefing.BUDGET_CHARS if budget is None else budget
        if chars < briefing.MIN_BUDGET_CHARS:
            raise AgentInputError(
                f"a briefing budget is at least {briefing.MIN_BUDGET_CHARS} characters"
            )

        def build(reader: Reader) -> tuple[str, dict[str, Any]]:
            bodies = lambda paths: reader.index.stored_texts(paths, "body")  # noqa: E731
            if facts is None:
                parts = briefing.sections(briefing.gather(reader.sidecar, project), bodies, chars)
            else:
                found, ordered = facts.inputs(reader.sidecar, project)
                parts = briefing.sections(found, bodies, chars, ordered, facts.said)
            return briefing.render(parts, project=project, budget=chars)

        (text, counts), notice = self.read(build, check_sidecar=False)
        return text, counts, notice

    def brief_project(self, project: str | None) -> str | None:
        """``project`` as a briefing names it (its heading, its ``--project`` recall lines):
        refused when it holds a secret, as ``import-session`` refuses one — a briefing is
        written into files that are often committed (CLI, hook, MCP, ``[[brief.targets]]``).

        Raises:
            AgentInputError: ``"a project cannot hold a secret: '[REDACTED:<label>]'"``.
        """
        from vault_sync.agent_input import no_secret

        return project if project is None else no_secret(self.config, project, "a project")

    def unknown_project(self, project: str | None) -> str | None:
        """A warning when ``project`` is given and no page has it (a typo gives an empty
        briefing), naming the projects present, as ``query --project`` warns; else None.

        Raises:
            AgentInputError: a ``project`` holding a secret (:meth:`brief_project`).
        """
        if self.brief_project(project) is None:
            return None
        present, _ = self.read(lambda r: r.sidecar.filter_values()["project"], check_sidecar=False)
        if project in present:
            return None
        return f"no page has project {project!r} (projects present: {', '.join(present) or 'none'})"

    def brief_section(
        self, name: str, *, project: str | None = None
    ) -> tuple[str, list[str], str | None]:
        """One section of the briefing whole, nothing cut (:func:`vault_sync.briefing.whole`:
        what its "… N more" line points to): ``(heading, lines, notice)``.

        Raises:
            AgentInputError: ``name`` is not one of :data:`vault_sync.briefing.SECTIONS`; a
                ``project`` holding a secret (:meth:`brief_project`).
        """
        from vault_sync import briefing

        project = self.brief_project(project)

        if name not in briefing.SECTIONS:
            sections = ", ".join(briefing.SECTIONS)
            raise AgentInputError(f"no briefing section {name!r} (sections: {sections})")

        def build(reader: Reader) -> tuple[str, list[str]]:
            bodies = lambda paths: reader.index.stored_texts(paths, "body")  # noqa: E731
            return briefing.whole(briefing.gather(reader.sidecar, project), bodies, name)

        (heading, lines), notice = self.read(build, check_sidecar=False)
        return heading, lines, notice

    def write_briefs(
        self, *, check: bool = False, facts: FactsCache | None = None
    ) -> list[Written]:
        """Bring every ``[[brief.targets]]`` file up to date (``check``: only report which
        are stale; ``facts``: as for :meth:`brief`); each target its own project and budget.
        A target that cannot be written does not stop the others.

        Raises:
            BriefTargetsError: after every target was tried, when any was refused (a file a
                person changed while it was written, a page named as a whole-file target,
                markers that are no one block: :func:`~vault_sync.brief_targets.write_target`;
                a file that is no agent instruction file:
                :func:`~vault_sync.brief_targets.checked_target`)
                or could not be written; it holds what the others did.
        """
        from vault_sync.brief_targets import Written, checked_target, target_path, write_target
        from vault_sync.errors import BriefTargetsError, VaultSyncError

        out, failed = [], []
        for target in self.config.brief_targets:
            path = target_path(self.config, target)
            try:
                real = checked_target(path)
                text, _, _ = self.brief(project=target.project, budget=target.budget, facts=facts)
                written = write_target(real, target.mode, text, check=check)
                out.append(Written(path, written.changed))
            except VaultSyncError as exc:
                failed.append(str(exc))
            except OSError as exc:
                failed.append(f"cannot write {path}: {exc.strerror or exc}")
        if failed:
            raise BriefTargetsError(out, failed)
        return out

    # -- agent writes (issue 11): each finds its pages in the stores, edits the files, then
    # -- applies the pages written to both stores, so the next query sees them.

    def write(self, command: str, *, dry_run: bool = False, **arguments: Any) -> EditReport:
        """Run one write command of :mod:`vault_sync.write_commands` (``command``: reinforce,
        retract, archive, link, supersede, resolve, remember) or ``import-session``
        (:mod:`vault_sync.session_import`) with its ``arguments``: find
        its pages, edit the files (:func:`vault_sync.edits.run_edits`; ``dry_run``: only the
        diffs), then sync the pages written at once.

        Raises:
            PageNotFoundError, AmbiguousPageError: a page reference names no page, or several.
            AgentInputError, PageExistsError, OutsideVaultError, EditRefusedError,
            EditConflictError: see each command; nothing is written then. An argument holding
                a control character other than tab and newline is an AgentInputError
                (:func:`vault_sync.agent_input.no_controls`).
        """
        from vault_sync import agent_input, engine, session_import, write_commands
        from vault_sync.edits import EditReport, run_edits

        agent_input.no_controls(arguments)  # before any look-up: nothing read, nothing written
        module = session_import if command == "import-session" else write_commands
        build = getattr(module, _BUILDERS[command])
        report = EditReport(command, dry_run=dry_run)
        # A command that may create a page holds the writer lock from its look-up to the sync
        # of what it wrote: else two `remember`s of one new title both find no page and make
        # two (or one fails and its evidence is lost). The others look up outside the lock
        # (an edit re-reads its page under it) and sync after, so many writers share it.
        whole = not dry_run and command in _CREATES
        with engine.writer_lock(self.config) if whole else contextlib.nullcontext():
            # The sidecar's quick_check is left out (~100 ms at 10k pages): the sync of the
            # pages written checks the stores as every writer does; damage met here rebuilds.
            edits, report.notice = self.read(
                lambda r: build(self.config, r.sidecar, report, **arguments),
                check_sidecar=False,
            )
            if dry_run:
                run_edits(command, edits, self.config, report)
            else:  # one vault-sync writer edits pages at a time: two agents' check-then-rename
                with engine.writer_lock(self.config):  # steps would interleave, losing one edit
                    run_edits(command, edits, self.config, report)
            written = [e.disk_path for e in edits if e.path in report.changed_paths]
            if written and not dry_run:
                engine.run_sync(self.config, scope=written)
        return report


#: Write commands that may create a page: each holds the writer lock from its look-up through
#: its sync (:meth:`Engine.write`).
_CREATES = frozenset({"remember", "import-session"})

#: Write command -> its function in :mod:`vault_sync.write_commands` (``import-session``: in
#: :mod:`vault_sync.session_import`).
_BUILDERS = {
    "reinforce": "reinforce",
    "retract": "retract",
    "archive": "archive",
    "link": "link",
    "unlink": "link",
    "supersede": "supersede",
    "resolve": "resolve",
    "remember": "remember_page",
    "import-session": "import_session",
}
