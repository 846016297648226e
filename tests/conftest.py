"""Shared fixtures: isolation from the user's state, vault builders, the CLI as a subprocess."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
#: The team's shared folder (real corpora, cases): ../shared beside the repository, as CI lays
#: it out, or $VAULT_SYNC_SHARED (for a copy of the tests run elsewhere, e.g. mutmut's mutants/).
SHARED = Path(os.environ.get("VAULT_SYNC_SHARED") or REPO.parent / "shared")
CASES = Path(__file__).resolve().parent / "pages"
CORPORA = SHARED / "corpora"


@pytest.fixture(autouse=True)
def _isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Clear VAULT_SYNC_VAULT and point HOME at a temp folder (simonw/llm's pattern)."""
    monkeypatch.delenv("VAULT_SYNC_VAULT", raising=False)
    monkeypatch.delenv("VAULT_SYNC_FAULT", raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def write_pages(root: Path, pages: dict[str, str]) -> Path:
    """Write ``{relative path: text}`` under ``root`` (folders made as needed)."""
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def sidecar_rows(vault: Path, query: str) -> list[tuple[object, ...]]:
    """The rows of ``query`` on the vault's active sidecar (read as it is: no repair)."""
    from vault_sync import layout
    from vault_sync.config import load_config

    folder = layout.active_set(load_config(vault).store_path)
    assert folder is not None
    db = sqlite3.connect(layout.sidecar_file(folder))
    try:
        return list(db.execute(query))
    finally:
        db.close()


@pytest.fixture
def make_vault(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Return a function making a vault folder (with an .obsidian/ marker) from pages."""

    def make(pages: dict[str, str], name: str = "vault") -> Path:
        root = tmp_path / name
        (root / ".obsidian").mkdir(parents=True, exist_ok=True)
        return write_pages(root, pages)

    return make


@dataclass
class Result:
    """A finished CLI process."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


#: Run a command as the unprivileged user ``nobody`` (uid and gid 65534, no groups). CI runs
#: as root, which reads and writes everything: permission cases need another user.
NOBODY = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    user: tuple[str, ...] = (),
) -> Result:
    """Run ``python -m vault_sync ARGS`` as a real subprocess (``user=NOBODY``: unprivileged)."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [*user, sys.executable, "-m", "vault_sync", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli() -> Callable[..., Result]:
    """The CLI as a real subprocess: ``cli("--vault", path, "sync")``."""
    return run_cli


def query_paths(cli: Callable[..., Result], vault: Path, *args: str) -> list[str]:
    """The paths ``query ARGS --json`` returns on ``vault``, in rank order (exit 0 asserted)."""
    out = cli("--vault", str(vault), "query", *args, "--json")
    assert out.code == 0, out.err
    return [hit["path"] for hit in out.json()["hits"]]


def corpus(name: str) -> Path:
    """The folder of a real corpus in ../shared/corpora, read only. CI lays ``shared/`` out
    beside the repository; a missing corpus fails the test with this message, not a skip."""
    root = CORPORA / name
    assert root.is_dir(), (
        f"corpus {root} missing: put the team's shared/ beside the repository, or set"
        " VAULT_SYNC_SHARED to a copy of it (README, Set-up)"
    )
    return root


def copy_corpus(name: str, dest: Path) -> Path:
    """Copy a corpus from ../shared/corpora into ``dest`` (never sync inside ../shared)."""
    target = dest / name
    shutil.copytree(corpus(name), target, symlinks=True)
    return target


@functools.cache
def _nobody_can_run_the_cli() -> bool:
    """Whether ``nobody`` can start this checkout's interpreter and import ``vault_sync``."""
    probe = subprocess.run(
        [*NOBODY, sys.executable, "-c", "import vault_sync"],
        capture_output=True,
        timeout=60,
        cwd="/",
    )
    return probe.returncode == 0


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A fresh folder the user ``nobody`` owns, mode 0755, outside pytest's temp folders
    (those are mode 0700 and root's: ``nobody`` could not even reach them). Needs root."""
    assert os.geteuid() == 0, "permission tests run as root (as CI does), acting as nobody"
    if not _nobody_can_run_the_cli():
        pytest.skip(
            "the user nobody cannot run vault-sync from this checkout (a folder above it or"
            " its interpreter is not readable by others, e.g. a mode-0700 mktemp folder or a"
            " Python under /root): permission cases need a checkout and a Python other users"
            " can read"
        )
    root = Path(tempfile.mkdtemp(prefix="vault-sync-test-", dir="/var/tmp"))
    root.chmod(0o755)
    os.chown(root, 65534, 65534)
    try:
        yield root
    finally:
        for folder, _dirs, _files in os.walk(root):
            os.chmod(folder, 0o755)  # folders a test made unreadable
        shutil.rmtree(root, ignore_errors=True)


def give_to_nobody(root: Path) -> None:
    """Make ``nobody`` the owner of everything under ``root`` (a vault written by root)."""
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            os.chown(os.path.join(folder, name), 65534, 65534)
    os.chown(root, 65534, 65534)


def best_cpu_seconds(call: Callable[[], object], tries: int = 2) -> float:
    """CPU seconds of this process to run ``call()``, the best of ``tries``: other
    processes' load does not count, so a loaded CI machine cannot make a linear scan look
    slow (wall time did, at load 8). The linear-time tests compare two sizes with it."""
    best = float("inf")
    for _ in range(tries):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def fail_reading(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make reading the page ``name`` (vault-relative) fail with ``EIO`` while its ``stat``
    works, as a bad disk sector does. (Tests used ``/proc/self/mem``, which root cannot read
    either; a link into ``/proc`` is now never read at all, fresh-user report 3.)"""
    import errno

    from vault_sync import pagefile, prepare

    real = pagefile.read_page

    def read_page(vault: Path, entry: Any) -> Any:
        if entry.disk_path == name:
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(vault / name))
        return real(vault, entry)

    monkeypatch.setattr(prepare, "read_page", read_page)
