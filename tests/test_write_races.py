"""Write commands racing one another: the writer lock is the barrier, never a sleep.

The test process takes the vault's writer lock, starts the CLI writers as subprocesses and
waits until each of them has tried the lock at least twice (so its first try failed: it is
waiting). A ``sitecustomize`` module on the writers' ``PYTHONPATH`` sees each ``flock`` call
through Python's audit hook (event ``fcntl.flock``) and makes a marker file on the second
exclusive try on ``write.lock``. Then the lock is released and the writers run in whatever
order the kernel gives them the lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result, run_cli
from tests.watch_helpers import wait_until
from vault_sync.config import load_config
from vault_sync.engine import writer_lock

MakeVault = Callable[..., Path]

#: Installed in each writer (test-only): the marker file is made when the process tries the
#: writer lock for the second time, i.e. it found the lock held and waits for it.
SITECUSTOMIZE = """\
import fcntl, os, sys
_mark = os.environ.get("TEST_LOCK_WAIT_MARK")
if _mark:
    _tries = [0]
    def _hook(event, args):
        if event != "fcntl.flock" or not args[1] & fcntl.LOCK_EX:
            return
        try:
            target = os.readlink(f"/proc/self/fd/{args[0]}")
        except OSError:
            return
        if target.endswith("/write.lock"):
            _tries[0] += 1
            if _tries[0] == 2:
                open(_mark, "w").close()
    sys.addaudithook(_hook)
"""


def _writers_behind_the_lock(vault: Path, tmp: Path, commands: list[list[str]]) -> list[Result]:
    """Run every command as ``vault-sync --vault VAULT ...`` at once, all of them waiting for
    the writer lock this process holds until each has found it taken; then release it."""
    site = tmp / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    procs, marks = [], []
    with writer_lock(load_config(vault)):
        for n, args in enumerate(commands):
            mark = tmp / f"waiting-{n}"
            env = {**os.environ, "PYTHONPATH": str(site), "TEST_LOCK_WAIT_MARK": str(mark)}
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "vault_sync", "--vault", str(vault), *args],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            marks.append(mark)
        wait_until(
            lambda: all(m.exists() for m in marks) or any(p.poll() is not None for p in procs),
            what="every writer waiting for the lock",
        )
        assert [p.poll() for p in procs] == [None] * len(procs)
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        results.append(Result(proc.returncode, out, err))
    return results


def _remember(title: str, source: str, *extra: str) -> list[str]:
    return ["remember", title, "--kind", "rule", "--evidence", f"session:{source}", *extra]


def test_racing_remembers_of_one_title_make_one_page_and_refuse_the_rest(
    make_vault: MakeVault, tmp_path: Path
) -> None:
    """Fault: each writer looked the title up before taking the lock, so both found none:
    `Race 2 2.md`, or a FileExistsError traceback and the evidence lost. Now the look-up, the
    create and the sync of the page happen under one hold of the lock."""
    vault = make_vault({"a.md": "# A\n"})
    assert run_cli("--vault", str(vault), "sync").code == 0
    sources = [f"s{n}" for n in range(4)]
    results = _writers_behind_the_lock(vault, tmp_path, [_remember("Race 2", s) for s in sources])
    assert sorted(r.code for r in results) == [0, 1, 1, 1], [r.err for r in results]
    assert sorted(p.name for p in (vault / "rules").iterdir()) == ["Race 2.md"]
    won = sources[[r.code for r in results].index(0)]
    assert (vault / "rules" / "Race 2.md").read_text(encoding="utf-8") == (
        f"---\nkind: rule\nevidence:\n  - session:{won}\n---\n"
    )
    refused = [r.err for r in results if r.code == 1]
    assert (
        refused
        == ["Error: 'Race 2' names an existing page: rules/Race 2.md (use --update to add to it)\n"]
        * 3
    )


def test_racing_remembers_with_update_all_land_on_one_page(
    make_vault: MakeVault, tmp_path: Path
) -> None:
    """``--update`` from writers racing on a new title: one creates the page, every other
    adds its evidence to it; none is lost."""
    vault = make_vault({"a.md": "# A\n"})
    assert run_cli("--vault", str(vault), "sync").code == 0
    sources = [f"s{n}" for n in range(4)]
    results = _writers_behind_the_lock(
        vault, tmp_path, [_remember("Concurrent rule", s, "--update") for s in sources]
    )
    assert [r.code for r in results] == [0] * 4, [r.err for r in results]
    assert [r.err for r in results] == [""] * 4
    assert sorted(p.name for p in (vault / "rules").iterdir()) == ["Concurrent rule.md"]
    lines = (vault / "rules" / "Concurrent rule.md").read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["---", "kind: rule", "evidence:"] and lines[-1] == "---"
    assert sorted(lines[3:-1]) == [f"  - session:{s}" for s in sources]
    found = run_cli("--vault", str(vault), "show", "Concurrent rule", "--json")
    assert found.code == 0, found.err
