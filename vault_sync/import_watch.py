"""``import-session --watch DIR``: transcripts imported as their agents write them (issue 13).

An agent CLI appends to its transcript while a session runs (Claude Code and Codex CLI a JSON
line per event, Gemini CLI a JSON line per record since its JSONL sessions), so a transcript
"grows" many times a minute. :class:`TranscriptWatcher` feeds watchdog events under the
watched folders into the vault watcher's :class:`~vault_sync.watch_events.PathBatcher` (a quiet
window, and a longest wait so a session that never pauses is still imported), then imports
each due file through the callback it was given (the engine's ``import-session``), which
updates the session's one page. A file caught mid-line imports without its cut-short last
line; a file not yet readable as a transcript (an empty file, a Gemini JSON document cut
short) is reported in one line and imported at its next write. Files written before the
watcher starts are left alone (import them once by hand: ``import-session FILE...``).
Layer 5, beside the vault watcher; stops cleanly on :meth:`TranscriptWatcher.stop` (the
CLI's Ctrl-C / SIGTERM), importing what it had already seen.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirModifiedEvent,
    FileClosedNoWriteEvent,
    FileDeletedEvent,
    FileOpenedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from vault_sync.errors import VaultSyncError
from vault_sync.watch_events import TICK_MS, PathBatcher

#: Quiet window (ms) before a written transcript is imported: an agent writes a burst of lines
#: per turn (its message, each tool call and output), so one import follows one turn.
DEBOUNCE_MS = 1000
#: Longest wait (ms) from a transcript's first unimported write: a session that never pauses
#: for a whole quiet window is still imported this often.
MAX_DELAY_MS = 10_000
#: File names a transcript has (the vendors' ``.jsonl`` logs, Gemini CLI's older ``.json``;
#: plain-text transcripts are watched with ``--format plain``, which takes every file).
SUFFIXES = (".jsonl", ".json")

#: ``importer(file) -> answer``: the engine's ``import-session`` of one file (its ``--json``
#: shape); raises :class:`~vault_sync.errors.VaultSyncError` for a file it cannot import.
Importer = Callable[[str], dict[str, Any]]


class _Handler(FileSystemEventHandler):
    """Written transcript files (absolute paths) -> the batcher; reads, deletes and folder
    events are dropped."""

    def __init__(self, batcher: PathBatcher, wanted: Callable[[str], bool]) -> None:
        super().__init__()
        self.batcher = batcher
        self.wanted = wanted

    def on_any_event(self, event: FileSystemEvent) -> None:
        """Record the file an event wrote (a move's destination)."""
        if event.is_directory or isinstance(
            event, FileOpenedEvent | FileClosedNoWriteEvent | DirModifiedEvent | FileDeletedEvent
        ):
            return
        path = os.fsdecode(getattr(event, "dest_path", "") or event.src_path)
        if self.wanted(path):
            self.batcher.add([path])


class TranscriptWatcher:
    """Import the transcripts written below ``folders`` until :meth:`stop`.

    Args:
        folders: the folders watched, recursively (each must exist).
        importer: imports one file (:data:`Importer`).
        report: called with one answer per import: the importer's answer plus ``file``, or
            ``{"file": ..., "error": "<one line>"}`` when the file could not be imported.
        every_file: watch every file (plain-text transcripts), not only :data:`SUFFIXES`.
        debounce_ms / max_delay_ms: the batcher's quiet window and longest wait.

    Raises:
        TranscriptError: a folder that does not exist (from :meth:`run`).
    """

    def __init__(
        self,
        folders: Iterable[Path],
        importer: Importer,
        report: Callable[[dict[str, Any]], None],
        *,
        every_file: bool = False,
        debounce_ms: int = DEBOUNCE_MS,
        max_delay_ms: int = MAX_DELAY_MS,
    ) -> None:
        self.folders = [Path(f).expanduser().resolve() for f in folders]
        self.importer = importer
        self.report = report
        self.every_file = every_file
        self.batcher = PathBatcher(debounce_ms, max_delay_ms)
        self.stopping = threading.Event()

    def wanted(self, path: str) -> bool:
        """Whether a written file is a transcript to import (by its name)."""
        name = os.path.basename(path)
        if name.startswith("."):  # editors' and tools' temporary files
            return False
        return self.every_file or name.endswith(SUFFIXES)

    def import_batch(self, paths: Iterable[str]) -> None:
        """Import each file of a batch that still exists, in name order; report each."""
        for path in sorted(paths):
            if not os.path.isfile(path):
                continue  # written, then moved or deleted before its quiet window ended
            try:
                answer = {"file": path, **self.importer(path)}
            except VaultSyncError as exc:
                answer = {"file": path, "error": " ".join(str(exc).split())}
            self.report(answer)

    def run(self, on_ready: Callable[[], object] | None = None) -> None:
        """Watch until :meth:`stop`, then import what was already seen and return.
        ``on_ready`` is called once the folders are watched (where the CLI says so)."""
        from vault_sync.errors import TranscriptError

        for folder in self.folders:
            if not folder.is_dir():
                raise TranscriptError(
                    f"{folder}: not a folder to watch (an agent makes its folder when it first"
                    " runs: run it once, or mkdir -p the folder)"
                )
        observer = Observer()
        handler = _Handler(self.batcher, self.wanted)
        for folder in self.folders:
            observer.schedule(handler, str(folder), recursive=True)
        observer.start()
        try:
            if on_ready is not None:
                on_ready()
            while not self.stopping.wait(TICK_MS / 1000):
                if self.batcher.due():
                    self.import_batch(self.batcher.take().paths)
            self.import_batch(self.batcher.take().paths)
        finally:
            observer.stop()
            observer.join(timeout=5)

    def stop(self) -> None:
        """Ask :meth:`run` to finish (safe from a signal handler or another thread)."""
        self.stopping.set()


__all__ = ["DEBOUNCE_MS", "MAX_DELAY_MS", "SUFFIXES", "TranscriptWatcher"]
