"""Page preparation: read, parse and sanitize pages into what both stores take, in this
process or in worker processes for large syncs (DESIGN §4). Preparation runs before the
writer lock is taken (issue 14 fault 5), so a slow page never holds the lock.
"""

from __future__ import annotations

import logging
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vault_sync import pagefile
from vault_sync.clean import clean_page, scrubber_for
from vault_sync.config import Config
from vault_sync.index import document_fields
from vault_sync.page import Issue, Page, Severity
from vault_sync.pagefile import read_page
from vault_sync.scan_result import FileEntry, ScanResult
from vault_sync.store import FileState, PageRecord

if TYPE_CHECKING:  # a pool only for large syncs: a one-page sync never imports these
    from concurrent.futures import Future, ProcessPoolExecutor

logger = logging.getLogger(__name__)


def _project_for(config: Config, path: str) -> str | None:
    """The first ``[projects]`` glob (gitignore syntax) matching ``path``, DESIGN §3."""
    if not config.projects:
        return None
    import pathspec  # only needed when projects are configured

    for glob, name in config.projects.items():
        if pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path):
            return name
    return None


def load_page(config: Config, entry: FileEntry) -> tuple[Page, FileState]:
    """Read, hash, parse and sanitize one page; bad bytes or YAML become issues, never
    exceptions; secrets are redacted from every field (:func:`clean_page`).

    Raises:
        OSError: the file cannot be read (vanished, permission denied).
    """
    from vault_sync.parser import parse_page  # ~85 ms of imports (pydantic, yaml): only
    # when a page is read, so a sync with nothing to do never pays them

    text, digest, decode_error, cut_size = read_page(config.vault, entry)
    page = parse_page(text, entry.path, title_from=config.title_from)
    page = clean_page(page, text, scrubber_for(config))
    if decode_error:
        at_line = re.search(r"\(line (\d+)\)", decode_error)
        issue = Issue(
            Severity.ERROR, "not_utf8", decode_error, int(at_line[1]) if at_line else None
        )
        page = replace(page, issues=(issue, *page.issues))
    if cut_size is not None:
        page = replace(page, issues=(_too_large(text, cut_size), *page.issues))
    if page.project is None:
        project = _project_for(config, entry.path)
        if project is not None:
            page = replace(page, project=project)
    return page, FileState(digest, entry.mtime_ns, entry.size)


def _too_large(text: str, size: int) -> Issue:
    """The ``page_too_large`` error of a page read only up to
    :data:`~vault_sync.pagefile.MAX_PAGE_BYTES`, on the first line left out."""
    line = text.count("\n") + 1
    return Issue(
        Severity.ERROR,
        "page_too_large",
        f"page of {size / 2**20:.1f} MiB, over the {pagefile.MAX_PAGE_BYTES / 2**20:g} MiB"
        f" a page is read to: indexed up to line {line - 1}, not from here on",
        line,
    )


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


class Preparer:
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
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("fork" if fork else "spawn")
            self.pool = ProcessPoolExecutor(
                workers, mp_context=context, initializer=_worker_start, initargs=(os.getpid(),)
            )
        self.futures: dict[int, list[Future[list[Prepared]]]] = {}
        # Queue the first batch now, before the caller takes the writer lock: the workers
        # start on these first tasks, and a forked worker must not inherit the locked file.
        self._submit(0)

    def __enter__(self) -> Preparer:
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
            from concurrent.futures.process import BrokenProcessPool

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
