"""Helpers for the watcher tests: a real ``vault-sync watch`` subprocess, polling, store
snapshots compared with a fresh rebuild, and random file operations (issue 3)."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from vault_sync import layout
from vault_sync.config import load_config
from vault_sync.engine import run_rebuild
from vault_sync.index import PageIndex
from vault_sync.layout import WATCH_STATE_NAME
from vault_sync.readers import open_reader
from vault_sync.retrieve import search
from vault_sync.vault import scan

T = TypeVar("T")

#: Generous: a loaded CI machine may be slow, but a correct watcher is never this slow.
TIMEOUT_S = 20.0


def wait_until(
    probe: Callable[[], T], timeout: float = TIMEOUT_S, interval: float = 0.05, what: str = ""
) -> T:
    """Poll ``probe`` until it returns something truthy; fail with its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}: last {value!r}")
        time.sleep(interval)


# --------------------------------------------------------------------------- the watcher


class WatchProcess:
    """``python -m vault_sync --vault V watch --json-log`` with its stderr parsed line by line.

    Each JSON line is one applied batch; other lines (warnings, tracebacks) are kept in
    :attr:`other` so a failing test shows them.
    """

    def __init__(
        self, vault: Path, env: dict[str, str] | None = None, user: tuple[str, ...] = ()
    ) -> None:
        self.vault = vault
        command = [sys.executable, "-m", "vault_sync", "--vault", str(vault), "watch"]
        self.proc = subprocess.Popen(
            [*user, *command, "--json-log"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: list[dict[str, Any]] = []
        self.other: list[str] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.rstrip("\n")
            with self._cond:
                try:
                    data = json.loads(line)
                except ValueError:
                    data = None
                if isinstance(data, dict) and "level" not in data:  # a batch line
                    self.lines.append(data)
                else:  # a log record (also JSON with --json-log) or plain text
                    self.other.append(line)
                self._cond.notify_all()

    def log(self) -> str:
        """Everything the watcher wrote so far (for assertion messages)."""
        with self._cond:
            return "\n".join([*map(json.dumps, self.lines), *self.other])

    def state(self) -> dict[str, Any] | None:
        """This process's ``watch.json``, or None when it has not written one yet."""
        path = load_config(self.vault).store_path / WATCH_STATE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if data.get("pid") == self.proc.pid else None

    def wait_ready(self, timeout: float = TIMEOUT_S) -> None:
        """Wait until the start-up reconcile is done (the watcher wrote its state file) and
        every batch line it logged so far has been read, so a ``count()`` taken next never
        counts the start-up line as a later one (under load the reader thread lagged, and a
        test waiting for a later line got the start-up one)."""

        def ready() -> bool:
            if self.proc.poll() is not None:
                raise AssertionError(f"watcher exited {self.proc.returncode}:\n{self.log()}")
            state = self.state()
            return bool(state and state.get("running")) and self.count() >= state["batches"]

        wait_until(ready, timeout, what="the watcher's start-up reconcile")

    def wait_line(
        self, pred: Callable[[dict[str, Any]], bool], start: int = 0, timeout: float = TIMEOUT_S
    ) -> dict[str, Any]:
        """Wait for a JSON batch line (from index ``start`` on) matching ``pred``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[start:]:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(
                        f"no matching batch line; the watcher wrote:\n{self.log()}"
                    )
                self._cond.wait(min(left, 0.2))

    def count(self) -> int:
        """Number of JSON batch lines so far."""
        with self._cond:
            return len(self.lines)

    def stop(self, timeout: float = 15) -> int:
        """SIGTERM, wait for a clean exit (SIGKILL after ``timeout``); returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5)
        return self.proc.returncode

    def kill(self) -> None:
        """SIGKILL if still running (teardown)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(5)


def sentinel(vault: Path, watcher: WatchProcess, tag: str) -> None:
    """Write a page after all earlier changes and wait until it is searchable.

    Batches are applied in order and each looks at what is on disk when applied, so once the
    sentinel (written last) is in both stores, every earlier change has been applied too. A
    batch commits the index first and the sidecar last, so the sidecar row is what says the
    batch is complete (the index alone is ahead of it for a moment).
    """
    word = f"sentinel{tag}"
    path = f"zz-{word}.md"
    before = watcher.count()
    (vault / path).write_text(f"{word}\n", encoding="utf-8")
    wait_until(
        lambda: paths_for(vault, word) == [path] and in_sidecar(vault, path),
        what=f"{word} in both stores\n{watcher.log()}",
    )
    # The stores show the batch before its log line is read (the watcher writes the line
    # after applying; the test reads stderr in a thread): wait for that line too, so tests
    # that count batch lines after a sentinel see every batch up to it.
    watcher.wait_line(lambda line: line["added"] >= 1, before)


def in_sidecar(vault: Path, path: str) -> bool:
    """Whether the active sidecar holds ``path`` and no unfinished batch."""
    folder = layout.active_set(load_config(vault).store_path)
    if folder is None:
        return False
    db = sqlite3.connect(f"file:{layout.sidecar_file(folder)}?mode=ro", uri=True)
    try:
        found = db.execute("SELECT 1 FROM pages WHERE path = ?", (path,)).fetchone()
        pending = db.execute("SELECT count(*) FROM pending").fetchone()[0]
    finally:
        db.close()
    return found is not None and pending == 0


# --------------------------------------------------------------------------- queries


def paths_for(vault: Path, text: str, limit: int = 1000) -> list[str]:
    """Ranked paths of a query, read the way a long-lived reader does (reload, search)."""
    reader = open_reader(load_config(vault))
    try:
        reader.index.reload()
        return [hit.path for hit in reader.search(text, limit=limit)]
    finally:
        reader.close()


def doc_count(vault: Path) -> int:
    """Documents in the active index (0 when there is none); never repairs anything."""
    folder = layout.active_set(load_config(vault).store_path)
    if folder is None or not (layout.index_dir(folder) / "meta.json").is_file():
        return 0
    return PageIndex.open(layout.index_dir(folder)).doc_count()


# --------------------------------------------------------------------------- snapshots

#: Sidecar tables compared with a rebuild (``generation`` differs by design, so it is left out).
TABLES = ("pages", "aliases", "tags", "links", "evidence", "issues", "attachments", "pending")


def _rows(db: sqlite3.Connection, table: str) -> list[tuple[Any, ...]]:
    columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})") if r[1] != "generation"]
    rows = db.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
    return sorted((tuple(zip(columns, row, strict=True)) for row in rows), key=repr)


def snapshot(vault: Path, queries: Iterable[str] = ()) -> dict[str, Any]:
    """Everything the stores say about the vault: sidecar rows (read with SQL), the index's
    document paths and count, and the ranked hits (path, score) of each query."""
    config = load_config(vault)
    folder = layout.active_set(config.store_path)
    assert folder is not None, "no active store set"
    db = sqlite3.connect(f"file:{layout.sidecar_file(folder)}?mode=ro", uri=True)
    try:
        out: dict[str, Any] = {t: _rows(db, t) for t in TABLES}
    finally:
        db.close()
    index = PageIndex.open(layout.index_dir(folder))
    out["index_paths"] = sorted(index.paths_with_generation())
    out["index_docs"] = index.doc_count()
    out["queries"] = {q: [(h.path, h.score) for h in search(index, q, limit=1000)] for q in queries}
    return out


def _rank_violations(
    got: list[tuple[str, float]], want: list[tuple[str, float]], margin: float
) -> list[str]:
    """Pairs the rebuild ranks apart by more than ``margin`` (score ratio) but ``got`` swaps."""
    position = {path: i for i, (path, _) in enumerate(got)}
    bad = []
    for i, (a, sa) in enumerate(want):
        for b, sb in want[i + 1 :]:
            if sb > 0 and sa / sb >= margin and position[a] > position[b]:
                bad.append(f"{a} ({sa}) should rank above {b} ({sb})")
    return bad


def assert_same_as_rebuild(
    vault: Path, queries: Iterable[str] = (), rank_margin: float | None = 1.5
) -> dict[str, Any]:
    """The stores hold exactly what a fresh ``rebuild`` of the vault gives, and the vault.

    Compares every sidecar table (but ``generation``), the index's documents (each page once,
    no stale page) and, per query, the same hit set and the same order wherever the rebuilt
    scores are well apart (TECH-NOTES §8: raw scores differ after updates). Needs no other
    writer running. ``rank_margin``: the score ratio above which the rebuild's order must be
    kept (``None``: compare hit sets only). Returns the rebuilt snapshot.
    """
    queries = list(queries)
    config = load_config(vault)
    on_disk = sorted(scan(config).pages)
    before = snapshot(vault, queries)
    run_rebuild(config)
    after = snapshot(vault, queries)
    assert after["index_paths"] == on_disk
    assert before["index_docs"] == len(before["index_paths"]), "a page is indexed twice"
    assert before["index_paths"] == on_disk, _diff(before["index_paths"], on_disk)
    for table in TABLES:
        assert before[table] == after[table], f"{table}: " + _diff(before[table], after[table])
    for q in queries:
        got, want = before["queries"][q], after["queries"][q]
        assert sorted(p for p, _ in got) == sorted(p for p, _ in want), q
        if rank_margin is not None:
            assert not _rank_violations(got, want, rank_margin), (q, got, want)
    return after


def _diff(got: list[Any], want: list[Any]) -> str:
    extra = [x for x in got if x not in want]
    missing = [x for x in want if x not in got]
    return f"stores have extra {extra[:10]}, miss {missing[:10]}"


# --------------------------------------------------------------------------- random operations

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "river",
    "stone",
    "cloud",
    "forest",
    "ember",
    "lantern",
    "maple",
    "orbit",
    "pepper",
    "quartz",
]
NAMES = [f"n{i}" for i in range(24)] + ["Note", "note", "Summer 2020", "x y"]
FOLDERS = ["f0", "f1", "f2", "f0/deep", "f1/a/b"]
#: Non-Markdown files pages link to (issue 14: an attachment that appears or goes must
#: re-resolve the links naming it, as a rebuild would).
ATTACHMENTS = ["pic0.png", "pic1.png", "f0/doc.pdf", "f1/a/b/sheet.csv", "f2/pic0.png"]


class RandomOps:
    """Random file operations on a vault, each returning the paths a watchdog handler would
    report for it (vault-relative, ``src`` and ``dest`` of moves, children of folder moves and
    deletes), so a test can feed ``run_sync(scope=...)`` the way the watcher does."""

    def __init__(self, vault: Path, rng: random.Random) -> None:
        self.vault = vault
        self.rng = rng
        self.counter = 0

    # -- state -------------------------------------------------------------------------

    def pages(self) -> list[str]:
        out = []
        for root, dirs, files in os.walk(self.vault):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel = os.path.relpath(root, self.vault)
            for name in sorted(files):
                if name.endswith(".md") and not name.startswith("."):
                    out.append(name if rel == "." else f"{rel}/{name}")
        return out

    def folders(self) -> list[str]:
        out = []
        for root, dirs, _ in os.walk(self.vault):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel = os.path.relpath(root, self.vault)
            if rel != ".":
                out.append(rel)
        return out

    def _under(self, folder: str) -> list[str]:
        """Handler-style paths of everything under a folder (files and sub-folders)."""
        out = []
        for root, dirs, files in os.walk(self.vault / folder):
            rel = os.path.relpath(root, self.vault)
            out += [f"{rel}/{d}" for d in dirs] + [f"{rel}/{f}" for f in files]
        return out

    def text(self) -> str:
        rng = self.rng
        self.counter += 1
        pages = self.pages()
        lines = []
        if rng.random() < 0.3:
            lines += ["---", f"title: T{rng.randrange(5)}", "evidence:"]
            lines += [f"  - session:s{rng.randrange(4)}", f"  - feedback:u{rng.randrange(3)}"]
            if rng.random() < 0.2:
                lines.append("tags: [x, y]")
            lines.append("---")
        if rng.random() < 0.4:
            lines.append(f"# Heading {rng.choice(WORDS)}")
        if rng.random() < 0.15:  # shared content: moves are paired by hash, so duplicates count
            return "\n".join([*lines, "same body everywhere", ""])
        words = [rng.choice(WORDS) for _ in range(rng.randrange(3, 12))]
        lines.append(" ".join(words) + f" uniq{self.counter}")
        for _ in range(rng.randrange(0, 4)):
            known = pages and rng.random() < 0.7
            target = rng.choice(pages)[:-3] if known else rng.choice(NAMES)
            form = rng.randrange(4)
            if form == 0:
                target = target.rsplit("/", 1)[-1]
            elif form == 1:
                target = f"{target}#Intro"
            lines.append(f"see [[{target}]] #tag{rng.randrange(4)}")
        if rng.random() < 0.3:
            lines.append("## Intro\n\nmore text")
        if rng.random() < 0.3:
            name = rng.choice(ATTACHMENTS)
            form = rng.randrange(3)
            if form == 0:
                lines.append(f"![[{name.rsplit('/', 1)[-1]}]]")  # by file name
            elif form == 1:
                lines.append(f"see [[{name}]]")  # by vault path
            else:
                lines.append(f"[file](/{name})")  # a Markdown link from the root
        return "\n".join(lines) + "\n"

    def _new_path(self) -> str:
        folder = self.rng.choice(["", "", *FOLDERS])
        name = self.rng.choice(NAMES) + ".md"
        return f"{folder}/{name}" if folder else name

    def _parents(self, rel: str) -> list[str]:
        """Make the missing folders above ``rel``; return them (as DirCreated events would)."""
        made = []
        parent = (self.vault / rel).parent
        while not parent.exists():
            made.append(os.path.relpath(parent, self.vault))
            parent = parent.parent
        (self.vault / rel).parent.mkdir(parents=True, exist_ok=True)
        return made[::-1]

    def _write(self, rel: str, text: str) -> list[str]:
        made = self._parents(rel)
        (self.vault / rel).write_text(text, encoding="utf-8")
        return [*made, rel]

    # -- operations ----------------------------------------------------------------------

    def create(self) -> list[str]:
        return self._write(self._new_path(), self.text())

    def edit(self) -> list[str]:
        pages = self.pages()
        if not pages:
            return self.create()
        rel = self.rng.choice(pages)
        if self.rng.random() < 0.2:  # same bytes again: a save that changes nothing
            text = (self.vault / rel).read_text(encoding="utf-8")
        else:
            text = self.text()
        return self._write(rel, text)

    def atomic_save(self) -> list[str]:
        pages = self.pages()
        rel = self.rng.choice(pages) if pages and self.rng.random() < 0.8 else self._new_path()
        dest = self.vault / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.tmp{self.rng.randrange(1000)}")
        tmp.write_text(self.text(), encoding="utf-8")
        os.replace(tmp, dest)
        return [os.path.relpath(tmp, self.vault), rel]

    def rename(self) -> list[str]:
        pages = self.pages()
        if not pages:
            return self.create()
        src = self.rng.choice(pages)
        dst = self._new_path()
        if self.rng.random() < 0.2:  # case-only rename
            folder, _, name = src.rpartition("/")
            swapped = name[0].swapcase() + name[1:]
            dst = f"{folder}/{swapped}" if folder else swapped
        if dst == src:
            return []
        made = self._parents(dst)
        os.replace(self.vault / src, self.vault / dst)
        return [*made, src, dst]

    def move_and_recreate(self) -> list[str]:
        out = self.rename()
        if len(out) >= 2:
            out += self._write(out[-2], self.text())
        return out

    def delete(self) -> list[str]:
        pages = self.pages()
        if not pages:
            return []
        rel = self.rng.choice(pages)
        (self.vault / rel).unlink()
        return [rel]

    def attach(self) -> list[str]:
        """Add a linked attachment, or delete or rename one that exists."""
        rel = self.rng.choice(ATTACHMENTS)
        path = self.vault / rel
        if not path.exists():
            made = self._parents(rel)
            path.write_bytes(bytes([self.rng.randrange(256) for _ in range(16)]))
            return [*made, rel]
        if self.rng.random() < 0.5:
            path.unlink()
            return [rel]
        dst = self.rng.choice([a for a in ATTACHMENTS if a != rel])
        if (self.vault / dst).exists():
            return []
        made = self._parents(dst)
        os.replace(path, self.vault / dst)
        return [*made, rel, dst]

    def move_folder(self) -> list[str]:
        folders = self.folders()
        if not folders:
            return self.create()
        src = self.rng.choice(folders)
        dst = self.rng.choice(["g0", "g1", "f0", "f2/sub", "moved"])
        if (self.vault / dst).exists() or dst == src or dst.startswith(src + "/"):
            self.counter += 1
            dst = f"moved{self.counter}"
        before = self._under(src)
        made = self._parents(dst)
        os.rename(self.vault / src, self.vault / dst)
        after = [dst + p[len(src) :] for p in before]
        return [*made, src, dst, *before, *after]

    def delete_folder(self) -> list[str]:
        folders = self.folders()
        if not folders:
            return []
        src = self.rng.choice(folders)
        out = [*self._under(src), src]
        shutil.rmtree(self.vault / src)
        return out

    def step(self) -> list[str]:
        """One random operation; returns the paths its events would name."""
        ops: list[tuple[float, Callable[[], list[str]]]] = [
            (3, self.create),
            (4, self.edit),
            (2, self.atomic_save),
            (2, self.rename),
            (1, self.move_and_recreate),
            (2, self.delete),
            (1, self.move_folder),
            (0.4, self.delete_folder),
            (1.5, self.attach),
        ]
        op = self.rng.choices([o for _, o in ops], weights=[w for w, _ in ops])[0]
        return op()


def seed_pages(count: int = 12) -> dict[str, str]:
    """A starting vault for the random runs: pages in folders, linking each other."""
    pages = {}
    for i in range(count):
        folder = FOLDERS[i % len(FOLDERS)]
        target = f"n{(i + 1) % count}"
        pages[f"{folder}/n{i}.md"] = f"# Page {i}\n\nstart{i} river [[{target}]]\n\n## Intro\n"
    return pages
