"""Sync: scan -> plan -> apply, the same code for ``sync``, ``rebuild`` and (later) the watcher.

- **scan** (:func:`vault_sync.vault.scan`) lists the vault's pages with (mtime, size).
- **plan** (:func:`make_plan`) classifies by what is on disk, as a plain :class:`Plan` value:
  unchanged (mtime, size) skips the hash; a changed stat with an equal content hash is only
  *touched*; a delete and a create with equal content hash is a *move*; a stored page under a
  folder that could not be read is *kept* (deleting needs proof of absence, DESIGN §4).
- **apply** (:func:`apply_plan`) splits the work into bounded batches; each batch's pages are
  read, parsed and scrubbed first, then the batch takes the writer lock, journals its paths,
  commits the tantivy index, then the SQLite sidecar (which records the generation complete
  and clears the journal), and releases the lock. A batch that never completed is redone by
  the next writer (:func:`redo_pending`).

Fault injection for tests: the environment variable ``VAULT_SYNC_FAULT`` (read only here, see
:func:`_fault_point`) names a point at which the process kills itself.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vault_sync import layout
from vault_sync.config import Config
from vault_sync.index import KeptWriter, PageIndex, document_fields
from vault_sync.lock import WriterLock
from vault_sync.page import Issue, Page, Severity
from vault_sync.pagefile import read_page
from vault_sync.sanitize import Scrubber, line_of
from vault_sync.secret_values import FoundValues
from vault_sync.store import FileState, PageRecord, Sidecar
from vault_sync.vault import FileEntry, ScanResult, proven_absent, scan, scan_paths

logger = logging.getLogger(__name__)

#: Most pages per batch. About a second of work on this machine (parse ~0.1-0.3 ms/page,
#: index ~0.03 ms/page, TECH-NOTES §6), so the lock is released about once a second.
BATCH_PAGES = 1000
#: Most bytes of page text per batch, so a few huge pages also make a bounded batch.
BATCH_BYTES = 16 * 1024 * 1024

FAULT_ENV = "VAULT_SYNC_FAULT"

ProgressFn = Callable[[int], None]


_fault_counts: dict[str, int] = {}


def _fault_point(name: str) -> None:
    """Test-only seam: SIGKILL this process at a named point of apply (DESIGN §4).

    ``$VAULT_SYNC_FAULT`` is ``NAME`` (kill the first time the point is reached) or
    ``NAME@N`` (the N-th time, e.g. in a watcher's N-th batch). Points, in apply order:
    ``after_journal`` (journal committed, no store touched), ``during_batch`` (half the
    batch's prepared pages collected), ``after_index_commit`` (index committed, sidecar not: the
    two stores disagree), ``after_sidecar_commit`` (both committed). Read nowhere else.
    """
    wanted = os.environ.get(FAULT_ENV)
    if not wanted:
        return
    point, _, nth = wanted.partition("@")
    if point != name:
        return
    _fault_counts[name] = _fault_counts.get(name, 0) + 1
    if _fault_counts[name] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)


@dataclass(frozen=True)
class Plan:
    """What a sync will do; a plain value (STYLE item 4).

    Attributes:
        new: paths of pages not in the stores.
        modified: paths whose content hash changed.
        moved: ``(old_path, new_path)`` pairs with equal content hash.
        deleted: stored paths proven absent.
        touched: ``(path, state)`` of pages whose stat changed but content did not.
        kept: stored paths under unreadable folders, not deleted for lack of proof.
        unchanged: number of pages skipped by (mtime, size).
        errors: ``{path: message}`` for folders and files that could not be read.
    """

    new: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    moved: tuple[tuple[str, str], ...] = ()
    deleted: tuple[str, ...] = ()
    touched: tuple[tuple[str, FileState], ...] = ()
    kept: tuple[str, ...] = ()
    unchanged: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        """True when nothing in the stores needs to change."""
        return not (self.new or self.modified or self.moved or self.deleted or self.touched)


@dataclass(frozen=True)
class SyncReport:
    """What a sync did.

    Attributes:
        added, changed, moved, deleted, unchanged: page counts.
        generation: the stores' generation afterwards.
        batches: number of batches applied (each one generation).
        errors: ``{path: message}`` of unreadable folders and files.
        took_ms: wall time in milliseconds.
    """

    added: int
    changed: int
    moved: int
    deleted: int
    unchanged: int
    generation: int
    batches: int
    errors: dict[str, str]
    took_ms: float

    @property
    def did_work(self) -> bool:
        """True when any page was added, changed, moved or deleted."""
        return bool(self.added or self.changed or self.moved or self.deleted)


def _hash_of(config: Config, entry: FileEntry) -> str | None:
    try:
        return read_page(config.vault, entry)[1]
    except OSError:
        return None


def make_plan(
    config: Config,
    result: ScanResult,
    stored: dict[str, FileState],
    pending: Iterable[str] = (),
) -> Plan:
    """Classify every page of a scan against the stored file states.

    Args:
        config: the vault's configuration.
        result: the scan.
        stored: ``{path: FileState}`` from the sidecar.
        pending: paths of an unfinished batch; they are redone whatever their stat says.

    Returns:
        The plan. Reads (and hashes) only files whose stat changed, and new files only when
        something was deleted (to pair moves).
    """
    redo = set(pending)
    new: list[str] = []
    modified: list[str] = []
    touched: list[tuple[str, FileState]] = []
    unchanged = 0
    errors = {u.path: u.error for u in result.unreadable}
    for path, entry in result.pages.items():
        state = stored.get(path)
        if state is None:
            new.append(path)
        elif path in redo:
            modified.append(path)
        elif state.mtime_ns == entry.mtime_ns and state.size == entry.size:
            unchanged += 1
        else:
            digest = _hash_of(config, entry)
            if digest == state.hash:
                touched.append((path, FileState(digest, entry.mtime_ns, entry.size)))
            else:
                modified.append(path)
    absent = [p for p in stored if p not in result.pages]
    kept = [p for p in absent if not result.absence_proven(p)]
    deleted = [p for p in absent if result.absence_proven(p)]
    moved: list[tuple[str, str]] = []
    if deleted and new:
        by_hash: dict[str, list[str]] = {}
        for path in deleted:
            by_hash.setdefault(stored[path].hash, []).append(path)
        for path in sorted(new):
            digest = _hash_of(config, result.pages[path])
            olds = by_hash.get(digest or "")
            if olds:
                moved.append((olds.pop(0), path))
        moved_old = {o for o, _ in moved}
        moved_new = {n for _, n in moved}
        deleted = [p for p in deleted if p not in moved_old]
        new = [p for p in new if p not in moved_new]
    return Plan(
        new=tuple(sorted(new)),
        modified=tuple(sorted(modified)),
        moved=tuple(moved),
        deleted=tuple(sorted(deleted)),
        touched=tuple(sorted(touched)),
        kept=tuple(sorted(kept)),
        unchanged=unchanged,
        errors=errors,
    )


def _project_for(config: Config, path: str) -> str | None:
    """The first ``[projects]`` glob (gitignore syntax) matching ``path``, DESIGN §3."""
    if not config.projects:
        return None
    import pathspec  # only needed when projects are configured

    for glob, name in config.projects.items():
        if pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path):
            return name
    return None


@functools.lru_cache(maxsize=8)
def _scrubber(extra_patterns: tuple[str, ...], allow: tuple[str, ...]) -> Scrubber:
    return Scrubber(extra_patterns, allow)


def scrubber_for(config: Config) -> Scrubber:
    """The vault's sanitizer (config ``[sanitize]``), compiled once per process."""
    return _scrubber(config.sanitize_extra_patterns, config.sanitize_allow)


def _clean_value(scrubber: Scrubber, value: Any, key: str | None = None) -> Any:
    """Scrub a frontmatter value; a string is scrubbed with its key in front (``key: value``)
    so rules that need the name (``aws_secret_access_key: ...``) still see it."""
    if isinstance(value, str):
        if key is not None:
            out = scrubber.scrub(f"{key}: {value}")[0]
            if out.startswith(f"{key}: "):
                return out[len(key) + 2 :]
        return scrubber.scrub(value)[0]
    if isinstance(value, list):
        return [_clean_value(scrubber, v, key) for v in value]
    if isinstance(value, dict):
        return {
            scrubber.scrub(str(k))[0]: _clean_value(scrubber, v, str(k)) for k, v in value.items()
        }
    return value


def _leaf_texts(value: Any, key: str = "") -> list[str]:
    """Every string in a frontmatter value, as ``key: value`` (rules need the name)."""
    if isinstance(value, str):
        return [f"{key}: {value}" if key else value]
    if isinstance(value, list):
        return [t for v in value for t in _leaf_texts(v, key)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (str(k), *_leaf_texts(v, str(k)))]
    return []


def _hidden(found: FoundValues, value: Any) -> Any:
    """A scrubbed frontmatter value with every found value hidden in its strings."""
    if isinstance(value, str):
        return found.hide(value)
    if isinstance(value, list):
        return [_hidden(found, v) for v in value]
    if isinstance(value, dict):
        return {found.hide(str(k)): _hidden(found, v) for k, v in value.items()}
    return value


def clean_page(page: Page, text: str, scrubber: Scrubber) -> Page:
    """The sanitizer seam of everything stored (DESIGN Invariant 6): return ``page`` with every
    secret in every text field replaced by ``[REDACTED:<label>]``, plus one ``secret`` error
    issue per secret (file line and label, never the secret) for ``lint``.

    The whole file text is scrubbed once; only pages with a finding (rare) are then scrubbed
    field by field, so a clean vault pays one pass. Every output (index, sidecar, snippets,
    ``show``, ``lint``, ``--json``) reads from the stores, so none can carry a secret.
    """
    _, findings = scrubber.scrub(text)
    in_text = bool(findings)
    if not findings and page.frontmatter:
        # YAML escapes ("\n", "\u0041") and folding can make a value that the raw text does
        # not spell: scrub the parsed values too (one short text per page).
        values = "\n".join(_leaf_texts(page.frontmatter))
        _, found_in_values = scrubber.scrub(values)
        if found_in_values:
            text, findings = values, found_in_values
    if not findings:
        return page
    # Every field is scrubbed again, then any value found in the text (or a cut-off or
    # split-off piece of one: a clamped title, a split tag) is hidden in it (issue 17).
    found = FoundValues(text, findings)

    def clean(value: str) -> str:
        return found.hide(scrubber.scrub(value)[0])

    def clean_opt(value: str | None) -> str | None:
        return None if value is None else clean(value)

    secrets = tuple(
        Issue(
            Severity.ERROR,
            "secret",
            f"a secret ({f.label}) is in this page; it is redacted from every output"
            " (vault-sync redact --write removes it from the file)",
            line_of(text, f.start) if in_text else 1,
        )
        for f in findings
    )
    return replace(
        page,
        id=clean(page.id),
        title=clean(page.title),
        project=clean_opt(page.project),
        tags=tuple(clean(t) for t in page.tags),
        # An alias holding a secret would be a link name made of a redaction token, which
        # other pages' redacted link targets would match: such aliases are dropped.
        aliases=tuple(a for a in page.aliases if not scrubber.scrub(a)[1] and clean(a) == a),
        valid_from=clean_opt(page.valid_from),
        valid_to=clean_opt(page.valid_to),
        headings=tuple(replace(h, text=clean(h.text)) for h in page.headings),
        links=tuple(
            replace(
                link,
                target=clean(link.target),
                anchor=clean(link.anchor),
                display=clean_opt(link.display),
            )
            for link in page.links
        ),
        evidence=tuple(
            replace(e, source=clean(e.source), at=clean_opt(e.at), note=clean_opt(e.note))
            for e in page.evidence
        ),
        frontmatter={
            clean(str(k)): _hidden(found, _clean_value(scrubber, v, str(k)))
            for k, v in page.frontmatter.items()
        },
        metadata=tuple(clean(m) for m in page.metadata),
        body=found.hide(scrubber.scrub(page.body)[0], pieces=False),
        issues=(
            *(replace(i, message=clean(i.message)) for i in page.issues),
            *secrets,
        ),
    )


def _without_secret_names(
    result: ScanResult, scrubber: Scrubber, stored: Container[str] = ()
) -> tuple[ScanResult, dict[str, str]]:
    """Leave out pages and attachments whose file name holds a secret (Invariant 6: a path is
    shown in every result and stored as a key, so it cannot be redacted in place).

    Args:
        result: the scan.
        scrubber: the vault's sanitizer.
        stored: paths of pages and attachments already in the stores, which passed this
            check when they were stored (a name holding a secret never is): only names new
            to the stores are scrubbed (~15 ms less per sync at 10k pages).

    Returns:
        The scan without them, and ``{redacted path: message}`` errors naming them safely.
    """
    names = [*result.pages, *sorted(result.attachments)]
    bad = scrubber.scrub_names([n for n in names if n not in stored])
    if not bad:
        return result, {}
    errors = {
        shown: "its file name holds a secret: not indexed (rename the file)"
        for shown in bad.values()
    }
    pages = {p: e for p, e in result.pages.items() if p not in bad}
    attachments = frozenset(a for a in result.attachments if a not in bad)
    return replace(result, pages=pages, attachments=attachments), errors


def load_page(config: Config, entry: FileEntry) -> tuple[Page, FileState]:
    """Read, hash, parse and sanitize one page; bad bytes or YAML become issues, never
    exceptions; secrets are redacted from every field (:func:`clean_page`).

    Raises:
        OSError: the file cannot be read (vanished, permission denied).
    """
    from vault_sync.parser import parse_page  # ~85 ms of imports (pydantic, yaml): only
    # when a page is read, so a sync with nothing to do never pays them

    text, digest, decode_error = read_page(config.vault, entry)
    page = parse_page(text, entry.path, title_from=config.title_from)
    page = clean_page(page, text, scrubber_for(config))
    if decode_error:
        at_line = re.search(r"\(line (\d+)\)", decode_error)
        issue = Issue(
            Severity.ERROR, "not_utf8", decode_error, int(at_line[1]) if at_line else None
        )
        page = replace(page, issues=(issue, *page.issues))
    if page.project is None:
        project = _project_for(config, entry.path)
        if project is not None:
            page = replace(page, project=project)
    return page, FileState(digest, entry.mtime_ns, entry.size)


#: What preparing one page gives: ``(entry, record, index fields, error)``; ``record`` and
#: ``fields`` are None when the file could not be read, and ``error`` says why.
Prepared = tuple[FileEntry, PageRecord | None, dict[str, Any] | None, str | None]


def prepare_page(config: Config, entry: FileEntry) -> Prepared:
    """Read, parse and sanitize one page (:func:`load_page`) into what both stores take: its
    sidecar rows and its index fields (no generation yet). Never raises for a file that
    cannot be read: the error is returned instead."""
    try:
        page, state = load_page(config, entry)
    except OSError as exc:
        return entry, None, None, f"cannot read: {exc.strerror or exc}"
    record = PageRecord.of(page, entry.disk_path, state)
    return entry, record, document_fields(page, state.hash), None


def _prepare_chunk(config: Config, entries: Sequence[FileEntry]) -> list[Prepared]:
    """:func:`prepare_page` over several pages: the unit of work of a worker process."""
    return [prepare_page(config, entry) for entry in entries]


#: How often a worker process checks that its parent is still alive, seconds.
WORKER_PARENT_POLL_S = 0.5


def _worker_start(parent: int) -> None:
    """Initializer of each worker process: ignore Ctrl-C (the terminal sends SIGINT to the
    whole process group; the parent alone decides how to stop, and shuts its workers down),
    and exit as soon as the parent process is gone (a writer killed mid-sync, SIGKILL
    included, must not leave its workers waiting forever for work that will never come)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch_parent() -> None:
        while os.getppid() == parent:
            time.sleep(WORKER_PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch_parent, name="vault-sync-parent-watch", daemon=True).start()


#: Prepare pages in worker processes when a sync writes at least this many: below it, the
#: workers' start (~0.2 s of CPU each: a Python importing the parser) outweighs the gain.
PARALLEL_MIN_PAGES = 2000
#: Pages per task sent to a worker (small enough to spread a batch over the workers).
PARALLEL_CHUNK_PAGES = 50


class _Preparer:
    """Prepares the pages of each batch, in this process or, for large syncs, in worker
    processes one batch ahead of the writer (parsing is ~70 % of a cold sync's CPU; the
    writer's SQLite and tantivy work overlaps with it on another core).

    Use as a context manager; :meth:`batch` returns the prepared pages of batch ``number`` in
    order. Workers are forked where that is safe (Linux, and this process has no other
    thread yet: a CLI ``sync`` or ``rebuild``, a script), so they start at once and nothing is
    imported again. Otherwise they are spawned, which imports the process's ``__main__``
    module again in each worker (:mod:`multiprocessing`'s rule), so only where
    :func:`allow_spawned_workers` said that is safe (the ``vault-sync`` command does); in any
    other process pages are prepared in it. A worker that dies (killed, out of memory) is
    not fatal: the pages not yet prepared are prepared in this process.
    """

    def __init__(self, config: Config, work: Sequence[Sequence[str]], result: ScanResult):
        self.config = config
        self.work = [[result.pages[p] for p in batch] for batch in work]
        total = sum(len(b) for b in self.work)
        workers = min(os.cpu_count() or 1, 8)
        self.pool: ProcessPoolExecutor | None = None
        fork = sys.platform == "linux" and threading.active_count() == 1
        if total >= PARALLEL_MIN_PAGES and workers > 1 and (fork or _spawn_allowed):
            context = multiprocessing.get_context("fork" if fork else "spawn")
            self.pool = ProcessPoolExecutor(
                workers, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),)
            )
        self.futures: dict[int, list[Future[list[Prepared]]]] = {}
        # Queue the first batch now, before the caller takes the writer lock: the workers
        # start on these first tasks, and a forked worker must not inherit the locked file.
        self._submit(0)

    def __enter__(self) -> _Preparer:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _submit(self, number: int) -> None:
        if self.pool is None or number >= len(self.work) or number in self.futures:
            return
        entries = self.work[number]
        self.futures[number] = [
            self.pool.submit(_prepare_chunk, self.config, entries[i : i + PARALLEL_CHUNK_PAGES])
            for i in range(0, len(entries), PARALLEL_CHUNK_PAGES)
        ]

    def batch(self, number: int) -> Iterator[Prepared]:
        """The prepared pages of batch ``number``, in batch order (next batch queued first)."""
        done = 0
        if self.pool is not None:
            try:
                self._submit(number)
                self._submit(number + 1)
                for future in self.futures.pop(number):
                    chunk = future.result()
                    yield from chunk
                    done += len(chunk)
                return
            except BrokenProcessPool as exc:
                logger.warning("worker processes stopped (%s): preparing pages here", exc)
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
        yield from (prepare_page(self.config, entry) for entry in self.work[number][done:])


_spawn_allowed = False


def allow_spawned_workers() -> None:
    """Declare that this process's ``__main__`` module can be imported again without running
    anything (the ``vault-sync`` command's can), so a process with threads (the watcher) may
    spawn worker processes for large syncs. Without it, such a process prepares pages itself;
    a process with no other thread forks its workers, which imports nothing again."""
    global _spawn_allowed
    _spawn_allowed = True


def _batches(paths: Sequence[str], entries: dict[str, FileEntry]) -> list[list[str]]:
    batches: list[list[str]] = []
    current: list[str] = []
    size = 0
    for path in paths:
        entry = entries.get(path)
        weight = entry.size if entry else 0
        if current and (len(current) >= BATCH_PAGES or size + weight > BATCH_BYTES):
            batches.append(current)
            current, size = [], 0
        current.append(path)
        size += weight
    if current:
        batches.append(current)
    return batches


def apply_plan(
    config: Config,
    plan: Plan,
    result: ScanResult,
    *,
    lock: WriterLock,
    store: Sidecar,
    index_dir: Path,
    progress: ProgressFn | None = None,
    kept_writer: KeptWriter | None = None,
    building: bool = False,
    planned_at: int | None = None,
) -> SyncReport:
    """Apply a plan in bounded batches, one generation each (DESIGN §4).

    Args:
        config: the vault's configuration.
        plan: from :func:`make_plan`.
        result: the scan the plan came from (file entries, attachments).
        lock: the writer lock, taken around each batch's writes only: its pages are read,
            parsed and scrubbed before (read again under the lock when another writer
            applied a batch meanwhile, so an older read never overwrites a newer one).
        store: an open (writable) sidecar.
        index_dir: the tantivy index folder of the same store set.
        progress: called with the number of pages done after each batch.
        kept_writer: the caller's :class:`~vault_sync.index.KeptWriter`: its writer of
            this index is used and, after the last batch, kept open with merges running
            (the watcher's); ``None`` drops the writer after each commit. A set being built
            (``building``) keeps its uncommitted writer in one of its own instead.
        building: the stores are a set being built, which no one reads until it is activated:
            the sidecar is bulk-loaded (:meth:`~vault_sync.store.Sidecar.begin_bulk_load`),
            and links are resolved and the index committed once, in the last batch, instead
            of in every batch (a crash loses the set, which is discarded anyway).
        planned_at: the generation the plan was read from; when the stores are at another
            one once the lock is taken, nothing is applied (another writer did this work).

    Returns:
        The report.

    Raises:
        LockTimeoutError: another writer held the lock longer than ``lock_timeout_s``.
        StoreError: a store cannot be opened.
    """
    started = time.perf_counter()
    upserts = [*plan.new, *plan.modified, *(new for _, new in plan.moved)]
    deletes = [*plan.deleted, *(old for old, _ in plan.moved)]
    errors = dict(plan.errors)
    work = _batches(upserts, result.pages) or [[]]
    attachments = set(result.attachments) if not result.unreadable else None
    generation = 0
    # A set being built keeps its uncommitted adds in a writer of its own between batches.
    keep = KeptWriter() if building else kept_writer
    if building:
        store.begin_bulk_load()  # its last batch ends it
    try:
        with _Preparer(config, work, result) as preparer:
            for number, batch in enumerate(work):
                first, last = number == 0, number == len(work) - 1
                # Read, parse and scrub the batch before taking the lock, so a slow page
                # never holds it (issue 14, fault 5: 26 s on one hostile page).
                read_at = store.generation
                prepared = list(preparer.batch(number))
                with lock:
                    now = store.generation
                    if first and planned_at is not None and now != planned_at:
                        raise _StalePlan
                    if now != read_at:  # another writer's batch since: these reads may be old
                        prepared = [prepare_page(config, result.pages[p]) for p in batch]
                    part = _Batch(
                        paths=batch,
                        deletes=deletes if first else [],
                        touched=plan.touched if first else (),
                        attachments=attachments if last else None,
                        building=building,
                        complete=last or not building,
                    )
                    generation = _apply_batch(
                        config, store, index_dir, keep, part, prepared, errors
                    )
                if progress is not None:
                    progress(len(batch))
    except BaseException:
        if building and keep is not None:
            keep.discard()  # roll back the adds not yet committed; releases tantivy's lock
        raise
    failed = set(errors) - set(plan.errors)  # pages that could not be read when applied
    return SyncReport(
        added=sum(1 for p in plan.new if p not in failed),
        changed=sum(1 for p in plan.modified if p not in failed),
        moved=sum(1 for _, p in plan.moved if p not in failed),
        deleted=len(plan.deleted),
        unchanged=plan.unchanged + len(plan.touched),
        generation=generation,
        batches=len(work),
        errors=errors,
        took_ms=(time.perf_counter() - started) * 1000,
    )


@dataclass(frozen=True)
class _Batch:
    """One batch of a plan, as :func:`_apply_batch` writes it.

    ``paths`` are the pages to write, ``deletes`` the pages to remove (the first batch's),
    ``touched`` the pages whose (mtime, size) only is refreshed (the first batch's), and
    ``attachments`` the vault's attachment list to store (the last batch's; ``None``: keep
    the stored one). ``building``: the stores are a set being built; ``complete`` is False
    for all but the last batch of such a set: its index adds stay uncommitted and its links
    unresolved until the last batch.
    """

    paths: Sequence[str]
    deletes: Sequence[str]
    touched: Sequence[tuple[str, FileState]]
    attachments: set[str] | None
    building: bool
    complete: bool


def _collect(
    config: Config, batch: _Batch, prepared: Iterable[Prepared], errors: dict[str, str]
) -> tuple[list[PageRecord], list[dict[str, Any]], list[str]]:
    """The batch's rows, index documents and pages to remove (its deletes, and pages that
    could not be read and are proven gone); the reasons of pages that could not be read
    go into ``errors``."""
    records: list[PageRecord] = []
    documents: list[dict[str, Any]] = []
    gone = list(batch.deletes)
    for number, (entry, record, fields, error) in enumerate(prepared):
        if number == len(batch.paths) // 2:
            _fault_point("during_batch")
        if record is None or fields is None:
            errors[entry.path] = error or "cannot read"
            if proven_absent(config.vault / entry.disk_path):
                gone.append(entry.path)
            continue
        records.append(record)
        documents.append(fields)
    return records, documents, gone


def _apply_batch(
    config: Config,
    store: Sidecar,
    index_dir: Path,
    keep: KeptWriter | None,
    batch: _Batch,
    prepared: Iterable[Prepared],
    errors: dict[str, str],
) -> int:
    """Apply one batch under the lock: journal, index commit, sidecar commit. Returns gen.

    ``prepared``: the pages of ``batch.paths``, in order; ``errors`` gets unreadable ones."""
    paths, attachments = batch.paths, batch.attachments
    building, complete = batch.building, batch.complete
    # Only refreshing (mtime, size) of touched pages changes no answer: no new generation.
    changes = bool(paths or batch.deletes) or (
        attachments is not None and attachments != store.attachments()
    )
    generation = store.generation + (1 if changes else 0)
    if paths or batch.deletes:
        store.begin_pending(generation, [*paths, *batch.deletes])
    _fault_point("after_journal")
    records, documents, gone = _collect(config, batch, prepared, errors)
    # The last batch of a set being built commits the index in a thread while the sidecar
    # resolves links and builds its indexes (order does not matter: no one reads the set).
    finish = building and complete
    join_commit: Callable[[], None] | None = None
    if records or gone or complete:
        index = PageIndex.open(index_dir)
        with index.batch(keep=keep, commit=complete and not finish) as writer:
            for path in gone:
                writer.delete(path)
            for record, fields in zip(records, documents, strict=True):
                if not building:  # a set being built holds no earlier copy of any page
                    writer.delete(record.path)
                writer.add_fields(fields, generation)
        if finish:
            assert keep is not None  # a set being built keeps its writer (apply_plan)
            join_commit = index.commit_in_background(keep)
        else:
            _fault_point("after_index_commit")
    try:
        store.apply_batch(
            generation,
            records,
            gone,
            attachments=attachments,
            touched=batch.touched,
            resolve=complete,
        )
        if finish:
            store.end_bulk_load()
    finally:
        if join_commit is not None:
            join_commit()
            _fault_point("after_index_commit")
    _fault_point("after_sidecar_commit")
    logger.info("generation %d: %d pages written, %d deleted", generation, len(records), len(gone))
    return generation


#: How often a writer plans again when another writer applied a batch between its plan and
#: its first batch (the last attempt applies without checking: apply is idempotent).
PLAN_ATTEMPTS = 3


class _StalePlan(Exception):  # control flow inside this module, never raised out of it
    """The stores moved on (a newer generation) between reading them for a plan and taking
    the lock to apply it: the plan may repeat another writer's work and report it as ours."""


def _scan_and_plan(
    config: Config,
    store: Sidecar,
    scanner: Callable[[Config], ScanResult],
    scope: Iterable[str] | None,
) -> tuple[Plan, ScanResult, bool]:
    """Scan (the vault, or ``scope``) and plan against ``store``. Returns ``(plan, scan,
    current)``; ``current`` is False when the stored attachment list must be rewritten."""
    pending = store.pending()
    stored_attachments = store.attachments()
    if scope is None or pending:
        result = scanner(config)
        stored = store.file_states()
    else:
        result, in_scope = scan_paths(config, scope)
        roots = {unicodedata.normalize("NFC", p.strip("/")) for p in scope}
        stored = store.file_states(roots)
        kept = {a for a in stored_attachments if not in_scope(a)}
        result = replace(result, attachments=frozenset(kept | result.attachments))
    known = stored.keys() | stored_attachments
    result, name_errors = _without_secret_names(result, scrubber_for(config), known)
    plan = make_plan(config, result, stored, pending)
    plan.errors.update(name_errors)
    gone = tuple(sorted(p for p in pending if p not in result.pages and p not in stored))
    plan = replace(plan, deleted=plan.deleted + gone)
    current = bool(result.unreadable) or stored_attachments == set(result.attachments)
    return plan, result, current


def sync_vault(
    config: Config,
    store_dir: Path,
    *,
    lock: WriterLock,
    progress_start: Callable[[int], ProgressFn | None] | None = None,
    scanner: Callable[[Config], ScanResult] = scan,
    scope: Iterable[str] | None = None,
    kept_writer: KeptWriter | None = None,
    building: bool = False,
) -> tuple[Plan, SyncReport]:
    """Bring both stores in step with the vault: scan, plan (redoing any unfinished batch), apply.

    Args:
        config: the vault's configuration.
        store_dir: the store set to bring in step (holding ``index/`` and ``sidecar.sqlite``).
        lock: the writer lock.
        progress_start: called with the number of pages to write; returns a progress callback.
        scanner: the scan function (a seam for tests that inject unreadable folders).
        scope: vault-relative paths (a watcher batch): scan and plan only these and what is
            under them (:func:`~vault_sync.vault.scan_paths`); ``None`` scans the whole vault.
            A pending (unfinished) batch always widens the scope to the whole vault.
        kept_writer, building: see :func:`apply_plan`.

    Returns:
        ``(plan, report)``.
    """
    with lock:
        store = Sidecar.open(layout.sidecar_file(store_dir))
    try:
        for attempt in range(PLAN_ATTEMPTS):
            seen = store.generation
            plan, result, current = _scan_and_plan(config, store, scanner, scope)
            if plan.is_empty and current:
                gen = store.generation
                report = SyncReport(0, 0, 0, 0, plan.unchanged, gen, 0, plan.errors, 0)
                return plan, report
            total = len(plan.new) + len(plan.modified) + len(plan.moved)
            progress = progress_start(total) if progress_start else None
            try:
                report = apply_plan(
                    config,
                    plan,
                    result,
                    lock=lock,
                    store=store,
                    index_dir=layout.index_dir(store_dir),
                    progress=progress,
                    kept_writer=kept_writer,
                    building=building,
                    planned_at=seen if attempt < PLAN_ATTEMPTS - 1 else None,
                )
            except _StalePlan:
                continue  # another writer applied a batch since: plan again from its result
            return plan, report
        raise AssertionError("unreachable: the last attempt never checks for a stale plan")
    finally:
        store.close()
